"""Swimlanes: one lane per node over the failure episode, most suspicious node on top.

A lane shows when the node logged (a faint activity strip), its silent stretches, its
last progress line, and where it printed the root event, its companions and the cascade
(waits, teardown). Time is each node's clock corrected for skew, so "who went first"
compares like with like.

The window is the failure episode, not the whole run: a 40-hour run whose failure takes
three minutes would otherwise draw every mark in one pixel (the progress chart shows the
whole run). Above ``FOLD_ABOVE`` nodes only the ``TOP_LANES`` most suspicious keep a lane;
the others are folded into one band that counts how many of them were active or printed
a cascade message in each slice of time, which keeps a 1,000-node page small and readable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..ingest import natural_key
from ..records import NodeLog
from ..schema import Diagnosis
from .axis import LABEL_W, RIGHT_PAD, WIDTH, Scale, clock, duration, ticks, time_step
from .source import ReportSource

FOLD_ABOVE = 64  # up to this many nodes, every node gets a lane
TOP_LANES = 24  # lanes kept when folding
LANE_H = 16.0
TOP_PAD = 36.0  # room for the time axis
BUCKETS = 120  # activity strip resolution
ACTIVITY_TICK = 1.6  # widest activity tick
MAX_SILENCES = 2  # per lane: the longest ones tell the story
SILENCE_MIN_S = 20.0
SILENCE_MIN_SHARE = 0.04  # of the window
USUAL_GAP_QUANTILE = 0.9  # a node's usual pause, from its lines before the window
USUAL_GAP_FACTOR = 2.0
ROLES = ("root", "companion", "wait", "teardown")
TAIL = " until the job's last line"  # ends the tooltip of a silence that lasts to the end


@dataclass
class Mark:
    kind: str  # root | companion | wait | teardown | progress
    x: float
    node: str
    line: int
    ts: float
    count: int = 1  # occurrences of this event on this node
    event: int = 0  # 1-based index of the evidence item it belongs to (0: none)
    text: str = ""  # the raw line, read back from the file

    @property
    def label(self) -> str:
        return {"root": "root event", "companion": "companion of the root", "wait": "cascade: waits on a peer",
                "teardown": "cascade: teardown", "progress": "last progress line"}[self.kind]


@dataclass
class Lane:
    node: str
    label: str
    y: float
    suspect: bool
    reason: str
    span: tuple[float, float] | None  # x of the node's first and last line inside the window
    activity: str  # SVG path of the activity strip
    silences: list[tuple[float, float, str]] = field(default_factory=list)  # x0, x1, "silent for 3 min"
    marks: list[Mark] = field(default_factory=list)


@dataclass
class Band:
    """The folded nodes: per time slice, how many logged and how many printed a cascade."""

    nodes: int
    y: float
    height: float
    bars: list[tuple[float, float, float, float, str]]  # x, width, active height, cascade height, tooltip


@dataclass
class Swimlanes:
    height: float
    lanes: list[Lane]
    ticks: list[tuple[float, str]]
    window: str  # what the window covers, in words
    band: Band | None = None
    onset: tuple[float, str] | None = None  # x and label of the root event's first line
    skew: str = ""  # how far the node clocks were moved onto the job's clock
    story: str = ""  # the lanes in one sentence: who went first, what the others did after
    plot_x0: float = LABEL_W
    plot_x1: float = WIDTH - RIGHT_PAD


def suspicion_order(d: Diagnosis, src: ReportSource) -> list[str]:
    """Every node, most suspicious first: the verdict's suspects, the root's printers (who
    printed first first), silent and stalled nodes, then by the first failure-time message."""
    ex = src.extraction
    names = list(src.mined.nodes)
    rank: dict[str, tuple[float, ...]] = {}
    suspects = {n.node: i for i, n in enumerate(d.faulty_nodes)}
    root = ex.events[:1]
    root_first = src.first_times(root[0].tid) if root else {}
    companions = {n for e in ex.events[1:] for n in e.nodes}
    quiet = set(ex.timeline.silent_nodes) | set(ex.timeline.stalled_nodes)
    cascade_first: dict[str, float] = {}
    for e in ex.cascades:
        for node, ts in src.first_times(e.tid).items():
            cascade_first[node] = min(ts, cascade_first.get(node, math.inf))
    for name in names:
        rank[name] = (
            suspects.get(name, len(suspects)),
            0 if name in root_first else 1,
            root_first.get(name, math.inf),
            0 if name in companions else 1,
            0 if name in quiet else 1,
            cascade_first.get(name, math.inf),
        )
    return sorted(names, key=lambda n: (*rank[n], natural_key(n)))


def _window(src: ReportSource, shown: list[str]) -> tuple[float, float] | None:
    """The failure episode in corrected time: from a little before the first sign of it
    (the root, the cascade, the last progress of the job or of a shown lane) to the end."""
    ex = src.extraction
    ends = [t for t in ex.table.node_last_ts.values() if math.isfinite(t)]
    starts = [t for t in ex.table.node_first_ts.values() if math.isfinite(t)]
    if not ends:
        return None
    end, begin = max(ends), min(starts)
    anchors = [t for e in (*ex.events, *ex.cascades) for t in src.first_times(e.tid).values()]
    anchors += [ex.timeline.last_progress_ts, ex.timeline.onset_ts]
    for name in shown:
        prog = ex.timeline.per_node.get(name)
        if prog is not None and len(prog.ts):
            anchors.append(float(prog.ts[-1]))
    anchors = [t for t in anchors if math.isfinite(t)]
    start = min(anchors, default=begin)
    step = ex.timeline.step_seconds
    pad = max(0.08 * (end - start), 2 * step if math.isfinite(step) else 0.0, 5.0)
    return max(begin, start - pad), max(end, start + 1.0)


def build(d: Diagnosis, src: ReportSource) -> Swimlanes | None:
    """The swimlanes of a job, or None when its lines carry no time."""
    order = suspicion_order(d, src)
    fold = len(order) > FOLD_ABOVE
    shown = order[:TOP_LANES] if fold else order
    window = _window(src, shown)
    if window is None:
        return None
    t0, t1 = window
    x = Scale(t0, t1, LABEL_W, WIDTH - RIGHT_PAD)
    step = time_step(t1 - t0)
    axis = [(x(t), clock(t)) for t in ticks(t0, t1, step)]
    span = t1 - t0
    quiet_s = max(SILENCE_MIN_S, SILENCE_MIN_SHARE * span)
    suspects = {n.node: n for n in d.faulty_nodes}
    event_index = {e.tid: i for i, e in enumerate(src.extraction.events, 1)}
    lanes = []
    for i, name in enumerate(shown):
        node = suspects.get(name)
        label = node.display if node is not None else name
        times = src.corrected(name)
        lane = Lane(
            node=name, label=label, y=TOP_PAD + i * LANE_H, suspect=node is not None,
            reason=node.reason if node is not None else "", span=_span(times, t0, t1, x),
            activity=_activity(times, t0, t1, x, TOP_PAD + i * LANE_H),
            silences=_silences(times, t0, t1, x, quiet_s),
        )
        lane.marks = _marks(src, name, x, event_index)
        lanes.append(lane)
    height = TOP_PAD + len(lanes) * LANE_H + 8
    band = None
    if fold:
        band = _band(src, order[TOP_LANES:], t0, t1, x, height)
        height += band.height + 8
    first = clock(t0, with_date=True)
    whole = max(t for t in src.extraction.table.node_last_ts.values() if math.isfinite(t)) - min(
        t for t in src.extraction.table.node_first_ts.values() if math.isfinite(t)
    )
    words = f"{first} to {clock(t1)} UTC ({duration(span)} of a {duration(whole)} run)"
    root_times = src.first_times(src.extraction.events[0].tid) if src.extraction.events else {}
    onset = None
    if root_times:
        at = min(root_times.values())
        onset = (x(at), f"root {clock(at)}")
    skews = [abs(v) for v in src.extraction.table.skew.values() if math.isfinite(v)]
    worst = max(skews, default=0.0)
    skew = f"Times are on the job's median clock (node clocks corrected by up to {worst:.1f} s)." if worst >= 0.5 else ""
    return Swimlanes(height=height, lanes=lanes, ticks=axis, window=words, band=band, onset=onset, skew=skew,
                     story=_story(lanes, band))


def _story(lanes: list[Lane], band: Band | None) -> str:
    """The lanes in words: the top suspect when it fell silent without printing the root
    (a dead host), who printed the root first and when, whether it then went silent, and
    when the other nodes' cascade began and ended (shown lanes; the band says the rest)."""
    roots = sorted((m for lane in lanes for m in lane.marks if m.kind == "root"), key=lambda m: m.ts)
    if not roots:
        return ""
    first = roots[0]
    parts = []
    top = lanes[0]
    if top.suspect and top.node != first.node and _fell_silent(top):
        parts.append(f"{top.node}, the top suspect, stopped logging ({_silent_tip(top)}).")
    words = f"{first.node} printed the root event first, at {clock(first.ts)}"
    lane = next(lane for lane in lanes if lane.node == first.node)
    if _fell_silent(lane):
        words += ", and then fell silent"
    cascade = [m for other in lanes if other.node != first.node for m in other.marks if m.kind in ("wait", "teardown")]
    if cascade:
        nodes = len({m.node for m in cascade})
        start, end = min(m.ts for m in cascade), max(m.ts for m in cascade)
        after = start - first.ts
        when = "the same moment" if abs(after) < 1 else f"{duration(abs(after))} {'later' if after > 0 else 'earlier'}"
        words += (f". {nodes} other node{'s' if nodes != 1 else ''} followed with waits or teardown from "
                  f"{clock(start)} ({when}) to {clock(end)}")
    if band is not None:
        words += f" (in the lanes shown; {band.nodes} more nodes in the band)"
    parts.append(words + ".")
    return " ".join(parts)


