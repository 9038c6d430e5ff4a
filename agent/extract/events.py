"""Scoring one kept event: how strongly it indicates the failure, and why.

An event that survived the cross-job filter starts at its novelty (``Verdict.weight``)
and is multiplied by: being inside the failure episode, its log level, words of failure,
its lexical role (a wait, a teardown, context), a confirmed library pattern, and whether
it is only a workflow step. Each factor that applies leaves a reason. The factors are
``Weights`` fields; the order of the multiplications is kept so scores are reproducible.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..mining import MinedJob
from ..records import NodeLog
from . import lexicon
from .crossjob import NormalProfile, Verdict, judge
from .routine import routine_mask, routine_templates
from .stages import WORKFLOW_STAGES, stage_of_template
from .table import EventStats, EventTable
from .weights import DEFAULT_WEIGHTS, Weights

WARNING_LEVEL = 3  # mining.LEVEL_CODES["WARNING"]
ERROR_LEVEL = 4  # mining.LEVEL_CODES["ERROR"]
INFO_LEVEL = 2  # mining.LEVEL_CODES["INFO"]


class KnownMatch(Protocol):
    """A fault-library match, as far as scoring reads it (``library.LibraryMatch``)."""

    id: str
    confidence: float
    wrapper: bool
    benign: bool


class KnownFaults(Protocol):
    """The fault library, as far as scoring uses it: the caller's ``library.JobMatches``, so
    the lines matched here are not matched again for the evidence."""

    def match(self, lines: Iterable[tuple[str, str] | str]) -> Sequence[KnownMatch]: ...


@dataclass
class EventCandidate:
    tid: int
    template: str
    score: float
    reasons: list[str]
    nodes: list[str]
    first_ts: float
    role: str  # root | companion | candidate | wait | teardown | context
    role_kind: str = ""  # the lexical role before selection (candidate | wait | teardown | context)
    known: str = ""  # the known fault pattern (doc id) its line matches, if any


def spread(stats: EventStats, n_nodes: int) -> float:
    """Share of the job's nodes that printed the event."""
    return len(stats.per_node) / max(n_nodes, 1)


def first_sample(mined: MinedJob, stats: EventStats) -> str:
    """A raw line of the event, from the node that printed it first."""
    node = stats.first_node()
    samples = mined.nodes[node].samples.get(stats.tid) or [""]
    return samples[0]


# A line cut by a terminal or a paste at a fixed width continues on the next physical line
# ("... subsequent GPU opera" / "tions might run on corrupted/incomplete data.",
# karpathy/nanoGPT#55): the tail is part of the message above, never an event of its own.
_CUT_MID_WORD = re.compile(r"[A-Za-z]$")
# Lowercase, and not a program's own prefix ("srun: error: ...", "kernel[12]: ...") or a field
# a tool prints under the command that ran it: "hccn_tool -i 1 -link -g" answers "link status: DOWN"
# (Ascend/mind-cluster's GetNPULinkStatus; knowledge/ascend/roce-link-down-flap.md), printed under
# a health check's echo of that command in independent corpus I (a04). Both start a message of their own.
_STARTS_MID_WORD = re.compile(r"^[a-z](?![\w.-]*[:\[])(?![a-z]+(?: [a-z]+){0,3}: \S)")
WRAP_MIN_WIDTH = 60  # shorter lines end where their writer ended them, not at a wrap


def first_position(mined: MinedJob, stats: EventStats) -> tuple[NodeLog, int]:
    """The log of the node that printed the event first, and the event's first position in it."""
    node = stats.first_node()
    return mined.nodes[node], stats.per_node[node].first_pos


def wrapped_tail(mined: MinedJob, stats: EventStats) -> bool:
    """Whether the event's first line is the wrapped rest of the line above it."""
    log, pos = first_position(mined, stats)
    if pos == 0 or int(log.lineno[pos]) != int(log.lineno[pos - 1]) + 1:
        return False
    sample = first_sample(mined, stats)
    above = log.samples.get(int(log.template[pos - 1])) or [""]
    return bool(_STARTS_MID_WORD.match(sample) and _CUT_MID_WORD.search(above[0]) and len(above[0]) >= WRAP_MIN_WIDTH)


