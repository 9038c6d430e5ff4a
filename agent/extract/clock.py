"""One clock for the job: times for unstamped lines, and each node's clock skew.

Some formats (Python's default ``LEVEL:logger:msg``) stamp nothing, so every line would
inherit the launcher's start time and cross-node timing would be meaningless. Training is
synchronous, so iteration k happens at one moment on every node: a map iteration -> time
dates the unstamped lines, and pairing the same synchronous message across nodes gives
each node's offset against the job's median clock.

Pure: ``impute_times`` returns the new time arrays and ``with_times`` a new job holding
them; the caller's ``MinedJob`` is never changed.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, defaultdict

import numpy as np

from ..mining import MinedJob
from . import lexicon
from .progress import node_progress
from .weights import DEFAULT_WEIGHTS, Weights


def impute_times(mined: MinedJob, weights: Weights = DEFAULT_WEIGHTS) -> dict[str, np.ndarray]:
    """New ``ts`` arrays for the nodes whose lines are mostly unstamped, dated from the
    iteration they belong to (node -> times; nodes that need nothing are absent).

    A map iteration -> time, from whatever stamped iteration lines exist (or, if none, a
    nominal one second per iteration after the last stamp) dates the rest."""
    changed: dict[str, np.ndarray] = {}
    needy = [n for n, log in mined.nodes.items() if len(log) and log.stamped.mean() < weights.stamped_share]
    if not needy:
        return changed
    # Anchors: every stamped line that follows an iteration line dates that iteration
    # (stamped kernel or runtime lines interleaved with unstamped progress lines count).
    # A console is one stream written in time order, so its ranks are read together: a stamped
    # launcher line after rank 0's last unstamped step dates that step, and a peer's timeout
    # stamped ten minutes later does not (torchrun "W0101 18:03:15 ... Sending process 49170
    # closing signal SIGTERM" after "[rank0]:  0%|  | 22/250000 [0:01:33<...]").
    # A stamped watchdog timeout ends a wait its collective began N ms earlier: after a hang it
    # dates the last step by that start, not by the end of the wait ("[rank5]:[E0214 19:12:50
    # ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog caught collective operation timeout: ...
    # ran for 1200xxx milliseconds" under an unstamped step twenty minutes older).
    its: list[np.ndarray] = []
    times: list[np.ndarray] = []
    for stream in file_streams(mined):
        ctx = np.maximum.accumulate(np.where(stream.iteration >= 0, stream.iteration, -1).astype(float))
        mask = (ctx >= 0) & stream.stamped & ~np.isnan(stream.ts)
        if mask.any():
            its.append(ctx[mask])
            ages = _collective_ages(mined, stream)
            times.append((stream.ts - ages)[mask] if ages is not None else stream.ts[mask])
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
        firsts = [
            float(np.nanmin(log.ts[log.stamped]))
            for log in mined.nodes.values()
            if log.stamped.any() and not np.isnan(log.ts[log.stamped]).all()
        ]
        starts = [float(np.min(log.iteration[log.iteration >= 0])) for log in mined.nodes.values() if (log.iteration >= 0).any()]
        base_ts = min(firsts) if firsts else 0.0
        base_it = min(starts) if starts else 0.0
    for name in needy:
        log = mined.nodes[name]
        ctx = np.where(log.iteration >= 0, log.iteration, -1).astype(float)
        ctx = np.maximum.accumulate(ctx)  # the iteration each line belongs to
        target = ~log.stamped & (ctx >= 0)
        if not target.any() or len(np.unique(log.iteration[log.iteration >= 0])) < 2:
            continue  # a counter that never moves (a progress bar stuck at "0/1000") dates nothing
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
        changed[name] = new_ts
    return changed


@dataclasses.dataclass
class FileStream:
    """The lines of one file in file order, whichever nodes (console ranks) they belong to."""

    nodes: np.ndarray  # int index into ``names`` per line
    names: list[str]
    index: np.ndarray  # position of the line in its node's arrays
    iteration: np.ndarray
    stamped: np.ndarray
    ts: np.ndarray


def file_streams(mined: MinedJob, unstamped_only: bool = False) -> list[FileStream]:
    """Each source file's lines merged back into file order (one stream per file); with
    ``unstamped_only``, only the files that hold an unstamped line (the others need no merge)."""
    groups: dict[object, list[str]] = defaultdict(list)
    for name, log in mined.nodes.items():
        groups[log.source].append(name)
    streams = []
    for names in groups.values():
        logs = [mined.nodes[n] for n in names]
        if unstamped_only and all(log.stamped.all() for log in logs):
            continue
        lineno = np.concatenate([log.lineno for log in logs])
        order = np.argsort(lineno, kind="stable")
        streams.append(FileStream(
            nodes=np.concatenate([np.full(len(log), i) for i, log in enumerate(logs)])[order],
            names=names,
            index=np.concatenate([np.arange(len(log)) for log in logs])[order],
            iteration=np.concatenate([log.iteration for log in logs])[order],
            stamped=np.concatenate([log.stamped for log in logs])[order],
            ts=np.concatenate([log.ts for log in logs])[order],
        ))
    return streams


def file_order_times(mined: MinedJob) -> dict[str, np.ndarray]:
    """New ``ts`` arrays where an unstamped line's estimate left the span its file allows:
    a file is written in time order, so an unstamped line happened after the lines above it
    and before the next stamped line below it, whichever console rank printed them. (A rank's
    "torch.OutOfMemoryError" between rank 0's unstamped steps and torchrun's stamped SIGTERM
    happened before that SIGTERM, not at the file's start-up stamp.)"""
    changed: dict[str, np.ndarray] = {}
    for stream in file_streams(mined, unstamped_only=True):
        ts = stream.ts
        # the next stamp below each line: a backward fill of the stamped times
        nxt = np.full(len(ts), np.inf)
        idx = np.flatnonzero(stream.stamped & ~np.isnan(ts))
        if len(idx):
            pos = np.searchsorted(idx, np.arange(len(ts)))
            has = pos < len(idx)
            nxt[has] = ts[idx[pos[has]]]
        new = ts.copy()
        found = _collective_ages(mined, stream)
        ages = np.where(stream.stamped, 0.0, found) if found is not None else None
        # Each run of unstamped lines follows one stamped line (or the file's start); the
        # stamps themselves are left alone, even out of order (a launcher's summary printed
        # above the worker log it collected, PaddlePaddle FAQ).
        unstamped = np.concatenate([[False], ~stream.stamped, [False]]).astype(np.int8)
        edges = np.flatnonzero(np.diff(unstamped))
        for start, end in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
            run = np.minimum(ts[start:end], nxt[start:end])  # NaN (no time at all) stays NaN
            before = ts[start - 1] if start > 0 and not math.isnan(ts[start - 1]) else -np.inf
            latest = np.fmax.accumulate(np.where(np.isnan(run), -np.inf, run))
            above = np.concatenate([[before], np.fmax(latest[:-1], before)])
            new[start:end] = np.where(np.isnan(run), run, np.minimum(np.fmax(run, above), nxt[start:end]))
            aged = ages[start:end] if ages is not None else None
            if aged is not None and aged.any():
                new[start:end] = _after_collective_ran(new[start:end], aged, before, nxt[start:end])
        moved = np.flatnonzero((new != ts) & ~(np.isnan(new) & np.isnan(ts)))
        for k in moved.tolist():
            name = stream.names[int(stream.nodes[k])]
            arr = changed.get(name)
            if arr is None:
                arr = changed[name] = mined.nodes[name].ts.copy()
            arr[int(stream.index[k])] = new[k]
    return changed


def _collective_templates(mined: MinedJob) -> dict[str, dict[int, float]]:
    """Per node, its watchdog-timeout templates and how long their collective ran. Read from
    the samples once per mined job (``MinedJob.derived``, shared by copies with new times)."""
    cached = mined.derived.get("collective_templates")
    if isinstance(cached, dict):
        return cached
    found = {
        name: {tid: ran for tid, texts in log.samples.items()
               if texts and (ran := lexicon.collective_ran_seconds(texts[0])) is not None}
        for name, log in mined.nodes.items()
    }
    mined.derived["collective_templates"] = found
    return found


def _collective_ages(mined: MinedJob, stream: FileStream) -> np.ndarray | None:
    """Per line of the stream, how long the collective its watchdog timeout gave up on had run
    (0 for every other line); None when no line of the stream says (most files: no copy made)."""
    ages: np.ndarray | None = None
    by_node = _collective_templates(mined)
    for i, name in enumerate(stream.names):
        log = mined.nodes[name]
        seconds = by_node[name]
        if not seconds:
            continue
        if ages is None:
            ages = np.zeros(len(stream.ts))
        on_node = np.flatnonzero(stream.nodes == i)
        for tid, ran in seconds.items():
            ages[on_node[log.template[stream.index[on_node]] == tid]] = ran
    return ages


def _after_collective_ran(run: np.ndarray, ages: np.ndarray, before: float, nxt: np.ndarray) -> np.ndarray:
    """A run of unstamped lines where a watchdog timeout says its collective ran N seconds: it
    was printed at least N seconds after the line above it (the rank was still logging then),
    and every line below it later still, never past the next stamp. An unstamped "Watchdog caught
    collective operation timeout ... ran for 1800219 milliseconds" under a rank's last step is
    half an hour after that step, not at it, and after the Xid 79 another node logged meanwhile
    (a blind author's Megatron job; the line's format: modelscope/FunASR#2006)."""
    out = run.copy()
    latest = before
    began = before  # the estimate of the lines above, before any waits were added
    for k in range(len(out)):
        if math.isnan(out[k]):
            continue
        t = max(out[k], latest)
        began = max(began, run[k])
        if ages[k] > 0 and began > -np.inf:
            # Lines under it that tell the same timeout again ("NCCL watchdog thread terminated
            # with exception: ... ran for ...") wait from the same start: one collective, one wait.
            t = max(t, began + ages[k])
        out[k] = min(t, nxt[k])
        latest = max(latest, out[k])
    return out


def with_times(mined: MinedJob, times: dict[str, np.ndarray]) -> MinedJob:
    """A job like ``mined`` whose nodes in ``times`` carry those times (``mined`` itself
    when there is nothing to change). Arrays other than ``ts`` are shared, not copied."""
    if not times:
        return mined
    nodes = {name: dataclasses.replace(log, ts=times[name]) if name in times else log for name, log in mined.nodes.items()}
    return dataclasses.replace(mined, nodes=nodes)


def estimate_skew(mined: MinedJob, progress_tids: set[int], weights: Weights = DEFAULT_WEIGHTS) -> dict[str, float]:
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
    groups = [times for times in by_iter.values() if len(times) >= max(2, n_nodes // 2)][-weights.skew_max_iterations :]
    if len(groups) < weights.skew_min_groups:
        groups = synchronous_groups(mined, weights)
    for times in groups:
        mid = float(np.median(list(times.values())))
        for name, ts in times.items():
            samples[name].append(ts - mid)
    return {name: float(np.median(vals)) for name, vals in samples.items() if vals}


def synchronous_groups(mined: MinedJob, weights: Weights = DEFAULT_WEIGHTS) -> list[dict[str, float]]:
    """k-th occurrences of messages that most nodes print equally often (and not too often),
    each with its own stamp."""
    w = weights
    n_nodes = len(mined.nodes)
    positions: dict[int, dict[str, np.ndarray]] = defaultdict(dict)
    for name, log in mined.nodes.items():
        tids, counts = np.unique(log.template, return_counts=True)
        for tid in tids[counts <= w.sync_max_per_node].tolist():
            positions[tid][name] = np.flatnonzero(log.template == tid)
    groups: list[dict[str, float]] = []
    for tid, per_node in positions.items():
        if len(per_node) < max(2, int(w.sync_node_share * n_nodes)):
            continue
        # The failure is not synchronous: the faulty node tears down first and its peers half an
        # hour later, when their collective times out (torchrun's "Sending process 60808 closing
        # signal SIGTERM" on every node). Only the job's normal running pairs clocks.
        template = mined.miner.template(tid)
        if lexicon.role_of(template) != "candidate" or lexicon.has_error_words(template):
            continue
        sizes = Counter(len(p) for p in per_node.values())
        size, agreeing = sizes.most_common(1)[0]
        if agreeing < max(2, int(w.sync_node_share * n_nodes)):
            continue
        for k in range(size):
            times = {}
            for name, pos in per_node.items():
                # Only a line's own stamp says when it was printed: an unstamped NCCL INFO line
                # borrows the next stamp, which can be a watchdog's half an hour later.
                if len(pos) == size and mined.nodes[name].stamped[pos[k]]:
                    ts = float(mined.nodes[name].ts[pos[k]])
                    if not math.isnan(ts):
                        times[name] = ts
            if len(times) >= 2:
                groups.append(times)
    return groups[-w.sync_max_groups :]


CLOCK_STEP_SECONDS = 60.0  # a node's stamps going back this far is a clock step, not write jitter
FAR_DATE_SECONDS = 60 * 86400.0  # no job's log spans this far from its own middle


def far_dates(mined: MinedJob, far: float = FAR_DATE_SECONDS) -> tuple[dict[str, np.ndarray], list[str]]:
    """New ``ts`` arrays for nodes where some lines begin with a date that is not when they
    were written: a weather model's "Start date: 2045-01-01_00:00:00"
    (rcc-uchicago/pedramh-profiling e3sm_train_3180828.o) is the simulated period, printed in
    a job run in 2026. Stamps this far from the job's median are message text: those lines,
    and the unstamped lines that inherited them, take the last real time before them. (The
    job's median, not the file's: that file holds one real stamp and six such dates.)"""
    changed: dict[str, np.ndarray] = {}
    warnings: list[str] = []
    stamped_of = {name: log.stamped & ~np.isnan(log.ts) for name, log in mined.nodes.items()}
    stamps = [log.ts[stamped_of[name]] for name, log in mined.nodes.items()]
    if sum(len(t) for t in stamps) < 3:
        return changed, warnings
    middle = float(np.median(np.concatenate(stamps)))
    for name, log in mined.nodes.items():
        stamped = stamped_of[name]
        good = stamped & (np.abs(log.ts - middle) <= far)
        bad = stamped & ~good
        if not bad.any():
            continue
        last_good = np.maximum.accumulate(np.where(good, np.arange(len(log.ts)), -1))
        new_ts = log.ts.copy()
        fill = ~good & (last_good >= 0)
        new_ts[fill] = log.ts[last_good[fill]]
        # Before the first real time, nothing dates the line.
        new_ts[~good & (last_good < 0)] = np.nan
        changed[name] = new_ts
        first = int(log.lineno[np.flatnonzero(bad)[0]])
        warnings.append(f"{name}: {int(bad.sum())} line(s) begin with a date far from the rest of the log (first at line "
                        f"{first} of {log.source.name}); read as message text, not as when they were written")
    return changed, warnings


def unstep_times(mined: MinedJob, threshold: float = CLOCK_STEP_SECONDS) -> tuple[dict[str, np.ndarray], list[str]]:
    """New ``ts`` arrays for nodes whose clock stepped back (an NTP correction, a VM
    restored), plus one warning per step naming the node and line.

    A step back that time never jumps forward from again is a clock step: the lines after
    it are moved forward by the step, so the node's order holds and the rest of its log
    keeps one offset (which ``estimate_skew`` then measures like any constant skew). A
    step back that a forward jump soon undoes is a block of late-flushed lines: its times
    are kept, with a warning."""
    changed: dict[str, np.ndarray] = {}
    warnings: list[str] = []
    for name, log in mined.nodes.items():
        idx = np.flatnonzero(log.stamped & ~np.isnan(log.ts))
        if len(idx) < 2:
            continue
        ts = log.ts[idx]
        if not (np.diff(ts) < -threshold).any():  # the common case: no loop over the lines
            continue
        new_ts = log.ts.copy()
        offset, high = 0.0, float(ts[0])
        k = 1
        while k < len(idx):
            t = float(ts[k]) + offset
            if t < high - threshold:
                step = high - t
                # A forward jump back to the old timeline before time catches up gradually?
                rest = ts[k:] + offset
                jumps = np.flatnonzero(np.diff(rest) >= step / 2)
                caught = np.flatnonzero(rest >= high - threshold)
                where = f"{name}, line {int(log.lineno[idx[k]])} of {log.source.name}"
                if len(jumps) and (not len(caught) or jumps[0] + 1 <= caught[0]):
                    warnings.append(f"{where}: time goes back {step:.0f} s for {jumps[0] + 1} stamped line(s) (output flushed late?); kept in file order")
                    k += int(jumps[0]) + 1
                    continue
                offset += step
                t += step
                warnings.append(f"{where}: the clock steps back {step:.0f} s; the later lines are read as {step:.0f} s later so the node's order holds")
            high = max(high, t)
            new_ts[idx[k]] = t
            k += 1
        if offset:
            # Unstamped lines inherited the last stamp before them: move them with it.
            stamped_pos = np.maximum.accumulate(np.where(log.stamped & ~np.isnan(log.ts), np.arange(len(log.ts)), -1))
            inherit = ~log.stamped & (stamped_pos >= 0)
            new_ts[inherit] = new_ts[stamped_pos[inherit]]
            changed[name] = new_ts
    return changed, warnings