def _fell_silent(lane: Lane) -> bool:
    return any(TAIL in tip for _, _, tip in lane.silences)


def _silent_tip(lane: Lane) -> str:
    return next(tip for _, _, tip in lane.silences if TAIL in tip)


def _in_window(times: np.ndarray, t0: float, t1: float) -> np.ndarray:
    finite = times[np.isfinite(times)]
    return np.sort(finite[(finite >= t0) & (finite <= t1)])


def _span(times: np.ndarray, t0: float, t1: float, x: Scale) -> tuple[float, float] | None:
    inside = _in_window(times, t0, t1)
    return (x(float(inside[0])), x(float(inside[-1]))) if len(inside) else None


def _activity(times: np.ndarray, t0: float, t1: float, x: Scale, y: float) -> str:
    """One path of thin ticks where the node logged (presence is the signal, not the count)."""
    inside = _in_window(times, t0, t1)
    if not len(inside):
        return ""
    counts, edges = np.histogram(inside, bins=BUCKETS, range=(t0, t1))
    parts = []
    for k in np.flatnonzero(counts).tolist():
        x0, x1 = x(float(edges[k])), x(float(edges[k + 1]))
        w = min(max(round(x1 - x0 - 0.4, 1), 0.8), ACTIVITY_TICK)  # thin ticks: never mistaken for a mark
        parts.append(f"M{x0} {y + 4}h{w}v8h-{w}z")
    return "".join(parts)