_FRAME_LINE = re.compile(r'^\s*File "[^"]+", line \d+')


def under_frame(mined: MinedJob, stats: EventStats) -> bool:
    """Whether the event's first line sits right below a traceback frame: the frame's source line."""
    log, pos = first_position(mined, stats)
    above = (log.samples.get(int(log.template[pos - 1])) or [""])[0] if pos > 0 else ""
    return bool(_FRAME_LINE.match(lexicon.unprefixed(above)))


_HANDLED = "During handling of the above exception"
HANDLED_LOOKAHEAD = 3  # lines between an exception and Python's note that another one followed


def handled_exception(mined: MinedJob, stats: EventStats) -> bool:
    """Whether Python printed the event's first line as an exception that was being handled when
    another one was raised ("During handling of the above exception, another exception occurred"):
    the job died of the later one. TensorRT-LLM's MetaInitException, caught to retry without meta
    tensors, above the AssertionError "self.num_heads % tp_size == 0" that ended the job
    (verl-project/verl PR #5687 launch log)."""
    log, pos = first_position(mined, stats)
    ahead = log.template[pos + 1 : pos + 1 + HANDLED_LOOKAHEAD].tolist()
    return any(_HANDLED in mined.miner.template(int(tid)) for tid in ahead)


def _recurs_each_attempt(stats: EventStats, window_start: float, w: Weights, attempts: int = 1) -> bool:
    """A launcher that restarts a job appends each attempt to the same log, and a job fails
    the same way each time: an error seen a few times, or at most once per attempt, the last
    inside the episode, belongs to the last attempt too (PaddleNLP workerlog.0 holding three
    attempts' AttributeError, hyang1985/uie-for-fundmanager; a container restarted 64 times into
    the same ConfigKeyError, inclusionAI/AReaL cloud_gsm8k logs). Messages printed all along are
    far more frequent."""
    last = max((s.last_ts for s in stats.per_node.values() if not math.isnan(s.last_ts)), default=math.nan)
    repeats = max((s.count for s in stats.per_node.values()), default=0)
    return not math.isnan(last) and last >= window_start and 2 <= repeats <= max(w.restart_max_repeats, attempts)


START_LINES = 3  # the opening lines a restarted job prints again


def attempts_in(mined: MinedJob) -> int:
    """How many times a node's log starts over: its first lines' message shapes printed again in
    the same order (a container's banner, a launcher's start-up), at most once per attempt."""
    most = 1
    for log in mined.nodes.values():
        head = log.template[:START_LINES]
        if len(head) < START_LINES:
            continue
        starts = np.flatnonzero(log.template[: len(log) - START_LINES + 1] == head[0])
        repeats = sum(1 for s in starts.tolist() if np.array_equal(log.template[s : s + START_LINES], head))
        most = max(most, repeats)
    return most


def benign_in_healthy_runs(
    mined: MinedJob, table: EventTable, healthy: Mapping[int, int], library: KnownFaults | None = None,
    weights: Weights = DEFAULT_WEIGHTS,
) -> dict[int, int]:
    """The events the shipped prior knows (``healthy``: template id -> healthy sources) that
    may be demoted: never one whose lines read as a fault by the lexicon or match a knowledge
    signature, since a healthy run can print a rare error it recovered from."""
    benign: dict[int, int] = {}
    for tid, sources in healthy.items():
        stats = table.events.get(tid)
        if stats is None or sources < weights.prior_min_sources:
            continue
        samples = [t for n in stats.nodes[:3] for t in mined.nodes[n].samples.get(tid, ())]
        if any(lexicon.is_fault_indicating(stats.template, raw) for raw in samples or [""]):
            continue
        if library is not None and any(m.confidence >= weights.library_min_confidence for m in library.match(samples)):
            continue
        benign[tid] = sources
    return benign


