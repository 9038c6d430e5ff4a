"""Training progress and what it says about the failure: a shared timeline.

Training is synchronous, so every node logs the same iteration at (nearly) the same real
time. The iteration lines give a progress timeline: when progress stopped (the failure
onset), whether the job hung (progress stops, logs go quiet), slowed down (iteration time
jumps), which nodes stopped progressing (stalled) or logging (silent) before the others.
Everything here reads records and returns new values; nothing changes the mined job.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from ..mining import MinedJob
from ..records import NodeLog
from .routine import INFO_LEVEL, routine_mask, routine_templates
from .table import EventTable
from .weights import DEFAULT_WEIGHTS, Weights

_PROGRESS_HINT = re.compile(r"(?i)(loss|\blr\b|learning.rate|grad.?norm|throughput|samples/s|tokens/s|elapsed|iter(?:ation)?.?time|ms/it|it/s|tflops)")

# A progress bar over loading, downloading or preprocessing counts shards or records, not
# training steps. Real line (HF transformers, LLaMA-Factory logs):
#   "Loading checkpoint shards: 100%|██████████| 4/4 [00:10<00:00,  2.5s/it]"
_NOT_STEPS = re.compile(r"(?i)\b(?:load(?:ing)?|download\w*|fetching|map|tokeniz\w*|preprocess\w*|shards?|filter)\b|examples/s")


@dataclass
class Progress:
    """Iteration lines of one node: position, iteration number, corrected time."""

    pos: np.ndarray
    iteration: np.ndarray
    ts: np.ndarray


def progress_reports(mined: MinedJob) -> set[int]:
    """Templates that report progress however rarely printed: an iteration number beside two
    or more progress figures (loss, lr, elapsed time...). An excerpt may hold one such line;
    it says the job was training, never that it failed (Megatron's even counts "nan iterations: 0").
    Real line (bigscience tr1-13B chronicles): "iteration 43680/ 311541 | consumed samples:
    25709904 | elapsed time per iteration (ms): 25593.4 | learning rate: 9.135E-05 | ..." """
    found: set[int] = set()
    for log in mined.nodes.values():
        for tid in np.unique(log.template[log.iteration >= 0]).tolist():
            template = mined.miner.template(tid)
            if tid not in found and len(set(_PROGRESS_HINT.findall(template))) >= 2 and not _NOT_STEPS.search(template):
                found.add(tid)
    return found


def progress_templates(mined: MinedJob, weights: Weights = DEFAULT_WEIGHTS) -> set[int]:
    """Templates that log training progress: an iteration number that grows, at least
    three times on a node (often only rank 0 or the last rank prints them), preferably
    next to loss/lr/time figures."""
    w = weights
    counts: dict[int, int] = defaultdict(int)
    nodes_with: dict[int, int] = defaultdict(int)
    increasing: dict[int, int] = defaultdict(int)
    for log in mined.nodes.values():
        mask = log.iteration >= 0
        if not mask.any():
            continue
        tids = log.template[mask]
        iters = log.iteration[mask]
        for tid in np.unique(tids).tolist():
            sel = iters[tids == tid]
            counts[tid] += len(sel)
            nodes_with[tid] += 1
            if (
                len(sel) >= w.progress_min_lines
                and np.mean(np.diff(sel) >= 0) >= w.progress_monotone_share
                # Grown at some point, not necessarily at the end: a run retried or restarted
                # counts again from the start, and a hang may stop it at its first value.
                # Real (NERSC Perlmutter NCCL reproducer, slurm output): "RANK 21: running step
                # 1/10" ... "10/10" thirteen times, then a fourteenth "1/10" and the time limit.
                and sel.max() > sel[0]
            ):
                increasing[tid] += 1
    chosen = {
        tid
        for tid in counts
        if increasing[tid] >= max(1, nodes_with[tid] // 2) and counts[tid] >= w.progress_min_lines * nodes_with[tid]
        and not _NOT_STEPS.search(mined.miner.template(tid))
    }
    hinted = {tid for tid in chosen if _PROGRESS_HINT.search(mined.miner.template(tid))}
    return hinted or chosen


def node_progress(log: NodeLog, progress_tids: set[int], offset: float) -> Progress:
    """One node's progress lines, each iteration once, times shifted by ``offset``."""
    if not progress_tids:
        empty = np.array([], dtype=np.int64)
        return Progress(empty, empty, np.array([], dtype=float))
    mask = np.isin(log.template, list(progress_tids)) & (log.iteration >= 0)
    pos = np.flatnonzero(mask)
    # A file holding several ranks prints each iteration once per rank: keep the first.
    _, first = np.unique(log.iteration[pos], return_index=True)
    pos = pos[np.sort(first)]
    return Progress(pos=pos, iteration=log.iteration[pos].astype(np.int64), ts=log.ts[pos] - offset)


@dataclass
class Timeline:
    """What the job's progress says about the failure."""

    has_training: bool
    last_progress_ts: float  # corrected; NaN without training
    last_iteration: int  # highest iteration logged by any node; -1 without training
    iteration_interval: int  # iterations between consecutive progress lines (median)
    step_seconds: float  # median seconds per logged progress line
    end_ts: float  # last line of the job (corrected)
    onset_ts: float  # best estimate of when things went wrong
    hang: bool = False
    hang_seconds: float = 0.0
    slowdown: bool = False
    slowdown_ratio: float = 1.0
    slowdown_iteration: int = -1
    stalled_nodes: list[str] = field(default_factory=list)  # stopped progressing before the others
    silent_nodes: list[str] = field(default_factory=list)  # stopped logging well before the others
    per_node: dict[str, Progress] = field(default_factory=dict)


def _median_step(per_node: dict[str, Progress]) -> tuple[int, float]:
    iter_steps: list[float] = []
    time_steps: list[float] = []
    for prog in per_node.values():
        if len(prog.iteration) >= 2:
            iter_steps.extend(np.diff(prog.iteration).tolist())
            dt = np.diff(prog.ts)
            time_steps.extend(dt[~np.isnan(dt)].tolist())
    interval = int(np.median([s for s in iter_steps if s > 0])) if any(s > 0 for s in iter_steps) else 1
    step = float(np.median([t for t in time_steps if t >= 0])) if time_steps else math.nan
    return max(interval, 1), step


def build_timeline(
    mined: MinedJob, table: EventTable, progress_tids: set[int], weights: Weights = DEFAULT_WEIGHTS
) -> Timeline:
    """The job's progress timeline: last progress, step time, hang, slowdown, stalled and silent nodes."""
    w = weights
    per_node = {
        name: node_progress(log, progress_tids, table.skew.get(name, 0.0)) for name, log in mined.nodes.items()
    }
    end_ts = max((t for t in table.node_last_ts.values() if not math.isnan(t)), default=math.nan)
    trained = {n: p for n, p in per_node.items() if len(p.pos)}
    if not trained:
        return Timeline(False, math.nan, -1, 1, math.nan, end_ts, end_ts, per_node=per_node)
    interval, step = _median_step(trained)
    last_iter = max(int(p.iteration.max()) for p in trained.values())
    last_ts_by_node = {n: float(np.nanmax(p.ts)) if np.isfinite(p.ts).any() else math.nan for n, p in trained.items()}
    last_progress = max((t for t in last_ts_by_node.values() if not math.isnan(t)), default=math.nan)
    timeline = Timeline(True, last_progress, last_iter, interval, step, end_ts, last_progress, per_node=per_node)

    # Nodes whose progress stopped before the rest of the job's did.
    max_by_node = {n: int(p.iteration.max()) for n, p in trained.items()}
    if len(trained) >= w.typical_min_nodes:
        typical = float(np.median(list(max_by_node.values())))
        timeline.stalled_nodes = sorted(n for n, m in max_by_node.items() if m < typical - interval)
    # Nodes that stopped logging long before the others (dead host, killed process).
    quiet = max(w.silent_min_seconds, w.silent_steps * step) if not math.isnan(step) else w.silent_min_seconds
    lasts = {n: t for n, t in table.node_last_ts.items() if not math.isnan(t)}
    if len(lasts) >= w.typical_min_nodes:
        typical_last = float(np.median(list(lasts.values())))
        timeline.silent_nodes = sorted(n for n, t in lasts.items() if t < typical_last - quiet)

    # Hang: progress stopped and the job went on (quietly) far longer than an iteration takes.
    # Quietly: a job still logging its own ordinary work (validation, plots) was slow, not hung.
    if not math.isnan(step) and not math.isnan(end_ts) and not math.isnan(last_progress):
        busy_until = last_ordinary_ts(mined, table, heartbeat_templates(table, progress_tids, w))
        gap = end_ts - max(last_progress, busy_until) if not math.isnan(busy_until) else end_ts - last_progress
        timeline.hang_seconds = gap
        timeline.hang = gap > max(w.hang_min_seconds, w.hang_steps * step)
    slowdown = detect_slowdown(trained, w, printed_step_seconds(mined, trained, progress_tids))
    if slowdown is not None:
        timeline.slowdown = True
        timeline.slowdown_ratio, timeline.slowdown_iteration = slowdown
    return timeline


def heartbeat_templates(table: EventTable, progress_tids: set[int], weights: Weights = DEFAULT_WEIGHTS) -> set[int]:
    """Messages printed all along the run (health monitors, progress): they keep going
    through a hang, so silence is judged without them."""
    w = weights
    start = min((t for t in table.node_first_ts.values() if not math.isnan(t)), default=math.nan)
    end = max((t for t in table.node_last_ts.values() if not math.isnan(t)), default=math.nan)
    if math.isnan(start) or end <= start:
        return set(progress_tids)
    span = end - start
    beats = set(progress_tids)
    for tid, stats in table.events.items():
        per_node = [s for s in stats.per_node.values() if s.count >= w.heartbeat_min_count and not math.isnan(s.first_ts)]
        lasting = sum(1 for s in per_node if s.last_ts - s.first_ts >= w.heartbeat_span_share * span)
        if per_node and lasting >= max(1, len(per_node) // 2):
            beats.add(tid)
    return beats


# A progress bar redraws itself in place: its one line stands for work all along, up to its
# last drawing. Real line (tqdm, rcc-uchicago/pedramh-profiling e3sm_train_3166345.e):
#   "Epoch [1/100], Year 2015, Loss: 0.1432:   0%|          | 19/9125 [25:54<181:35:17, 71.79s/it]"
PROGRESS_BAR = re.compile(r"%\|[^|]*\|\s*\S+/\S+\s*\[")


def undated_work(mined: MinedJob, table: EventTable, work: frozenset[int]) -> np.ndarray:
    """``(earliest, latest)`` per progress bar that carries no time of its own: it was drawn
    after its file's previous stamped line and redrawn up to the next one. tqdm draws without
    a timestamp, and Slurm's stop lands on the bar ("... 19/9125 [25:54<..., 71.79s/it]slurmstepd:
    error: *** JOB 3166345 ON c561-005 CANCELLED AT 2026-05-29T13:10:54 DUE TO TIME LIMIT ***",
    e3sm_train_3166345.e): the job trained until the stop, though its last stamped line is 26
    minutes older. An ordinary undated line (NCCL's INFO at start-up) was printed once, and a
    silence after it is still a silence."""
    bars = [tid for tid in work if PROGRESS_BAR.search(mined.miner.template(tid))]
    spans: list[np.ndarray] = []
    for name, log in mined.nodes.items():
        stamped = np.flatnonzero(log.stamped & ~np.isnan(log.ts))
        undated = np.flatnonzero(np.isin(log.template, bars) & (log.level <= INFO_LEVEL) & ~log.stamped & ~np.isnan(log.ts))
        if not len(stamped) or not len(undated):
            continue
        nxt = np.searchsorted(stamped, undated)
        has_next = nxt < len(stamped)  # work after the file's last stamp is bounded by nothing: left out
        undated, nxt = undated[has_next], nxt[has_next]
        skew = table.skew.get(name, 0.0)
        spans.append(np.column_stack([log.ts[undated], log.ts[stamped[nxt]]]) - skew)
    return np.concatenate(spans) if spans else np.empty((0, 2))


def last_ordinary_ts(mined: MinedJob, table: EventTable, heartbeats: set[int]) -> float:
    """When the job last logged routine work of its own (not heartbeats, not the failure's
    messages), on any node; NaN when it never did. A hang ends that work long before the
    job ends; a slow step (validation cut by a time limit) does not. Undated work counts at
    the latest time it may have been printed: silence is claimed only where it is known."""
    work = routine_templates(mined) - heartbeats
    last = math.nan
    for name, log in mined.nodes.items():
        # Stamped lines only: an unstamped line's time is borrowed, often from later in its file.
        keep = routine_mask(log, work) & log.stamped & ~np.isnan(log.ts)
        if keep.any():
            t = float(np.max(log.ts[keep])) - table.skew.get(name, 0.0)
            last = t if math.isnan(last) else max(last, t)
    spans = undated_work(mined, table, work)
    if len(spans):
        latest = float(spans[:, 1].max())
        last = latest if math.isnan(last) else max(last, latest)
    return last


def quiet_gap(mined: MinedJob, table: EventTable, heartbeats: set[int]) -> tuple[float, float]:
    """The longest silence (no message but heartbeats, on any node) before the job's last
    burst: (start, seconds). A hang shows as such a gap followed by timeouts and teardown.
    A gap that undated routine work may fill is not a known silence."""
    times: list[np.ndarray] = []
    beat_list = list(heartbeats)
    for name, log in mined.nodes.items():
        keep = ~np.isin(log.template, beat_list) & ~np.isnan(log.ts)
        if keep.any():
            times.append(log.ts[keep] - table.skew.get(name, 0.0))
    if not times:
        return math.nan, 0.0
    ts = np.unique(np.concatenate(times))
    if len(ts) < 3:
        return math.nan, 0.0
    gaps = np.diff(ts)
    spans = undated_work(mined, table, routine_templates(mined) - heartbeats)
    if len(spans):
        spans = spans[np.argsort(spans[:, 0])]
        reach = np.maximum.accumulate(spans[:, 1])  # the latest end among spans starting by each
        first = np.searchsorted(spans[:, 0], ts[:-1], side="right") - 1
        covered = (first >= 0) & (reach[np.maximum(first, 0)] >= ts[1:])
        gaps = np.where(covered, 0.0, gaps)
    i = int(np.argmax(gaps))
    return float(ts[i]), float(gaps[i])


# Megatron prints each logged iteration's own duration: "iteration 43680/ 311541 | consumed samples:
# 25709904 | elapsed time per iteration (ms): 25593.4 | ..." (bigscience tr1-13B chronicles), "elapsed
# time per iteration (s): 105.16" (bigscience tr11). Without timestamps it is the only clock a slowdown shows on.
_PRINTED_STEP = re.compile(r"elapsed time per iteration \((?P<unit>ms|s)\):\s*(?P<value>\d+(?:\.\d+)?)")
_PRINTED_STEP_WORDS = "elapsed time per iteration"


def printed_step_seconds(mined: MinedJob, trained: dict[str, Progress], progress_tids: set[int]) -> dict[str, np.ndarray]:
    """Per node, the duration each progress line prints for its iteration (seconds, NaN where it
    prints none), aligned with ``Progress.iteration``; only for nodes whose progress lines carry no
    timestamp (stamped lines date the iterations themselves). Re-reads those lines from their files."""
    if getattr(mined, "job", None) is None or not any(_PRINTED_STEP_WORDS in mined.miner.template(tid) for tid in progress_tids):
        return {}
    lines = {name: mined.nodes[name].lineno[prog.pos].tolist() for name, prog in trained.items()
             if len(prog.pos) >= 3 and mined.nodes[name].stamped[prog.pos].mean() < 0.5}
    texts = mined.line_texts({name: set(numbers) for name, numbers in lines.items()})
    found: dict[str, np.ndarray] = {}
    for name, numbers in lines.items():
        matches = [_PRINTED_STEP.search(texts.get((name, n), "")) for n in numbers]
        found[name] = np.array([float(m.group("value")) / (1000.0 if m.group("unit") == "ms" else 1.0) if m else np.nan
                                for m in matches])
    return found


def detect_slowdown(
    trained: dict[str, Progress], weights: Weights = DEFAULT_WEIGHTS, printed: dict[str, np.ndarray] | None = None
) -> tuple[float, int] | None:
    """Seconds per iteration, median over nodes per logged iteration; a lasting jump
    (``slowdown_ratio``) gives (ratio, first slow iteration), else None. A node's ``printed``
    durations stand in for its timestamps when it has them."""
    w = weights
    iteration_parts: list[np.ndarray] = []
    rate_parts: list[np.ndarray] = []
    for name, prog in trained.items():
        own = (printed or {}).get(name)
        if own is not None and np.isfinite(own).sum() >= 3:
            ok = np.isfinite(own)
            iteration_parts.append(prog.iteration[ok].astype(np.int64))
            rate_parts.append(own[ok])
            continue
        if len(prog.iteration) < 3:
            continue
        d_iter = np.diff(prog.iteration)
        d_ts = np.diff(prog.ts)
        ok = (d_iter > 0) & ~np.isnan(d_ts)
        iteration_parts.append(prog.iteration[1:][ok].astype(np.int64))
        rate_parts.append(d_ts[ok] / d_iter[ok])
    if not iteration_parts or not sum(len(part) for part in iteration_parts):
        return None
    iters_arr, rates = _group_medians(np.concatenate(iteration_parts), np.concatenate(rate_parts))
    if len(iters_arr) < w.slowdown_min_iterations:
        return None
    iters = iters_arr.tolist()
    baseline = float(np.median(rates[: max(w.slowdown_baseline_iterations, len(rates) // w.slowdown_baseline_divisor)]))
    if baseline <= 0:
        return None
    slow = rates >= w.slowdown_ratio * baseline
    # The onset is the first iteration from which most later iterations stay slow (suffix
    # counts: one pass, where a mean per candidate was quadratic in iterations).
    slow_after = np.cumsum(slow[::-1])[::-1]
    for k in range(len(rates) - (w.slowdown_tail_min - 1)):
        length = len(rates) - k
        if slow[k] and float(slow_after[k]) / length >= w.slowdown_tail_share and length >= w.slowdown_tail_min:
            return float(np.median(rates[k:]) / baseline), iters[k]
    return None


def _group_medians(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys and the median of the values of each, as ``np.median`` gives it
    (the middle value, or the mean of the two middle ones), without a call per key."""
    order = np.lexsort((values, keys))
    keys, values = keys[order], values[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    counts = np.diff(np.r_[starts, len(keys)])
    low = starts + (counts - 1) // 2
    high = starts + counts // 2
    return keys[starts], (values[low] + values[high]) / 2.0


def symptom_of(timeline: Timeline, fatal_root: bool) -> str:
    """launching_failure | abnormal_behavior | training_crash.

    A silence after a fatal error is a crash whose peers waited for the watchdog; a
    silence after a warning (or nothing) is a hang."""
    if not timeline.has_training:
        return "launching_failure"
    if timeline.slowdown or (timeline.hang and not fatal_root):
        return "abnormal_behavior"
    return "training_crash"