def _silences(times: np.ndarray, t0: float, t1: float, x: Scale, quiet_s: float) -> list[tuple[float, float, str]]:
    """The node's longest silences in the window. A pause counts when it is much longer
    than the node's usual pauses before the window (a rank that logs once a minute is not
    silent for a minute); the tail always counts: that node stopped logging."""
    inside = _in_window(times, t0, t1)
    if not len(inside):
        return [(x(t0), x(t1), "no line in this window")]
    before = np.sort(times[np.isfinite(times) & (times < t0)])
    usual = float(np.quantile(np.diff(before), USUAL_GAP_QUANTILE)) if len(before) > 20 else 0.0
    edges = np.concatenate([inside, [t1]])
    gaps = np.diff(edges)
    found = []
    for k in np.argsort(-gaps)[:MAX_SILENCES].tolist():
        tail = k == len(gaps) - 1
        if gaps[k] >= (quiet_s if tail else max(quiet_s, USUAL_GAP_FACTOR * usual)):
            a, b = float(edges[k]), float(edges[k + 1])
            until = TAIL if tail else ""
            found.append((x(a), x(b), f"silent for {duration(b - a)} from {clock(a)}{until}"))
    return found


def _marks(src: ReportSource, name: str, x: Scale, event_index: dict[int, int]) -> list[Mark]:
    ex = src.extraction
    log: NodeLog = src.mined.nodes[name]
    offset = ex.table.skew.get(name, 0.0)
    marks: list[Mark] = []
    seen: set[int] = set()
    for e in (*ex.events, *ex.cascades):
        if e.tid in seen:
            continue
        seen.add(e.tid)
        kind = e.role if e.role in ROLES else "companion" if e.tid in event_index else "teardown"
        pos = np.flatnonzero(log.template == e.tid)
        if not len(pos):
            continue
        first = int(pos[0])
        ts = float(log.ts[first]) - offset
        marks.append(Mark(kind, x(ts), name, int(log.lineno[first]), ts, count=len(pos), event=event_index.get(e.tid, 0)))
    prog = ex.timeline.per_node.get(name)
    if prog is not None and len(prog.pos):
        last = int(prog.pos[-1])
        ts = float(prog.ts[-1])
        marks.append(Mark("progress", x(ts), name, int(log.lineno[last]), ts))
    # Draw the cascade first and the root last, so the root is never hidden under a wait.
    layer = {"progress": 0, "teardown": 1, "wait": 2, "companion": 3, "root": 4}
    return sorted(marks, key=lambda m: layer[m.kind])