def kept_events(
    table: EventTable, profile: NormalProfile | None, progress_tids: set[int], weights: Weights = DEFAULT_WEIGHTS,
    healthy: Mapping[int, int] | None = None,
) -> list[tuple[EventStats, Verdict]]:
    """The events the normal jobs (or, without them, the healthy runs of the shipped prior:
    ``healthy`` from ``benign_in_healthy_runs``) do not explain, with their verdicts
    (progress lines excluded)."""
    kept: list[tuple[EventStats, Verdict]] = []
    healthy = healthy or {}
    for tid, stats in table.events.items():
        if tid in progress_tids:
            continue
        verdict = judge(profile, tid, max(s.count for s in stats.per_node.values()), weights, healthy.get(tid, 0))
        if verdict.keep:
            kept.append((stats, verdict))
    return kept


MAX_VARIANTS = 8  # raw lines per template checked against the library (samples keep a few per node)


def score_event(
    stats: EventStats,
    verdict: Verdict,
    sample: str,
    *,
    n_nodes: int,
    window_start: float,
    history: bool,
    library: KnownFaults | None = None,
    lines_after: int = 0,
    wrapped: bool = False,
    weights: Weights = DEFAULT_WEIGHTS,
    source_line: bool = False,
    attempts: int = 1,
    handled: bool = False,
    variants: Sequence[str] = (),
) -> tuple[EventCandidate, KnownMatch | None]:
    """The event as a candidate (novelty x episode x level x error words x role x library x
    workflow), and the library match that boosted it, if any.

    ``history``: normal jobs exist, so novelty means something and levels count less;
    ``window_start``: events before it are outside the failure episode; ``lines_after``: how
    many lines of routine work its file printed after the event's last occurrence; ``variants``:
    other raw lines the template stands for."""
    w = weights
    template = stats.template
    first = stats.first_ts
    share = spread(stats, n_nodes)
    reasons = [verdict.reason]
    role = "context" if wrapped else lexicon.role_of(template, sample)
    # An undated line the job did no routine work after may have been printed inside the
    # episode: "=>> PBS: job killed: walltime 3633 exceeded limit 3600" lands on tqdm's bar, after
    # the run's last stamped line an hour earlier (rcc-uchicago/pedramh-profiling e3sm_sfno_train.o6141319).
    # One the job worked on after (an NCCL WARN hundreds of iterations before the end) was not.
    undated_at_end = stats.first_ts_latest >= window_start and lines_after <= w.tail_lines
    in_episode = math.isnan(first) or first >= window_start or undated_at_end or _recurs_each_attempt(stats, window_start, w, attempts)
    score = verdict.weight
    if not in_episode:
        score *= w.before_episode_factor
        reasons.append("before the failure episode")
    if share <= w.local_spread:
        reasons.append("only on " + ", ".join(stats.nodes[:3]) + (" ..." if len(stats.nodes) > 3 else ""))
    elif share >= w.global_spread:
        reasons.append(f"on {len(stats.per_node)}/{n_nodes} nodes")
    # A Python exception line is an error whatever logger (if any) printed it.
    level = ERROR_LEVEL if stats.max_level == 0 and lexicon.is_exception_line(sample) else stats.max_level
    score *= (w.level_factor if history else w.level_factor_no_history).get(level, 1.0)
    known: KnownMatch | None = None
    # nvidia-smi -q indents its fields ("            HW Thermal Slowdown           : Active", NVIDIA's
    # nvidia-smi documentation): an indented line that is a known fault's own message is a
    # report's field, not a traceback's source line.
    reported_field = role == "context" and not (wrapped or source_line) and lexicon.indented_only(template, sample)
    if library is not None and (role == "candidate" or reported_field):
        # Drain may fold a known fault's message into a wider template: the NPU black box's
        # "[Hardware Error]  error_type: 3, multi-bit ECC" and its "Error 0, type: recoverable"
        # became one (CANN 8.0.0 troubleshooting, HBM bit ECC fault). Any of its lines counts.
        matches = library.match([sample, *variants])
        specific = [m for m in matches if not m.wrapper and not m.benign]  # a wrapper names no cause
        best = max(specific, key=lambda m: m.confidence, default=None)
        if best is not None and best.confidence >= w.library_min_confidence:
            known = best
            role = "candidate"
        harmless = next((m for m in matches if m.benign and m.confidence >= w.library_min_confidence), None)
        if best is None and harmless is not None:
            # A message the knowledge says jobs print and go on working after: torch_npu's "Device
            # do not support double dtype now, dtype cast replace with float" at every start-up
            # (knowledge/ascend/torch-npu-double-dtype-cast-to-float.md) is no root however early.
            score *= w.benign_doc_factor
            reasons.append(f"a message jobs print and go on working ({harmless.id})")
    # A known fault's own message ("NET/IB : Got completion from peer ... status=12") says
    # something failed as surely as the word "error" does.
    error_words = lexicon.has_error_words(template) or known is not None
    if error_words:
        score *= w.error_words_factor
    elif not history:
        score *= w.no_error_words_factor_no_history
    elif stats.max_level < WARNING_LEVEL:
        score *= w.no_error_words_factor
    score *= w.role_factor[role]
    if handled:
        score *= w.handled_factor
        reasons.append("an exception being handled when another was raised")
    if not history and lines_after > w.tail_lines:
        # A failed run stops soon after its cause: without normal jobs to say what is usual,
        # a message the job went on logging long after is start-up noise, not the failure.
        score *= max(w.tail_floor, math.sqrt(w.tail_lines / lines_after))
        reasons.append(f"{lines_after} lines of routine work after it")
    if known is not None:
        score *= w.library_boost
        reasons.append(f"matches known fault pattern {known.id}")
    if stage_of_template(template) in WORKFLOW_STAGES and stats.max_level <= INFO_LEVEL and not error_words:
        score *= w.workflow_factor  # a new workflow step ("saving checkpoint ...") is not a fault by itself
        reasons.append("a workflow step, not an error")
    return EventCandidate(stats.tid, template, score, reasons, stats.nodes, first, role, role,
                          known.id if known is not None else ""), known


