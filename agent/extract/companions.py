"""The root's companions: the other messages of the same fault.

One fault often speaks in several lines: a CANN error block, an exception re-raised across a
DataLoader boundary, a bare AssertionError under its assert statement, a burst on the faulty
node in one moment. These are reported with the root; the cascade on other ranks is not.
A message logged above its own traceback is only its header: the exception the traceback
ends in speaks for it. Pure: new candidates are returned, the inputs are left as they were.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ..mining import MinedJob
from . import lexicon
from .events import ERROR_LEVEL, EventCandidate, first_position, first_sample
from .passover import carried_on_at, went_on_at
from .table import EventTable
from .weights import Weights

MAX_EVENTS = 5  # root plus companions reported
NO_LEVEL = 0  # mining.LEVEL_CODES[None]


def _carried_on_past(root: EventCandidate, mined: MinedJob, table: EventTable) -> Callable[[EventCandidate], bool]:
    """Whether an event came before the root's node went on working (``passover.went_on_at``: a
    training step, or a run of routine stamped INFO lines, before the root). Then it is not part of
    the fault that stopped the job, however close in time (nor when its report said the program
    carried on, ``passover.carried_on_at``): verl's per-batch "[root][WARNING] - Token
    mismatch detected!" before the DataLoader's ValueError three steps in (HappynessI/verl-for-
    AgentGym textcraft SFT log); torchtitan's start-up "WARNING - Error running lspci" before the
    optimizer and trainer INFO lines and the first step's CUDA OOM (QIU023/torchtitan_attention_residual run.log)."""
    stats = table.events[root.tid]
    node = stats.first_node()
    root_pos = stats.per_node[node].first_pos

    def past(e: EventCandidate) -> bool:
        mine = table.events[e.tid].per_node.get(node)
        if mine is None or mine.first_pos >= root_pos:
            return False
        went_on = went_on_at(mined, node, mine.first_pos, e.tid)
        if went_on is not None and went_on < root_pos:
            return True
        # A report ending in "Continuing to launch." was survived; a line that itself says it will
        # retry is still part of the fault's story (a refused connection retried until a timeout).
        carried_on = carried_on_at(mined, node, mine.first_pos)
        return carried_on is not None and mine.first_pos < carried_on < root_pos

    return past


def _lines_apart(a: EventCandidate, b: EventCandidate, table: EventTable) -> float:
    """How far apart two events first appear on the first node of ``a`` (inf if ``b`` is not there)."""
    node = table.events[a.tid].first_node()
    other = table.events[b.tid].per_node.get(node)
    return abs(other.first_pos - table.events[a.tid].per_node[node].first_pos) if other is not None else math.inf


def _timed(e: EventCandidate, mined: MinedJob, table: EventTable) -> bool:
    """The event's first line has a time of its own or of a stamped line above it. A line
    above a file's first stamp borrows a later time, which says nothing about being printed
    together: a DeprecationWarning on line 2 of a Paddle workerlog is not a companion of the
    data error on line 289 (hutuxian/RSPNet log/workerlog.0)."""
    log, pos = first_position(mined, table.events[e.tid])
    return bool(log.stamped[: pos + 1].any())


def _own_time(e: EventCandidate, mined: MinedJob, table: EventTable) -> bool:
    """The event's first line carries its own time. A line that only borrows one from a stamp
    far above is not "the same moment" as the root: DeepSpeed's start-up "[WARNING] sparse_attn
    requires a torch version" 400 lines above a rendezvous failure (okoge-kaz
    megatron-deepspeed-turing-techblog logs/20230712)."""
    log, pos = first_position(mined, table.events[e.tid])
    return bool(log.stamped[pos])


