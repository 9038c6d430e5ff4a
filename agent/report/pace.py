"""The progress chart: seconds per iteration, per node, over the whole run.

Stragglers show as a line above the others, a slowdown as a lasting step up, a hang as
progress that stops well before the log does. Each series is cut into ``BINS`` iteration
bins (median per bin), so the chart costs the same for a 200-iteration run and a
300,000-iteration one. Up to ``SEPARATE`` nodes get a line each; beyond that the nodes are
one median line inside a 10th–90th percentile band, and only the suspects keep their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..schema import Diagnosis
from .axis import LABEL_W, RIGHT_PAD, WIDTH, Scale, duration, nice_step, ticks
from .source import ReportSource

if TYPE_CHECKING:
    from ..extract.progress import Timeline

BINS = 160
SEPARATE = 8
HEIGHT = 230.0
TOP, BOTTOM = 14.0, 196.0
PALETTE = 6  # CSS classes s1..s5 colour highlighted series; suspects are red


@dataclass
class Series:
    label: str
    points: str  # SVG polyline points
    css: str  # s0..s5 for a highlighted node, "median" or "peer"
    tip: str


@dataclass
class Marker:
    x: float
    css: str  # fail | slow
    label: str


@dataclass
class ProgressChart:
    series: list[Series]
    band: str  # SVG path of the percentile band ("" when every node has its own line)
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]]
    markers: list[Marker]
    notes: list[str]
    nodes: int
    height: float = HEIGHT
    plot_x0: float = LABEL_W
    plot_x1: float = WIDTH - RIGHT_PAD


def _rates(iterations: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(iteration, seconds per iteration since the previous progress line) where both are known."""
    d_iter = np.diff(iterations).astype(float)
    d_ts = np.diff(times)
    ok = (d_iter > 0) & np.isfinite(d_ts) & (d_ts >= 0)
    return iterations[1:][ok], d_ts[ok] / d_iter[ok]


