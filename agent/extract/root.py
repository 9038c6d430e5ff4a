"""The failure episode and its root event (the root's companions: ``companions``).

The paper reports every event that survives its filters; on real failures most of those
are the crash cascade (every rank's timeout and teardown is "new"). We separate the root
from its cascade by the order of things: the failure episode starts when progress stops
(or slows, or, before training, with a long silence or the last burst of novel events);
inside it, the earliest strong novel event that is not a consequence (a wait, a timeout,
a teardown, a stack frame) is the root, and ``companions`` picks the messages of the same
origin next to it. When the earliest strong event is only start-up noise or an error the
program survived, ``passover`` says where the root really is.

Pure: ``episode`` returns a new Timeline and ``select`` new candidates for the root and
companions; the inputs are never changed. Where a root is chosen: ``select``; how strong
an event must be to qualify: ``Weights.root_min_score``, ``root_best_share`` and ``root_share``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..mining import MinedJob
from . import companions, lexicon
from .crossjob import Verdict
from .events import ERROR_LEVEL, EventCandidate, first_sample, spread
from .passover import (
    earliest_in_file,
    earliest_on_node,
    first_line,
    in_ignored_report,
    innermost_stack_entry,
    is_fatal_line,
    latest_time,
    original_exception,
    past_startup_noise,
    past_survived_error,
    past_wordless_error,
    time_key,
    underlying_error,
)
from .progress import Timeline, heartbeat_templates, last_ordinary_ts, quiet_gap
from .table import EventStats, EventTable
from .weights import DEFAULT_WEIGHTS, Weights

MAX_EVENTS = companions.MAX_EVENTS
MAX_CASCADES = 5  # waits and teardown kept for context
NO_LEVEL = 0  # mining.LEVEL_CODES[None]


def episode(
    mined: MinedJob,
    table: EventTable,
    timeline: Timeline,
    progress_tids: set[int],
    kept: list[tuple[EventStats, Verdict]],
    weights: Weights = DEFAULT_WEIGHTS,
) -> Timeline:
    """The timeline with ``onset_ts`` set to when the failure began: the progress stop or
    slowdown; before training, the start of a long silence (then also ``hang``), else the
    last burst of novel events."""
    w = weights
    if timeline.has_training:
        if timeline.slowdown and timeline.slowdown_iteration >= 0:
            for prog in timeline.per_node.values():
                hit = np.flatnonzero(prog.iteration >= timeline.slowdown_iteration)
                if len(hit) and not math.isnan(prog.ts[hit[0]]):
                    return dataclasses.replace(timeline, onset_ts=float(prog.ts[hit[0]]))
        return dataclasses.replace(timeline, onset_ts=timeline.last_progress_ts)
    beats = heartbeat_templates(table, progress_tids, w)
    gap_start, gap = quiet_gap(mined, table, beats)
    busy_until = last_ordinary_ts(mined, table, beats)
    resumed = not math.isnan(busy_until) and busy_until > gap_start + gap  # routine work after the silence
    if gap >= w.episode_hang_seconds and not resumed and not _crash_after(kept, gap_start + gap, w):
        return dataclasses.replace(timeline, onset_ts=gap_start, hang=True, hang_seconds=gap)
    times = sorted(
        (s.first_ts for s, v in kept if v.weight >= w.episode_novel_weight and not math.isnan(s.first_ts)), reverse=True
    )
    if not times:
        return dataclasses.replace(timeline, onset_ts=timeline.end_ts)
    start = times[0]
    for t in times[1:]:
        if start - t > w.episode_hang_seconds:
            break
        start = t
    return dataclasses.replace(timeline, onset_ts=min(start, _collective_began(mined, kept, start)))


# The watchdog's "ran for N milliseconds" (``lexicon.collective_ran_seconds``) dates when the
# collective began. The fault that stalled it came before that, so the episode reaches back that
# far: a rank's DataLoader bus error ten minutes before its peers' timeouts is the failure, not
# old news.
def _collective_began(mined: MinedJob, kept: list[tuple[EventStats, Verdict]], start: float) -> float:
    """The earliest moment a collective that timed out in the episode began (``start`` if none)."""
    began = start
    for stats, _ in kept:
        if math.isnan(stats.first_ts) or stats.first_ts < start:
            continue
        ran = lexicon.collective_ran_seconds(first_sample(mined, stats))
        if ran is not None:
            began = min(began, stats.first_ts - ran)
    return began


def _crash_after(kept: list[tuple[EventStats, Verdict]], end: float, w: Weights) -> bool:
    """A silence ended by an exception was quiet work that crashed, not a hang: a hang is ended
    by a timeout or a stop. Ray Tune trials print nothing for 40 minutes, then "RuntimeError:
    Expected 4-dimensional input for 4-dimensional weight" (ninamiolane/vaetree run.err).
    A timeout among the first messages after the silence ended it, whatever exceptions wrap it:
    the peers of a rank that ran out of memory wait 20 minutes, then print "EI0002 ... The wait
    execution of the Notify register times out" and "RuntimeError: Sync stream failed:Ascend_0"
    together (a blind author's MindSpore job; the EI0002 format: hiyouga/LlamaFactory#3839)."""
    fresh = [(s, v) for s, v in kept if s.first_ts >= end and v.weight >= w.episode_novel_weight]
    if any(s.first_ts - end <= w.lead_min_seconds and lexicon.role_of(s.template) == "wait" for s, _ in fresh):
        return False
    return any(lexicon.is_exception_line(s.template) and lexicon.role_of(s.template) == "candidate" for s, _ in fresh)


def window_start(timeline: Timeline, weights: Weights = DEFAULT_WEIGHTS) -> float:
    """Events before this are outside the episode: a root may precede the onset by a few steps."""
    step = timeline.step_seconds if not math.isnan(timeline.step_seconds) else weights.default_step_seconds
    lead = max(weights.lead_min_seconds, weights.lead_steps * step)
    return timeline.onset_ts - lead if not math.isnan(timeline.onset_ts) else -math.inf


@dataclass
class Selection:
    """The outcome of root selection, as new candidates (the inputs are left as they were)."""

    events: list[EventCandidate]  # the root first, then its companions
    scored: list[EventCandidate]  # every scored event, the root and companions replaced by their new roles
    cascades: list[EventCandidate]  # waits and teardown of the episode, in order of appearance


def _printed_before(a: EventCandidate, b: EventCandidate, mined: MinedJob, table: EventTable) -> bool:
    """``a`` appeared before ``b``: by line in one file (a console's streams share its line
    numbers), else by corrected time."""
    (source_a, line_a), (source_b, line_b) = first_line(a, mined, table), first_line(b, mined, table)
    if source_a == source_b:
        return line_a < line_b
    return time_key(a, table) < time_key(b, table)


def _cause_of_exit(
    exit_event: EventCandidate, roots_pool: list[EventCandidate], mined: MinedJob, table: EventTable, w: Weights
) -> EventCandidate:
    """What the task said last before it exited: the closest error printed before the exit
    line in the same file (within a traceback's length), else the exit itself."""
    source, exit_line = first_line(exit_event, mined, table)
    best, best_line = exit_event, -1
    for e in roots_pool:
        e_source, line = first_line(e, mined, table)
        if (e_source == source and 0 < exit_line - line <= w.surfacing_lines and line > best_line
                and e.role == "candidate" and lexicon.has_error_words(e.template)):
            best, best_line = e, line
    return best


def _root_of(
    roots_pool: list[EventCandidate],
    cascades: list[EventCandidate],
    mined: MinedJob,
    table: EventTable,
    n_nodes: int,
    w: Weights,
    exits: tuple[EventCandidate, ...] | list[EventCandidate] = (),
) -> tuple[EventCandidate, list[str]]:
    """The root among the pool (sorted by time) and the reasons to put first."""

    def key(e: EventCandidate) -> float:
        return time_key(e, table)[0]

    strongest = max(e.score for e in roots_pool)
    threshold = max(w.root_min_score, w.root_best_share * strongest) if strongest >= w.root_min_score else w.root_share * strongest
    # A known fault's own line is a cause in its own right however plainly it is logged: an
    # unlevelled kernel line ("[366422.829294] EXT4-fs (dm-3): Remounting filesystem read-only",
    # knowledge/platform/ext4-fs-error-readonly.md) is not noise to pass over for the
    # "Read-only file system" OSError it causes.
    eligible = [e for e in roots_pool if e.score >= threshold or (e.known and e.score >= w.root_min_score)]
    first_wait = next((e for e in eligible if e.role == "wait"), None)
    first_cand = next((e for e in eligible if e.role != "wait"), None)
    # A peer's timeout often reaches the log a moment before the faulty node's own
    # error (or the clocks disagree by that much): prefer the error when it is close.
    # A peer's wait must be earlier however late its undated line may have been printed: a
    # peer's unstamped HCCL watchdog, dated "ran for 1800 s" after its file's start-up stamp,
    # came after the faulty node's "OSError: [Errno 116] Stale file handle" (independent corpus
    # F, f13). On a node that printed both, its file's order already says which came first.
    root = first_cand if first_cand is not None else eligible[0]
    if first_wait is not None and first_cand is not None:
        wait_stats = table.events[first_wait.tid]
        peers_wait = table.events[first_cand.tid].first_node() not in wait_stats.per_node
        wait_latest = latest_time(first_wait, table) if peers_wait else key(first_wait)
        if wait_latest < key(first_cand) - w.wait_lead_seconds:
            root = first_wait
    # A line that carries no time at all (a rank's file of a bare traceback) cannot be later than
    # anything: a fatal error stronger than the dated root is no less likely the first (a blind
    # author's job whose rank died importing torch_npu while its peers' HCCL calls timed out).
    undated = [e for e in eligible if math.isnan(e.first_ts) and e.score > root.score and is_fatal_line(e, mined, table)]
    if undated and not math.isnan(root.first_ts):
        root = max(undated, key=lambda e: e.score)
    root = earliest_on_node(root, eligible, table, w)
    root = earliest_in_file(root, eligible, mined, table, w)
    root = past_startup_noise(root, eligible, mined, table, w)
    # A later failure only has to be strong enough to be a root at all, not near the best.
    survived, root = root, past_survived_error(root, [e for e in roots_pool if e.score >= w.root_min_score], mined, table, w)
    if root is not survived:  # the error it moved to may be start-up noise too
        root = past_startup_noise(root, eligible, mined, table, w)
    root = underlying_error(root, [e for e in roots_pool if e.score >= w.underlying_min_score], mined, table, w)
    root = past_wordless_error(root, eligible, mined, table, w)
    root = innermost_stack_entry(root, eligible, mined, table)
    root = original_exception(root, [e for e in roots_pool if e.score >= w.root_min_score], mined, table, w)
    # A timeout says a peer stopped answering, not why; the machine's own report of a fault the
    # knowledge names (a GPU's Xid, the kernel's OOM kill) says why however late it was printed: a
    # Slurm epilog's dump of the kernel log after the peers' watchdogs ("gpu-st-p4d-24xlarge-56 kernel:
    # NVRM: Xid (PCI:0000:70:00): 79, ... GPU has fallen off the bus.", independent corpus I, c02).
    if root.role == "wait":
        reports = [e for e in roots_pool if e.known and lexicon.is_machine_fault_report(e.template) and e.score >= w.root_min_score]
        if reports:
            root = min(reports, key=key)
    # The scheduler stopped the job and said why, before (or as) anything else failed.
    stops = [e for e in (*cascades, *roots_pool) if lexicon.names_stop_reason(e.template)]
    if stops:
        stop = min(stops, key=lambda e: time_key(e, table))
        root_failed_first = is_fatal_line(root, mined, table) and time_key(root, table) < time_key(stop, table)
        # A task that had already exited with an error left its peers waiting until the
        # limit: the limit ended the hang, the exit began it.
        exited = [e for e in exits if _printed_before(e, stop, mined, table)]
        if exited and not root_failed_first:
            return _cause_of_exit(exited[0], roots_pool, mined, table, w), [
                "earliest novel event of the failure episode", "a task exited with an error before the scheduler stopped the job"]
        if not root_failed_first:
            return stop, ["earliest novel event of the failure episode", "the scheduler stopped the job and said why"]
    # A signal or eviction on one node well before anything else failed is the cause
    # (the scheduler killed it), not teardown after the fact.
    for e in cascades:
        stopped_first = _stopped_before(e, root, table, w)
        if (
            e.role == "teardown"
            and lexicon.is_external_stop(e.template)
            and 1 <= len(stopped_first) <= max(1, n_nodes // w.external_stop_node_divisor)
            and e.score >= w.external_stop_min_score
        ):
            return e, ["earliest novel event of the failure episode", "a node was stopped before anything else failed"]
    return root, ["earliest novel event of the failure episode"]


def _stopped_before(stop: EventCandidate, root: EventCandidate, table: EventTable, w: Weights) -> list[str]:
    """The nodes a stop reached before the root was printed, not those the job's teardown
    stopped afterwards. An undated root may have been printed as late as its next stamp when it
    reports a peer's end (a wait: a preempted pod's "Received Signals.SIGTERM death signal" came
    between its peer's last step and the peer's unstamped "DistBackendError: NCCL error ...
    remote process exited", independent corpus F, f14) or when the stopped nodes did not print
    it (three nodes' "RuntimeError: HCCL function error: HcclAllReduce(...), error code is 7"
    after the fourth node's agent received SIGTERM, f19)."""
    # The stop itself must be earlier however late it may have been printed: an unstamped
    # "Received Signals.SIGTERM death signal" borrows an older stamp.
    stopped = {n: max(s.first_ts, s.first_ts_latest) for n, s in table.events[stop.tid].per_node.items()}
    latest = latest_time(root, table)
    early = {n for n, t in stopped.items() if t < latest - w.teardown_lead_seconds}
    root_time = latest if root.role == "wait" or not early & set(root.nodes) else time_key(root, table)[0]
    return sorted(n for n in early if stopped[n] < root_time - w.teardown_lead_seconds)


def select(
    scored: list[EventCandidate],
    mined: MinedJob,
    table: EventTable,
    weights: Weights = DEFAULT_WEIGHTS,
) -> Selection:
    """The root (the earliest strong non-consequence of the episode) and its companions."""
    w = weights
    n_nodes = len(table.node_names)

    def key(e: EventCandidate) -> tuple[float, int]:
        return time_key(e, table)

    in_window = [
        e
        for e in scored
        if (
            e.score >= w.window_min_score
            or (e.role == "teardown" and e.score >= w.external_stop_min_score and lexicon.is_external_stop(e.template))
        )
        # A bare exception line ends a traceback whose source line above says the rest
        # ("    assert num_samples > 0" / "AssertionError", aws-samples/awsome-distributed-training).
        and (lexicon.informative_words(e.template) >= w.root_min_words or lexicon.is_exception_line(e.template) or e.known)
    ]
    roots_pool = sorted((e for e in in_window if e.role in ("candidate", "wait") and not in_ignored_report(e, mined, table)),
                        key=key)
    cascades = sorted((e for e in in_window if e.role in ("wait", "teardown")), key=key)
    if not roots_pool:
        # Only teardown is left (a silent node, a dead host): it is the evidence.
        roots_pool = [e for e in cascades if e.role == "teardown"]
    if not roots_pool:
        last = _last_error_line(scored, mined, table)
        if last is None:
            return Selection([], list(scored), cascades)
        # Nothing stood out, but a line naming an error still points somewhere: a traceback pasted
        # without its exception ends in "raise CalledProcessError(retcode, cmd)" (verl FAQ), a
        # paste that lost its newlines is one frame line (awsome-distributed-training#192).
        weak = dataclasses.replace(last, role="root", reasons=["nothing stood out: the last line naming an error", *last.reasons])
        return Selection([weak], [weak if e.tid == last.tid else e for e in scored], cascades)
    exits = [e for e in scored if e.role == "teardown" and lexicon.is_task_error_exit(e.template)]
    root, root_reasons = _root_of(roots_pool, cascades, mined, table, n_nodes, w, exits)
    reported = companions.exception_under_header(root, scored, mined, table)
    header = root if reported is not None and root.known else None  # a recognised header names the fault too
    if reported is not None:
        root, root_reasons = reported, ["the exception the logged message above its traceback reports", *root_reasons]
    chosen = {root.tid: dataclasses.replace(root, role="root", reasons=[*root_reasons, *root.reasons])}
    for extra, why in ((header, "the logged message that heads the root's traceback"),
                       (companions.failing_assert(root, scored, mined, table), "the assert statement the bare AssertionError reports"),
                       (companions.fatal_exception(root, scored, mined, table), "the exception the error raised"),
                       (companions.thrown_type(root, scored, mined, table), "the type of the exception thrown"),
                       (companions.message_continued(root, scored, mined, table), "the rest of the root's message"),
                       (companions.relay_of(root, scored, mined, table, w), "the same exception, relayed to its caller"),
                       (companions.command_complaint(root, scored, mined, table), "what the failed command said before Python reported it")):
        if extra is not None and extra.tid not in chosen:
            chosen[extra.tid] = dataclasses.replace(extra, role="companion", reasons=[why, *extra.reasons])
    for e, reason in companions.companions_of(root, roots_pool, mined, table, n_nodes, w):
        if e.tid not in chosen and len(chosen) < MAX_EVENTS:
            chosen[e.tid] = dataclasses.replace(e, role="companion", reasons=[reason, *e.reasons])
    events = [chosen[root.tid], *(c for tid, c in chosen.items() if tid != root.tid)]
    return Selection(
        events=events,
        scored=[chosen.get(e.tid, e) for e in scored],
        cascades=[chosen.get(e.tid, e) for e in cascades],
    )


def _last_error_line(scored: list[EventCandidate], mined: MinedJob, table: EventTable) -> EventCandidate | None:
    """The event printed last, in its file, among those whose line names an error or exception."""
    best, best_line = None, -1
    for e in scored:
        stats = table.events[e.tid]
        if not lexicon.has_error_words(first_sample(mined, stats)) or lexicon.is_heading(e.template):
            continue
        node = stats.first_node()
        line = int(mined.nodes[node].lineno[stats.per_node[node].last_pos])
        if line > best_line:
            best, best_line = e, line
    return best


def scope_of(root: EventStats | None, n_nodes: int, weights: Weights = DEFAULT_WEIGHTS) -> str:
    """node_local | global | unknown: how far the root event spread. A stop from outside counts
    the nodes it reached first: a preempted pod's agent receives SIGTERM half a minute before
    the job's teardown stops its peers' agents the same way (independent corpus F, f14)."""
    if root is None:
        return "unknown"
    if lexicon.is_external_stop(root.template) and not math.isnan(root.first_ts):
        first = min(s.first_ts for s in root.per_node.values() if not math.isnan(s.first_ts))
        reached = {n: s for n, s in root.per_node.items() if s.first_ts <= first + weights.stop_together_seconds}
        root = dataclasses.replace(root, per_node=reached)
    return "global" if spread(root, n_nodes) >= weights.global_spread and n_nodes >= 2 else "node_local"


def is_fatal(mined: MinedJob, root: EventStats | None) -> bool:
    """The root is an error or a Python exception (a crash, not a hang)."""
    return root is not None and (root.max_level >= ERROR_LEVEL or lexicon.is_exception_line(first_sample(mined, root)))