def ordinary_lines(mined: MinedJob) -> dict[object, np.ndarray]:
    """Per file, the sorted line numbers of the program's routine work (no error words, not
    a traceback, wait or teardown; at most INFO). The tail counts these: a failed run's own
    output (every rank's traceback, its peers' timeouts, the launcher's teardown) can run to
    a thousand lines after the cause (8 nodes' interleaved tracebacks and socket timeouts
    after "FileNotFoundError: ... _doc_idx.npy", ZhangDY-6483/Megatron-LM nohup.out), while a
    message the job went on working after is followed by routine lines. A console's ranks
    share one file, so the count is the file's, not the rank's."""
    routine = routine_templates(mined)
    per_file: dict[object, list[np.ndarray]] = {}
    for log in mined.nodes.values():
        per_file.setdefault(log.source, []).append(log.lineno[routine_mask(log, routine)])
    return {source: np.sort(np.concatenate(parts)) for source, parts in per_file.items()}


def score_events(
    mined: MinedJob,
    kept: list[tuple[EventStats, Verdict]],
    *,
    n_nodes: int,
    window_start: float,
    history: bool,
    library: KnownFaults | None = None,
    weights: Weights = DEFAULT_WEIGHTS,
) -> list[EventCandidate]:
    """Every kept event scored, in table order."""
    scored: list[EventCandidate] = []
    ordinary = ordinary_lines(mined)
    attempts = attempts_in(mined)
    for stats, verdict in kept:
        lines_after = min(
            len(ordinary[mined.nodes[n].source]) - int(np.searchsorted(
                ordinary[mined.nodes[n].source], int(mined.nodes[n].lineno[s.last_pos]), side="right"))
            for n, s in stats.per_node.items()
        )
        candidate, _ = score_event(
            stats, verdict, first_sample(mined, stats), n_nodes=n_nodes, window_start=window_start,
            history=history, library=library, lines_after=lines_after, wrapped=wrapped_tail(mined, stats),
            weights=weights, source_line=under_frame(mined, stats), attempts=attempts,
            handled=handled_exception(mined, stats),
            variants=[t for n in stats.per_node for t in mined.nodes[n].samples.get(stats.tid, [])][:MAX_VARIANTS],
        )
        scored.append(candidate)
    return scored