def _band(src: ReportSource, folded: list[str], t0: float, t1: float, x: Scale, y: float) -> Band:
    """How many folded nodes logged, and how many printed their first cascade message, per slice."""
    slices = BUCKETS // 2
    edges = np.linspace(t0, t1, slices + 1)
    active = np.zeros(slices, dtype=int)
    cascading = np.zeros(slices, dtype=int)
    cascade_tids = [e.tid for e in src.extraction.cascades]
    for name in folded:
        times = src.corrected(name)
        inside = _in_window(times, t0, t1)
        if len(inside):
            counts, _ = np.histogram(inside, bins=edges)
            active += counts > 0
        log = src.mined.nodes[name]
        hits = np.flatnonzero(np.isin(log.template, cascade_tids))
        if len(hits):
            first = float(times[hits[0]])
            k = int(np.clip(np.searchsorted(edges, first, side="right") - 1, 0, slices - 1))
            if t0 <= first <= t1:
                cascading[k] += 1
    height = 48.0
    n = max(len(folded), 1)
    bars = []
    for k in range(slices):
        if not active[k] and not cascading[k]:
            continue
        x0, x1 = x(float(edges[k])), x(float(edges[k + 1]))
        tip = (f"{clock(float(edges[k]))}–{clock(float(edges[k + 1]))}: {int(active[k])} of {len(folded)} other nodes "
               f"logged; {int(cascading[k])} printed their first cascade message")
        bars.append((x0, round(x1 - x0, 1), round(height * active[k] / n, 1), round(height * cascading[k] / n, 1), tip))
    return Band(nodes=len(folded), y=y, height=height, bars=bars)
