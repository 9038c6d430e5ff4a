"""Iterations: which one was in flight when the job failed, and which ones look abnormal.

The iteration in flight is extrapolated from the progress rate past the last logged one.
Following the L4 paper, each logged iteration is also an event sequence compared by DTW
with the previous ten; a three-sigma rule flags iterations whose sequence is unlike their
predecessors. No ranking decision reads those anomalies: their count goes to the LLM
prompt and the chat ``iteration`` tool reads them, so ``Extraction`` keeps computing them
(the cost is one cached DTW per distinct pair of sequences).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..mining import MinedJob
from ..records import NodeLog
from .progress import Timeline
from .weights import DEFAULT_WEIGHTS, Weights

MAX_REPORTED = 3  # iterations reported for a failure


def iteration_at(timeline: Timeline, node: str | None, ts: float) -> list[int]:
    """The iteration in flight at corrected time ``ts``: extrapolated from the progress rate,
    then the last logged one."""
    if not timeline.has_training:
        return []
    progs = [timeline.per_node[node]] if node in timeline.per_node and len(timeline.per_node[node].pos) else []
    progs = progs or [p for p in timeline.per_node.values() if len(p.pos)]
    best_it, best_ts = -1, -math.inf
    for prog in progs:
        ok = ~np.isnan(prog.ts)
        before = ok & (prog.ts <= ts) if not math.isnan(ts) else ok
        if before.any():
            idx = np.flatnonzero(before)[-1]
            if prog.ts[idx] > best_ts or (prog.ts[idx] == best_ts and prog.iteration[idx] > best_it):
                best_it, best_ts = int(prog.iteration[idx]), float(prog.ts[idx])
    if best_it < 0:
        first = min(int(p.iteration[0]) for p in progs)
        return [first]
    candidates = []
    step_s = timeline.step_seconds
    if not math.isnan(step_s) and step_s > 0 and not math.isnan(ts):
        per_iter = step_s / timeline.iteration_interval
        ahead = int((ts - best_ts) / per_iter) + 1
        ahead = max(1, min(ahead, timeline.iteration_interval))
        candidates.append(best_it + ahead)
    candidates.append(best_it + 1)
    seen: list[int] = []
    for c in candidates:
        if c not in seen:
            seen.append(c)
    return seen


def failure_iterations(timeline: Timeline, stage: str, node: str | None, ts: float) -> list[int]:
    """The iterations to report for a failure at ``stage`` anchored at (``node``, ``ts``):
    the slowdown's first slow iteration, then the one in flight. A hang is dated by the
    last progress line, not by the timeouts that end it."""
    iterations: list[int] = []
    if timeline.has_training and stage in ("training", "checkpoint"):
        if timeline.slowdown:
            iterations = [timeline.slowdown_iteration]
        if math.isnan(ts) or (timeline.hang and ts > timeline.last_progress_ts):
            ts = timeline.last_progress_ts
        for it in iteration_at(timeline, node, ts):
            if it not in iterations:
                iterations.append(it)
    return iterations[:MAX_REPORTED]


# A line that numbers an iteration and reports on it: training figures, a checkpoint save or an
# evaluation at that iteration. Real lines: "iteration    45000/  115311 | ... | lm loss: 2.113567E+00"
# and "valid loss at iteration 45000 | lm loss value: 2.327091E+00" (bigscience tr11 chronicles),
# "saving checkpoint at iteration     200 to checkpoints/ds_stage2_..." (argonne-lcf/Megatron-DeepSpeed
# Polaris log). Set-up steps are numbered too ("Step 3: loading the model") and say nothing.
_REPORTED = re.compile(r"(?i)\bloss\b|\blr\b|learning.rate|grad.?norm|throughput|samples/s|tokens/s|"
                       r"elapsed|\bsav(?:e|ing)\b.{0,40}checkpoint|checkpoint.{0,40}\bsav(?:e|ing)\b|\bvalid|\beval")


def last_logged(mined: MinedJob, log: NodeLog, pos: int) -> list[int]:
    """Without a progress timeline (an excerpt, or fewer than three progress lines), the last
    iteration the job reported at or before the failure at ``log``'s position ``pos``: a job
    fails in the iteration after the last one it reported, or in the save or evaluation it
    announced. Reads the node's own lines and, for a console, its file's other ranks up to the
    same line."""
    if not len(log):
        return []
    line = int(log.lineno[min(pos, len(log) - 1)])
    best_line, best_it = -1, -1
    for other in mined.nodes.values():
        if other is not log and other.source != log.source:
            continue
        upto = min(pos, len(other) - 1) + 1 if other is log else int(np.searchsorted(other.lineno, line, side="right"))
        idx = np.flatnonzero(other.iteration[:upto] >= 0)
        for i in idx[::-1].tolist():
            if _REPORTED.search(mined.miner.template(int(other.template[i]))):
                if int(other.lineno[i]) > best_line:
                    best_line, best_it = int(other.lineno[i]), int(other.iteration[i])
                break
    return [best_it] if best_it >= 0 else []


def _dtw(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """DTW distance with 0/1 event cost, normalised by the longer sequence."""
    if a == b:
        return 0.0
    if not a or not b:
        return 1.0
    n, m = len(a), len(b)
    prev = [math.inf] * (m + 1)
    prev[0] = 0.0
    for i in range(1, n + 1):
        cur = [math.inf] * (m + 1)
        ai = a[i - 1]
        for j in range(1, m + 1):
            cost = 0.0 if ai == b[j - 1] else 1.0
            cur[j] = cost + min(prev[j], prev[j - 1], cur[j - 1])
        prev = cur
    return prev[m] / max(n, m)


@dataclass
class IterationAnomaly:
    node: str
    iteration: int
    similarity: float
    extra_tids: list[int]  # events in this iteration that its window did not have


def abnormal_iterations(
    mined: MinedJob, timeline: Timeline, ignore: set[int], weights: Weights = DEFAULT_WEIGHTS
) -> list[IterationAnomaly]:
    """The paper's temporal comparison: DTW similarity to the previous ten, three-sigma rule."""
    w = weights
    window_size = w.dtw_window
    found: list[IterationAnomaly] = []
    if not timeline.has_training:
        return found
    cache: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}
    for name, prog in timeline.per_node.items():
        if len(prog.pos) < window_size + 2:
            continue
        log = mined.nodes[name]
        bounds = prog.pos.tolist()[-w.dtw_max_iterations :]
        iters = prog.iteration.tolist()[-w.dtw_max_iterations :]
        seqs: list[tuple[int, ...]] = []
        for k, start in enumerate(bounds):
            end = bounds[k + 1] if k + 1 < len(bounds) else len(log)
            seq = tuple(t for t in log.template[start + 1 : end].tolist() if t not in ignore)
            seqs.append(seq[: w.dtw_max_sequence])
        sims = np.ones(len(seqs))
        for k in range(1, len(seqs)):
            window = seqs[max(0, k - window_size) : k]
            dists = []
            for other in window:
                key = (seqs[k], other)
                d = cache.get(key)
                if d is None:
                    d = cache[key] = _dtw(seqs[k], other)
                dists.append(d)
            sims[k] = 1.0 - float(np.mean(dists))
        mean, std = float(sims.mean()), float(sims.std())
        threshold = mean - w.dtw_sigmas * std
        for k in np.flatnonzero(sims < min(threshold, 1.0 - 1e-9)).tolist():
            window_tids = {t for s in seqs[max(0, k - window_size) : k] for t in s}
            extra = sorted({t for t in seqs[k] if t not in window_tids})
            found.append(IterationAnomaly(name, iters[k], float(sims[k]), extra))
    return found