def companions_of(
    root: EventCandidate, roots_pool: list[EventCandidate], mined: MinedJob, table: EventTable, n_nodes: int, w: Weights
) -> list[tuple[EventCandidate, str]]:
    """Events of the same origin as the root, each with the reason it is one."""
    out: list[tuple[EventCandidate, str]] = []
    root_is_exception = lexicon.is_exception_line(first_sample(mined, table.events[root.tid]))
    root_level = table.events[root.tid].max_level
    root_is_error = root_level >= ERROR_LEVEL or (root_level == NO_LEVEL and lexicon.has_error_words(root.template))
    local_root = len(root.nodes) <= max(1, n_nodes // w.local_node_divisor)
    root_class = lexicon.exception_class(first_sample(mined, table.events[root.tid]))
    carried_on_past = _carried_on_past(root, mined, table)
    for e in roots_pool:
        if e is root or 1 + len(out) >= MAX_EVENTS:
            continue
        if carried_on_past(e):
            continue
        if lexicon.informative_words(e.template) < w.companion_min_words and not e.known:
            continue  # a known fault's line says enough even where Drain masked its words
        # One exception re-raised around a boundary (DataParallel replica, DataLoader
        # worker) prints its class twice within a traceback's length: one fault.
        if root_class and root_class == lexicon.exception_class(first_sample(mined, table.events[e.tid])) and (
            _lines_apart(root, e, table) <= w.surfacing_lines and e.score >= w.root_min_score
        ):
            out.append((e, "the same exception, re-raised"))
            continue
        # A Python exception after an error already reported is that error surfacing in
        # Python; after a warning it is the failure the warning announced.
        if root_is_error and not root_is_exception and lexicon.is_exception_line(first_sample(mined, table.events[e.tid])):
            continue
        # Messages of one fault are printed together: next to the root in its node's log.
        timed = _timed(root, mined, table) and _timed(e, mined, table)
        gap = abs(e.first_ts - root.first_ts) if timed and not (math.isnan(e.first_ts) or math.isnan(root.first_ts)) else math.inf
        # Lines without a time: "together" is a few lines apart on the same node, for a line that
        # names an error or that a known fault pattern recognises ("Op Cast does not has any
        # binary." inside a CANN TraceBack block, hiyouga/LLaMA-Factory#4610).
        # So is a root that only borrows its time from a stamp above: torch_npu's unstamped
        # "RuntimeError: [ERROR] HCCL error in: ...ProcessGroupHCCL.cpp:64" two lines over its
        # stamped "EJ0001: ... Failed to initialize the HCCP process" (independent corpus F, f24).
        # A peer's timeout a few lines below such a root is still the wait that followed it.
        borrowed = not _own_time(root, mined, table) and e.role == "candidate"
        if (math.isinf(gap) or borrowed) and _lines_apart(root, e, table) <= w.companion_lines and (
            lexicon.has_error_words(e.template) or e.known
        ):
            gap = 0.0
        close = gap <= w.companion_seconds
        # A burst on the root's own node(s) in the same moment is one fault speaking.
        if (
            local_root
            and gap <= w.burst_seconds
            and ((_own_time(root, mined, table) and _own_time(e, mined, table)) or _lines_apart(root, e, table) <= w.surfacing_lines)
            and e.role == "candidate"
            and set(e.nodes) <= set(root.nodes)
            and e.score >= w.burst_min_score
        ):
            out.append((e, "printed with the root on the same node(s)"))
            continue
        same_nodes = set(e.nodes) <= set(root.nodes) and local_root
        kind_ok = e.role == "candidate" or (e.role == "wait" and same_nodes)
        if close and kind_ok and (e.score >= max(w.root_min_score, w.companion_share * root.score) or _coded_wait(e, same_nodes)):
            out.append((e, "follows the root on the same node(s)"))
    return out


# CANN reports one fault as a chain of coded lines, and each code is what an SRE looks up:
# "EE1002: ... Stream synchronize timeout. rtDeviceSynchronize execute failed" under torch_npu's
# "ERR00100 PTA call acl api failed" (hiyouga/LLaMA-Factory#5551). Its wording reads as a wait,
# but on the root's own node, printed with it, it is the root's block, not a peer's cascade.
def _coded_wait(e: EventCandidate, same_nodes: bool) -> bool:
    return e.role == "wait" and same_nodes and bool(lexicon.CANN_CODE.search(e.template))


_BARE_ASSERTION = re.compile(r"^\s*(?:[\w.]+\.)?AssertionError\s*$")


def failing_assert(
    root: EventCandidate, scored: list[EventCandidate], mined: MinedJob, table: EventTable
) -> EventCandidate | None:
    """A bare "AssertionError" says nothing; the assert statement printed above it is its
    message ("    assert num_samples > 0", aws-samples/awsome-distributed-training Megatron GPT-3 README)."""
    stats = table.events[root.tid]
    log, pos = first_position(mined, stats)
    if pos == 0 or not _BARE_ASSERTION.match(lexicon.unprefixed(first_sample(mined, stats))):
        return None
    above = int(log.template[pos - 1])
    text = lexicon.unprefixed((log.samples.get(above) or [""])[0])
    if not text.lstrip().startswith("assert "):
        return None
    return next((e for e in scored if e.tid == above), None)


COMPLAINT_LINES = 120  # how far above Python's report of a failed command its own complaint may be


def command_complaint(
    root: EventCandidate, scored: list[EventCandidate], mined: MinedJob, table: EventTable
) -> EventCandidate | None:
    """A command the job ran prints why it failed before Python's traceback reports its exit
    status: "Host key verification failed." above the traceback that ends in "CalledProcessError:
    Command '['ssh', 'g13n13', 'hostname', '-I']' returned non-zero exit status 255."
    (sajal-vt/Megatron-DeepSpeed-Summit gpt3-megatron.3328291.e). It is the first line above the
    traceback that is not part of one."""
    stats = table.events[root.tid]
    if not lexicon.own_call_failed(first_sample(mined, stats)):
        return None
    log, pos = first_position(mined, stats)
    by_tid = {e.tid: e for e in scored}
    for p in range(pos - 1, max(-1, pos - 1 - COMPLAINT_LINES), -1):
        e = by_tid.get(int(log.template[p]))
        if e is None or e.tid == root.tid or e.role == "context":
            continue
        return e if e.role == "candidate" and lexicon.has_error_words(e.template) else None
    return None


HEADER_TRACEBACK_LINES = 80  # how far below a logged message its traceback may end


def exception_under_header(
    root: EventCandidate, scored: list[EventCandidate], mined: MinedJob, table: EventTable
) -> EventCandidate | None:
    """A message logged with its traceback (Python's logger.exception) is a header: the
    exception that ends the traceback below it says what failed. Ray Tune's "ERROR
    trial_runner.py:569 -- Error processing event." above a traceback ending in "TypeError:
    save_checkpoint() missing 1 required positional argument: 'train_params'"
    (ninamiolane/vaetree run.err). An exception line is never a header: it is the message. A
    header a known fault pattern recognises names the fault too, and stays beside it ("ERROR:
    Unexpected bus error encountered in worker. This might be caused by insufficient shared
    memory (shm)." above its traceback, jerrylsu.net DDP notes)."""
    stats = table.events[root.tid]
    log, pos = first_position(mined, stats)
    # logger.exception logs at ERROR; a warning above a traceback is a message of its own.
    if stats.max_level < ERROR_LEVEL or lexicon.is_exception_line(first_sample(mined, stats)) or pos + 1 >= len(log.template):
        return None
    below = (log.samples.get(int(log.template[pos + 1])) or [""])[0]
    if "Traceback (most recent call last)" not in below:
        return None
    by_tid = {e.tid: e for e in scored if e.role == "candidate"}
    last = None
    for p in range(pos + 2, min(len(log.template), pos + 2 + HEADER_TRACEBACK_LINES)):
        tid = int(log.template[p])
        text = (log.samples.get(tid) or [""])[0]
        if log.stamped[p] or "Traceback (most recent call last)" in text:
            break  # the next logged record or the next traceback: this one ended
        if lexicon.is_exception_line(text):
            # A task error relayed across processes (Ray's RayTaskError) ends in the remote exception.
            last = by_tid.get(tid, last)
        elif not (text[:1].isspace() or lexicon.unprefixed(text).lstrip().startswith("File ")):
            break  # neither a frame, its source line, nor an exception: past the traceback
    return last


FATAL_EXCEPTION_LINES = 60  # how far below an error the exception it raised may end its traceback


def fatal_exception(
    root: EventCandidate, scored: list[EventCandidate], mined: MinedJob, table: EventTable
) -> EventCandidate | None:
    """The exception a process died of, right after the error that caused it: an SRE points
    at both (the NCCL WARN and the "RuntimeError: NCCL error ... unhandled system error" it
    raised, NERSC perlmutter nccl test slurm-pm-test-8596)."""
    stats = table.events[root.tid]
    if lexicon.is_exception_line(first_sample(mined, stats)):
        return None
    log, pos = first_position(mined, stats)
    by_tid = {e.tid: e for e in scored if e.role in ("candidate", "wait")}
    for p in range(pos + 1, min(len(log.template), pos + 1 + FATAL_EXCEPTION_LINES)):
        tid = int(log.template[p])
        if tid == root.tid:
            continue
        if lexicon.is_exception_line((log.samples.get(tid) or [""])[0]):
            return by_tid.get(tid)
    return None


def message_continued(
    root: EventCandidate, scored: list[EventCandidate], mined: MinedJob, table: EventTable
) -> EventCandidate | None:
    """An exception whose message ends in a colon goes on in the next line, which says what
    was wrong ("ValueError: Error initializing torch.distributed using env:// rendezvous:" over
    "environment variable RANK expected, but not set", PrimeIntellect-ai/prime-rl#3146)."""
    stats = table.events[root.tid]
    text = lexicon.unprefixed(first_sample(mined, stats)).rstrip()
    if not (text.endswith(":") and lexicon.is_exception_line(text)):
        return None
    log, pos = first_position(mined, stats)
    if pos + 1 >= len(log.template):
        return None
    below = int(log.template[pos + 1])
    nxt = lexicon.unprefixed((log.samples.get(below) or [""])[0]).strip()
    # A sentence, not the data the message lists (a path, a list of keys, an overload signature).
    if not nxt[:1].isalpha() or nxt.startswith(("Traceback", "File ")) or lexicon.informative_words(nxt) < 3:
        return None
    return next((e for e in scored if e.tid == below and e.role in ("candidate", "wait")), None)


_TERMINATE = re.compile(r"terminate called after throwing an instance of")


def thrown_type(
    root: EventCandidate, scored: list[EventCandidate], mined: MinedJob, table: EventTable
) -> EventCandidate | None:
    """C++'s report of an uncaught exception is two lines, its type and its what(): one fault
    ("terminate called after throwing an instance of 'gloo::EnforceNotMet'" above
    "what():  [enforce fail at .../gloo/transport/tcp/device.cc:88] ...", horovod/horovod#1341)."""
    stats = table.events[root.tid]
    log, pos = first_position(mined, stats)
    if pos == 0 or "what():" not in first_sample(mined, stats):
        return None
    above = int(log.template[pos - 1])
    if not _TERMINATE.search((log.samples.get(above) or [""])[0]):
        return None
    return next((e for e in scored if e.tid == above), None)


def relay_of(
    root: EventCandidate, scored: list[EventCandidate], mined: MinedJob, table: EventTable, w: Weights
) -> EventCandidate | None:
    """The line that relays the root's exception to the process that waited for it (Ray's
    "ray.exceptions.RayTaskError(OSError): ray_Train:train() (pid=45173, host=...)" above
    "OSError: [Errno 122] Disk quota exceeded", ninamiolane/vaetree run.err): it names the
    task and the host that failed, so an SRE points at it with the exception."""
    stats = table.events[root.tid]
    cls = lexicon.exception_class(first_sample(mined, stats))
    if not cls:
        return None
    log, pos = first_position(mined, stats)
    by_tid = {e.tid: e for e in scored}
    for p in range(max(0, pos - w.surfacing_lines), min(len(log.template), pos + w.surfacing_lines)):
        tid = int(log.template[p])
        if tid != root.tid and lexicon.relayed_class((log.samples.get(tid) or [""])[0]) == cls:
            return by_tid.get(tid)
    return None
