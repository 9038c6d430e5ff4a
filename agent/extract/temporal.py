"""Temporal comparison: clock skew, progress, stages, hangs/slowdowns, abnormal iterations.

Training is synchronous, so every node logs the same iteration at (nearly) the same real
time: that gives per-node clock skew and a shared progress timeline. From the timeline:
when progress stopped (the failure onset), whether the job hung (progress stops, logs go
quiet) or slowed down (iteration time jumps), and which iteration was in flight.
Stages come from rules over message templates that hold across Megatron, DeepSpeed,
torch_npu/MindSpeed and generic logs. Following the L4 paper, each logged iteration is
an event sequence compared by DTW with the previous ten; a three-sigma rule flags
iterations whose sequence is unlike their predecessors.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from ..mining import MinedJob
from ..records import NodeLog
from .table import EventTable

# ------------------------------------------------------------------------------ stages

_CKPT_SAVE_DONE = re.compile(
    r"(?i)(successfully\s+saved|saved\s+(the\s+)?checkpoint|checkpoint\s+(is\s+)?saved|save[d]?\b.*\b(done|complete|finished))"
)
_CKPT_SAVE = re.compile(
    r"(?i)(\bsav(e|ing)\b.{0,40}(checkpoint|ckpt|state)|(checkpoint|ckpt).{0,40}\bsav(e|ing)\b|save_checkpoint|"
    r"\bwrit(e|ing)\b.{0,30}(checkpoint|ckpt|shard|model.?states|optim))"
)
_MODEL_LOADING = re.compile(
    r"(?i)(load(ing|ed)?\b.{0,40}(checkpoint|ckpt|model|weights|state.?dict|shard)|build(ing)?\s+(the\s+)?(gpt\s+)?model"
    r"|number of parameters|model (config|architecture|parallel)|parameters? on (\(tensor|rank)|initiali[sz]\w* (the )?model"
    r"|load_checkpoint|from_pretrained)"
)
_DATA_LOADING = re.compile(
    r"(?i)(dataset|dataloader|data loader|tokeni[sz]|\bsamples?\b.{0,20}(index|mapping|shuffle)|index (file|map)|"
    r"data.?(path|prefix|split|cache)|building (train|valid|test)|\bshuffle)"
)
_INIT = re.compile(
    r"(?i)(init_process_group|rendezvous|\bnccl\b|\bhccl\b|world.?size|master_addr|master_port|environment|"
    r"\bversion\b|\bpip\b|install|launch|torchrun|elastic|process.?group|visible.?devices|device count|"
    r"initiali[sz](e|ing|ed)\b|local.?rank|\bpid\b)"
)
_PROGRESS_HINT = re.compile(r"(?i)(loss|\blr\b|learning.rate|grad.?norm|throughput|samples/s|tokens/s|elapsed|step.?time|iter(?:ation)?.?time|ms/it|it/s|tflops)")



def stage_of_template(template: str) -> str | None:
    """The stage a message marks, or None when it marks none."""
    if _CKPT_SAVE_DONE.search(template):
        return "checkpoint_done"
    if _CKPT_SAVE.search(template):
        return "checkpoint"
    if _DATA_LOADING.search(template):  # before model: "loading tokenizer from /models/..." is data
        return "data_loading"
    if _MODEL_LOADING.search(template):
        return "model_loading"
    if _INIT.search(template):
        return "init"
    return None


# ---------------------------------------------------------------------------- progress


@dataclass
class Progress:
    """Iteration lines of one node: position, iteration number, corrected time."""

    pos: np.ndarray
    iteration: np.ndarray
    ts: np.ndarray


def progress_templates(mined: MinedJob) -> set[int]:
    """Templates that log training progress: an iteration number that grows, at least
    three times on a node (often only rank 0 or the last rank prints them), preferably
    next to loss/lr/time figures."""
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
            if len(sel) >= 3 and np.mean(np.diff(sel) >= 0) >= 0.9 and sel[-1] > sel[0]:
                increasing[tid] += 1
    chosen = {
        tid for tid in counts if increasing[tid] >= max(1, nodes_with[tid] // 2) and counts[tid] >= 3 * nodes_with[tid]
    }
    hinted = {tid for tid in chosen if _PROGRESS_HINT.search(mined.miner.template(tid))}
    return hinted or chosen


def node_progress(log: NodeLog, progress_tids: set[int], offset: float) -> Progress:
    if not progress_tids:
        empty = np.array([], dtype=np.int64)
        return Progress(empty, empty, np.array([], dtype=float))
    mask = np.isin(log.template, list(progress_tids)) & (log.iteration >= 0)
    pos = np.flatnonzero(mask)
    # A file holding several ranks prints each iteration once per rank: keep the first.
    _, first = np.unique(log.iteration[pos], return_index=True)
    pos = pos[np.sort(first)]
    return Progress(pos=pos, iteration=log.iteration[pos].astype(np.int64), ts=log.ts[pos] - offset)


def impute_times(mined: MinedJob, stamped_share: float = 0.5) -> list[str]:
    """Give lines without their own timestamp a time from the iteration they belong to.

    Some formats (Python's default ``LEVEL:logger:msg``) stamp nothing, so every line would
    inherit the launcher's start time and cross-node timing would be meaningless. Training
    is synchronous, so iteration k happens at one moment on every node: a map iteration ->
    time, from whatever stamped iteration lines exist (or, if none, a nominal one second
    per iteration after the last stamp) dates the rest. Returns the nodes changed."""
    changed: list[str] = []
    needy = [n for n, log in mined.nodes.items() if len(log) and log.stamped.mean() < stamped_share]
    if not needy:
        return changed
    # Anchors: every stamped line that follows an iteration line dates that iteration
    # (stamped kernel or runtime lines interleaved with unstamped progress lines count).
    its: list[np.ndarray] = []
    times: list[np.ndarray] = []
    for log in mined.nodes.values():
        ctx = np.maximum.accumulate(np.where(log.iteration >= 0, log.iteration, -1).astype(float))
        mask = (ctx >= 0) & log.stamped & ~np.isnan(log.ts)
        if mask.any():
            its.append(ctx[mask])
            times.append(log.ts[mask])
    known_it = np.concatenate(its) if its else np.array([])
    if len(np.unique(known_it)) >= 2:
        order = np.argsort(known_it, kind="stable")
        k_it, k_ts = known_it[order], np.concatenate(times)[order]
        uniq, start = np.unique(k_it, return_index=True)
        med = np.array([np.min(k_ts[a:b]) for a, b in zip(start, [*start[1:], len(k_ts)], strict=True)])
        med = np.maximum.accumulate(med)
        rate = float(np.median(np.diff(med) / np.diff(uniq))) if len(uniq) > 1 else 1.0
    else:
        uniq, med, rate = np.array([]), np.array([]), 1.0
    base_it, base_ts = 0.0, 0.0  # used only without a two-anchor map
    if len(known_it) and len(uniq) < 2:  # a single anchored iteration
        base_it = float(known_it[0])
        base_ts = float(np.min(np.concatenate(times)))
    elif len(uniq) < 2:  # no anchor: the job's first stamp dates its first iteration
        firsts = [float(np.nanmin(log.ts[log.stamped])) for log in mined.nodes.values() if log.stamped.any() and not np.isnan(log.ts[log.stamped]).all()]
        starts = [float(np.min(log.iteration[log.iteration >= 0])) for log in mined.nodes.values() if (log.iteration >= 0).any()]
        base_ts = min(firsts) if firsts else 0.0
        base_it = min(starts) if starts else 0.0
    for name in needy:
        log = mined.nodes[name]
        ctx = np.where(log.iteration >= 0, log.iteration, -1).astype(float)
        ctx = np.maximum.accumulate(ctx)  # the iteration each line belongs to
        target = ~log.stamped & (ctx >= 0)
        if not target.any():
            continue
        if len(uniq) >= 2:
            est = np.interp(ctx, uniq, med)
            est = np.where(ctx > uniq[-1], med[-1] + (ctx - uniq[-1]) * rate, est)
            est = np.where(ctx < uniq[0], med[0] - (uniq[0] - ctx) * rate, est)
        else:
            # One anchor or none: still one map for the whole job. A per-node base (each
            # file's first stamp) would give every node its own clock and invent skews.
            est = base_ts + (ctx - base_it) * rate
        new_ts = np.where(target, est, log.ts)
        # Unstamped lines before training inherited a stamp from later in the file (a lone
        # stamp at the end would otherwise date the whole run, through the running max).
        pre = ~log.stamped & (ctx < 0)
        first_est = float(est[int(np.flatnonzero(ctx >= 0)[0])])
        new_ts[pre] = np.fmin(new_ts[pre], first_est)
        valid = ~np.isnan(new_ts)
        new_ts[valid] = np.maximum.accumulate(new_ts[valid])  # time never runs backwards in a file
        log.ts = new_ts
        changed.append(name)
    return changed


def estimate_skew(mined: MinedJob, progress_tids: set[int]) -> dict[str, float]:
    """Per-node clock offset (seconds) against the job's median clock.

    Synchronous jobs print some messages on every node at the same moment: the same
    iteration, the k-th checkpoint save, distributed init. Pairing the k-th occurrence of
    such a message across nodes (only where the nodes print it equally often) gives each
    node's offset as the median of its differences."""
    n_nodes = len(mined.nodes)
    samples: dict[str, list[float]] = defaultdict(list)
    if n_nodes < 2:
        return {}
    by_iter: dict[int, dict[str, float]] = defaultdict(dict)
    if progress_tids:
        for name, log in mined.nodes.items():
            prog = node_progress(log, progress_tids, 0.0)
            for it, ts in zip(prog.iteration.tolist(), prog.ts.tolist(), strict=True):
                if not math.isnan(ts) and name not in by_iter[it]:
                    by_iter[it][name] = ts
    groups = [times for times in by_iter.values() if len(times) >= max(2, n_nodes // 2)][-200:]
    if len(groups) < 3:
        groups = _synchronous_groups(mined)
    for times in groups:
        mid = float(np.median(list(times.values())))
        for name, ts in times.items():
            samples[name].append(ts - mid)
    return {name: float(np.median(vals)) for name, vals in samples.items() if vals}


def _synchronous_groups(mined: MinedJob, max_per_node: int = 50) -> list[dict[str, float]]:
    """k-th occurrences of messages that most nodes print equally often (and not too often)."""
    n_nodes = len(mined.nodes)
    positions: dict[int, dict[str, np.ndarray]] = defaultdict(dict)
    for name, log in mined.nodes.items():
        tids, counts = np.unique(log.template, return_counts=True)
        for tid in tids[counts <= max_per_node].tolist():
            positions[tid][name] = np.flatnonzero(log.template == tid)
    groups: list[dict[str, float]] = []
    for per_node in positions.values():
        if len(per_node) < max(2, int(0.8 * n_nodes)):
            continue
        sizes = Counter(len(p) for p in per_node.values())
        size, agreeing = sizes.most_common(1)[0]
        if agreeing < max(2, int(0.8 * n_nodes)):
            continue
        for k in range(size):
            times = {}
            for name, pos in per_node.items():
                if len(pos) == size:
                    ts = float(mined.nodes[name].ts[pos[k]])
                    if not math.isnan(ts):
                        times[name] = ts
            if len(times) >= 2:
                groups.append(times)
    return groups[-400:]


# ---------------------------------------------------------------------- timeline facts


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


def build_timeline(mined: MinedJob, table: EventTable, progress_tids: set[int]) -> Timeline:
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
    if len(trained) >= 3:
        typical = float(np.median(list(max_by_node.values())))
        timeline.stalled_nodes = sorted(n for n, m in max_by_node.items() if m < typical - interval)
    # Nodes that stopped logging long before the others (dead host, killed process).
    quiet_gap = max(60.0, 20 * step) if not math.isnan(step) else 60.0
    lasts = {n: t for n, t in table.node_last_ts.items() if not math.isnan(t)}
    if len(lasts) >= 3:
        typical_last = float(np.median(list(lasts.values())))
        timeline.silent_nodes = sorted(n for n, t in lasts.items() if t < typical_last - quiet_gap)

    # Hang: progress stopped and the job went on (quietly) far longer than an iteration takes.
    if not math.isnan(step) and not math.isnan(end_ts) and not math.isnan(last_progress):
        gap = end_ts - last_progress
        timeline.hang_seconds = gap
        timeline.hang = gap > max(120.0, 30 * step)
    _detect_slowdown(timeline, trained)
    return timeline


def heartbeat_templates(table: EventTable, progress_tids: set[int]) -> set[int]:
    """Messages printed all along the run (health monitors, progress): they keep going
    through a hang, so silence is judged without them."""
    start = min((t for t in table.node_first_ts.values() if not math.isnan(t)), default=math.nan)
    end = max((t for t in table.node_last_ts.values() if not math.isnan(t)), default=math.nan)
    if math.isnan(start) or end <= start:
        return set(progress_tids)
    span = end - start
    beats = set(progress_tids)
    for tid, stats in table.events.items():
        per_node = [s for s in stats.per_node.values() if s.count >= 4 and not math.isnan(s.first_ts)]
        if per_node and sum(1 for s in per_node if s.last_ts - s.first_ts >= 0.5 * span) >= max(1, len(per_node) // 2):
            beats.add(tid)
    return beats


def quiet_gap(mined: MinedJob, table: EventTable, heartbeats: set[int]) -> tuple[float, float]:
    """The longest silence (no message but heartbeats, on any node) before the job's last
    burst: (start, seconds). A hang shows as such a gap followed by timeouts and teardown."""
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
    i = int(np.argmax(gaps))
    return float(ts[i]), float(gaps[i])


def _detect_slowdown(timeline: Timeline, trained: dict[str, Progress]) -> None:
    """Seconds per iteration, median over nodes per logged iteration; a lasting jump >= 1.6x."""
    per_iter: dict[int, list[float]] = defaultdict(list)
    for prog in trained.values():
        if len(prog.iteration) < 3:
            continue
        d_iter = np.diff(prog.iteration)
        d_ts = np.diff(prog.ts)
        ok = (d_iter > 0) & ~np.isnan(d_ts)
        for it, rate in zip(prog.iteration[1:][ok].tolist(), (d_ts[ok] / d_iter[ok]).tolist(), strict=True):
            per_iter[it].append(rate)
    if len(per_iter) < 12:
        return
    iters = sorted(per_iter)
    rates = np.array([float(np.median(per_iter[i])) for i in iters])
    baseline = float(np.median(rates[: max(5, len(rates) // 3)]))
    if baseline <= 0:
        return
    slow = rates >= 1.6 * baseline
    # The onset is the first iteration from which most later iterations stay slow.
    for k in range(len(rates) - 4):
        tail = slow[k:]
        if slow[k] and tail.mean() >= 0.8 and len(tail) >= 5:
            timeline.slowdown = True
            timeline.slowdown_ratio = float(np.median(rates[k:]) / baseline)
            timeline.slowdown_iteration = iters[k]
            return


# ---------------------------------------------------------------------------- stages


def stage_marks(mined: MinedJob, progress_tids: set[int]) -> dict[int, str]:
    """Stage marked by each template that marks one."""
    marks: dict[int, str] = {}
    for tid, template in mined.miner.templates().items():
        if tid in progress_tids:
            marks[tid] = "training"
            continue
        stage = stage_of_template(template)
        if stage:
            marks[tid] = stage
    return marks


def stage_at(log: NodeLog, pos: int, marks: dict[int, str]) -> str:
    """The stage a node was in at line position ``pos`` (markers up to and including it).

    Before training the latest loading marker wins (frameworks load model and data in
    either order), but init-like lines (NCCL/HCCL set-up happens lazily) never send the
    stage back to init. Once training began only checkpoint saves change it."""
    stage = "init"
    trained = False
    tids = log.template[: pos + 1]
    for p in np.flatnonzero(np.isin(tids, list(marks))).tolist():
        mark = marks[int(tids[p])]
        if mark == "training":
            stage, trained = "training", True
        elif mark == "checkpoint":
            stage = "checkpoint" if trained else stage
        elif mark == "checkpoint_done":
            stage = "training" if trained else stage
        elif not trained and mark != "init":
            stage = mark
    return stage


def job_stage_at(
    mined: MinedJob, timeline: Timeline, table: EventTable, marks: dict[int, str], node: str, pos: int, ts: float
) -> str:
    """The stage at a moment, using the whole job: often only one rank logs progress or
    announces a checkpoint save, so a node's own lines are not enough."""
    local = stage_at(mined.nodes[node], pos, marks)
    if math.isnan(ts):
        return local
    progress_times = [p.ts[np.isfinite(p.ts)] for p in timeline.per_node.values()]
    progress_times = [t for t in progress_times if len(t)]
    if not progress_times or ts < min(float(t.min()) for t in progress_times) - 1.0:
        return _loading_stage_at(mined, table, marks, ts, local)
    before = [float(t[t <= ts + 1.0].max()) for t in progress_times if (t <= ts + 1.0).any()]
    last_progress = max(before) if before else -math.inf
    # A save announced (by any node) after the last progress line and not finished yet.
    save_tids = [t for t, m in marks.items() if m == "checkpoint"]
    done_tids = [t for t, m in marks.items() if m == "checkpoint_done"]
    saving_since, done_since = -math.inf, -math.inf
    for name, log in mined.nodes.items():
        offset = table.skew.get(name, 0.0)
        for tids, attr in ((save_tids, "save"), (done_tids, "done")):
            hits = np.flatnonzero(np.isin(log.template, tids))
            times = log.ts[hits] - offset
            times = times[(times >= last_progress - 1.0) & (times <= ts + 1.0)]
            if len(times):
                if attr == "save":
                    saving_since = max(saving_since, float(times.max()))
                else:
                    done_since = max(done_since, float(times.max()))
    if saving_since > -math.inf and saving_since >= done_since:
        return "checkpoint"
    return "training"


def _loading_stage_at(mined: MinedJob, table: EventTable, marks: dict[int, str], ts: float, local: str) -> str:
    """Before training: the latest loading marker any node printed up to ``ts`` (often only
    rank 0 announces "building datasets"); init when there is none."""
    loading = [t for t, m in marks.items() if m in ("model_loading", "data_loading")]
    latest, stage = -math.inf, "init"
    for name, log in mined.nodes.items():
        hits = np.flatnonzero(np.isin(log.template, loading))
        if not len(hits):
            continue
        times = log.ts[hits] - table.skew.get(name, 0.0)
        ok = np.flatnonzero(times <= ts + 1.0)
        if len(ok) and float(times[ok[-1]]) > latest:
            latest = float(times[ok[-1]])
            stage = marks[int(log.template[hits[ok[-1]]])]
    if stage == "init" and local in ("model_loading", "data_loading"):
        return local
    return stage


# ------------------------------------------------------------------------ iterations


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


# ---------------------------------------------------------------- DTW over iterations


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


MAX_SEQUENCE = 40  # events per iteration compared; longer iterations are clipped
MAX_ITERATIONS = 2000  # most recent logged iterations examined per node
WINDOW = 10


def abnormal_iterations(mined: MinedJob, timeline: Timeline, ignore: set[int]) -> list[IterationAnomaly]:
    """The paper's temporal comparison: DTW similarity to the previous ten, three-sigma rule."""
    found: list[IterationAnomaly] = []
    cache: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}
    for name, prog in timeline.per_node.items():
        if len(prog.pos) < WINDOW + 2:
            continue
        log = mined.nodes[name]
        bounds = prog.pos.tolist()[-MAX_ITERATIONS:]
        iters = prog.iteration.tolist()[-MAX_ITERATIONS:]
        seqs: list[tuple[int, ...]] = []
        for k, start in enumerate(bounds):
            end = bounds[k + 1] if k + 1 < len(bounds) else len(log)
            seq = tuple(t for t in log.template[start + 1 : end].tolist() if t not in ignore)
            seqs.append(seq[:MAX_SEQUENCE])
        sims = np.ones(len(seqs))
        for k in range(1, len(seqs)):
            window = seqs[max(0, k - WINDOW) : k]
            dists = []
            for other in window:
                key = (seqs[k], other)
                d = cache.get(key)
                if d is None:
                    d = cache[key] = _dtw(seqs[k], other)
                dists.append(d)
            sims[k] = 1.0 - float(np.mean(dists))
        mean, std = float(sims.mean()), float(sims.std())
        threshold = mean - 3 * std
        for k in np.flatnonzero(sims < min(threshold, 1.0 - 1e-9)).tolist():
            window_tids = {t for s in seqs[max(0, k - WINDOW) : k] for t in s}
            extra = sorted({t for t in seqs[k] if t not in window_tids})
            found.append(IterationAnomaly(name, iters[k], float(sims[k]), extra))
    return found