def _binned(its: np.ndarray, rates: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Median rate per iteration bin (NaN where the node logged no progress)."""
    out = np.full(len(edges) - 1, np.nan)
    k = np.clip(np.searchsorted(edges, its, side="right") - 1, 0, len(out) - 1)
    order = np.argsort(k, kind="stable")
    k, rates = k[order], rates[order]
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    for s, e in zip(starts, np.r_[starts[1:], len(k)], strict=True):
        out[k[s]] = float(np.median(rates[s:e]))
    return out


def _polyline(xs: list[float], ys: np.ndarray, y: Scale) -> str:
    return " ".join(f"{a},{y(float(b))}" for a, b in zip(xs, ys, strict=True) if math.isfinite(b))


def build(d: Diagnosis, src: ReportSource, order: list[str]) -> ProgressChart | None:
    """The chart, or None when no node logged progress twice."""
    timeline = src.extraction.timeline
    per_node = {}
    for name in order:
        prog = timeline.per_node.get(name)
        if prog is not None and len(prog.iteration) >= 2:
            its, rates = _rates(prog.iteration, prog.ts)
            if len(its):
                per_node[name] = (its, rates)
    if not per_node:
        return None
    lo = min(float(v[0].min()) for v in per_node.values())
    hi = max(float(v[0].max()) for v in per_node.values())
    hi = max(hi, lo + 1)
    edges = np.linspace(lo, hi, BINS + 1)
    binned = {n: _binned(its, rates, edges) for n, (its, rates) in per_node.items()}
    matrix = np.vstack(list(binned.values()))
    finite = matrix[np.isfinite(matrix)]
    # Checkpoint saves and evaluations spike one bin: the scale follows the bulk, spikes are clipped.
    top = float(np.quantile(finite, 0.99)) * 1.15 if len(finite) else 1.0
    top = max(top, float(np.median(finite)) * 1.5 if len(finite) else 1.0, 1e-3)
    x = Scale(lo, hi, LABEL_W, WIDTH - RIGHT_PAD)
    y = Scale(0.0, top, BOTTOM, TOP)
    centres = [x(float(c)) for c in (edges[:-1] + edges[1:]) / 2]

    suspects = [n.node for n in d.faulty_nodes]
    quiet = [*timeline.stalled_nodes, *timeline.silent_nodes]
    series: list[Series] = []
    band = ""
    if len(binned) <= SEPARATE:
        highlighted = list(binned)
    else:
        highlighted = [n for n in dict.fromkeys([*suspects, *quiet]) if n in binned][:PALETTE - 1]
        p10, p90, median = (np.full(BINS, np.nan) for _ in range(3))
        filled = np.isfinite(matrix).any(axis=0)  # bins where some node logged progress
        if filled.any():
            cols = matrix[:, filled]
            p10[filled], median[filled], p90[filled] = np.nanquantile(cols, [0.1, 0.5, 0.9], axis=0)
        band = _band_path(centres, p10, p90, y)
        series.append(Series(f"median of {len(binned)} nodes", _polyline(centres, median, y), "median",
                             f"median seconds per iteration over {len(binned)} nodes (band: 10th–90th percentile)"))
    others = 0
    for name in highlighted:
        its, rates = per_node[name]
        tip = f"{name}: median {np.median(rates):.2f} s/iteration, last progress at iteration {int(its.max())}"
        # Red is the suspects' colour on the whole page; the others cycle through the rest.
        css = "suspect-line" if name in suspects else f"s{1 + others % (PALETTE - 1)}"
        others += name not in suspects
        series.append(Series(name, _polyline(centres, binned[name], y), css, tip))

    x_step = nice_step(hi - lo)
    y_step = nice_step(top, 4)
    markers = _markers(d, timeline, x, lo, hi)
    notes = _notes(timeline, top, finite)
    return ProgressChart(
        series=series, band=band,
        x_ticks=[(x(v), f"{v:,.0f}") for v in ticks(lo, hi, x_step)],
        y_ticks=[(y(v), f"{v:g}") for v in ticks(0.0, top, y_step)],
        markers=markers, notes=notes, nodes=len(binned),
    )


def _band_path(xs: list[float], lower: np.ndarray, upper: np.ndarray, y: Scale) -> str:
    keep = [i for i in range(len(xs)) if math.isfinite(lower[i]) and math.isfinite(upper[i])]
    if len(keep) < 2:
        return ""
    top = " ".join(f"{xs[i]},{y(float(upper[i]))}" for i in keep)
    bottom = " ".join(f"{xs[i]},{y(float(lower[i]))}" for i in reversed(keep))
    return f"M{top} L{bottom} Z"


def _markers(d: Diagnosis, timeline: Timeline, x: Scale, lo: float, hi: float) -> list[Marker]:
    out = []
    if d.iterations and lo <= d.iterations[0] <= hi + timeline.iteration_interval:
        out.append(Marker(x(float(d.iterations[0])), "fail", f"failure: iteration {d.iterations[0]}"))
    if timeline.slowdown and timeline.slowdown_iteration >= 0:
        at = timeline.slowdown_iteration
        out.append(Marker(x(float(at)), "slow", f"slowdown ×{timeline.slowdown_ratio:.1f} from iteration {at}"))
    return out


def _notes(timeline: Timeline, top: float, finite: np.ndarray) -> list[str]:
    notes = []
    if timeline.hang:
        notes.append(
            f"Hang: progress stopped at iteration {timeline.last_iteration} and the log went on for "
            f"{duration(timeline.hang_seconds)} without it."
        )
    clipped = int(np.sum(finite > top))
    if clipped:
        notes.append(f"{clipped} spike(s) above {top:.3g} s/iteration (checkpoints, evaluation) are drawn at the top edge.")
    stalled = timeline.stalled_nodes
    if stalled:
        notes.append(f"Stopped progressing before the others: {', '.join(stalled[:8])}" + (" …" if len(stalled) > 8 else ""))
    return notes
