"""Why the earliest strong event is not always the root: the moves from it to the line that
ended the job (a warning printed at start-up, an error the program survived, a wrapper above
the error it reports, a header above the stack entry that says what failed).

Each move takes the current root and the eligible events and returns the root to keep; ``root``
applies them in order. Pure: nothing here changes its inputs.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..mining import MinedJob
from . import lexicon
from .events import ERROR_LEVEL, INFO_LEVEL, WARNING_LEVEL, EventCandidate, first_sample
from .routine import routine_mask, routine_templates
from .table import EventTable
from .weights import DEFAULT_WEIGHTS, Weights

NO_LEVEL = 0  # mining.LEVEL_CODES[None]


def time_key(e: EventCandidate, table: EventTable) -> tuple[float, int]:
    """Order of appearance: corrected time, then (same second) the line printed first on that node."""
    stats = table.events[e.tid]
    first = stats.first_node()
    return (e.first_ts if not math.isnan(e.first_ts) else math.inf, stats.per_node[first].first_pos)


def latest_time(e: EventCandidate, table: EventTable) -> float:
    """The latest the event may first have been printed: its time, or later when its undated
    line borrowed an older stamp (``EventStats.first_ts_latest``)."""
    return max(time_key(e, table)[0], table.events[e.tid].first_ts_latest)


def earliest_on_node(
    root: EventCandidate, eligible: list[EventCandidate], table: EventTable, weights: Weights = DEFAULT_WEIGHTS
) -> EventCandidate:
    """Among eligible events printed in the same second on the root's node, the one whose
    line comes first: timestamps tie, line order does not."""
    node = table.events[root.tid].first_node()
    pos = table.events[root.tid].per_node[node].first_pos
    best = root
    for e in eligible:
        stats = table.events[e.tid].per_node.get(node)
        if stats is None or math.isnan(e.first_ts) or math.isnan(root.first_ts):
            continue
        # ... unless the job as a whole printed it much later: then it is the peers' cascade
        # message that the faulty node printed first ("ERR00100 PTA call acl api failed" a line
        # above its own HBM ECC error, then "ERR02200 DIST call hccl api failed" on every peer
        # 30 minutes later share one template).
        if e.first_ts - root.first_ts > weights.lead_min_seconds:
            continue
        if abs(stats.first_ts - root.first_ts) <= weights.same_moment_seconds and stats.first_pos < pos:
            best, pos = e, stats.first_pos
    return best


def first_line(e: EventCandidate, mined: MinedJob, table: EventTable) -> tuple[object, int]:
    """The file and line where an event first appeared (on the node that printed it first)."""
    stats = table.events[e.tid]
    node = stats.first_node()
    return mined.nodes[node].source, int(mined.nodes[node].lineno[stats.per_node[node].first_pos])


def earliest_in_file(
    root: EventCandidate, eligible: list[EventCandidate], mined: MinedJob, table: EventTable, weights: Weights = DEFAULT_WEIGHTS
) -> EventCandidate:
    """Among eligible events of the same moment in the root's file, the one on the earliest
    line: a console's ranks share one file, and its line order is exact where their
    inherited timestamps are not (a rank's traceback, then the launcher's footer)."""
    source, best_line = first_line(root, mined, table)
    best = root
    for e in eligible:
        if math.isnan(e.first_ts) or math.isnan(root.first_ts) or abs(e.first_ts - root.first_ts) > weights.same_moment_seconds:
            continue
        for n, s in table.events[e.tid].per_node.items():
            line = int(mined.nodes[n].lineno[s.first_pos])
            if mined.nodes[n].source == source and line < best_line:
                best, best_line = e, line
    return best


def past_startup_noise(
    root: EventCandidate, eligible: list[EventCandidate], mined: MinedJob, table: EventTable, weights: Weights = DEFAULT_WEIGHTS
) -> EventCandidate:
    """Without times, nothing ties a warning to an error printed far below it: when the root
    is not itself an error and the file's first error or exception comes more than a
    traceback's length later, the warning was start-up noise (accelerate's 'Detected kernel
    version ... below the recommended minimum' at the top of a stderr ending in a CUDA OOM,
    gtseligas/lcn-llama). An error that says how the program carried on ("going to /tmp
    instead") is start-up noise in the same way, timestamps or not."""
    stats = table.events[root.tid]
    carried_on = carried_on_at(mined, stats.first_node(), stats.per_node[stats.first_node()].first_pos)
    # Python's warnings module foretells a possible problem and lets the program go on: "popen_fork.py:66:
    # RuntimeWarning: os.fork() was called. os.fork() is incompatible with multithreaded code, and JAX
    # is multithreaded, so this will likely lead to a deadlock." before a DDP run's first BROADCAST
    # hung for its 120 s watchdog (argonne-lcf/alcf-nccl-tests resnet50 with_aws.log).
    warned = lexicon.foretells_failure(root.template)
    fallback = carried_on is not None or warned
    resumed = _program_logged_after(root, mined, table)
    went_on = _went_on_after(root, mined, table)
    if not fallback and resumed is None and went_on is None and (
            not math.isnan(root.first_ts) or is_fatal_line(root, mined, table)):
        return root
    source, line = first_line(root, mined, table)
    after = line + weights.surfacing_lines if resumed is None else min(resumed, line + weights.surfacing_lines)
    if carried_on is not None:  # it said itself that it carried on: a fatal line after that stopped the job
        after = int(mined.nodes[stats.first_node()].lineno[carried_on])
    elif warned:  # the warning and the source line it quotes are its whole report: what follows happened
        after = line + 1
    elif went_on is not None:  # it went on working: a fatal line after that stopped the job
        after = went_on
    later = []
    for e in eligible:
        e_source, e_line = first_line(e, mined, table)
        # After a line that said the program carried on, a later error need not be levelled or
        # an exception: "python: can't open file '.../pretrain_gpt.py': [Errno 2] No such file or
        # directory" is the interpreter's own last word. A warning is not (every rank's "WARNING:root:
        # Cannot import JIT optimized kernels." after jsrun's "Continuing to launch.", Summit 3328291).
        stopped = is_fatal_line(e, mined, table) or (
            fallback and e.role in ("candidate", "wait") and lexicon.has_error_words(e.template)
            and table.events[e.tid].max_level != WARNING_LEVEL)
        if (e_source == source and e_line > after and stopped
                and not lexicon.announces_fallback(e.template)):
            later.append((e_line, e))
    return min(later, key=lambda pair: pair[0])[1] if later else root


MESSAGE_BLOCK = 5  # lines under a message's first line that may still belong to its report (jsrun's takes 5)


def carried_on_at(mined: MinedJob, node: str, pos: int) -> int | None:
    """The position of the line that says how the program carried on after ``node``'s line
    ``pos``: that line itself, or one of the lines of its report just below it (the report ends
    there). A multi-line complaint often says so last: "Error: SMPI environment generator script
    not found at:", the path, "Error: No such file or directory", "Warning. Failed to setup the
    Spectrum MPI environment.", then "Continuing to launch. ..." (jsrun, sajal-vt/Megatron-
    DeepSpeed-Summit gpt3-megatron.3314739.e, whose ranks then fail on a missing module).
    None when nothing says so."""
    log = mined.nodes[node]
    for at in range(pos, min(pos + 1 + MESSAGE_BLOCK, len(log.template))):
        if lexicon.announces_fallback((log.samples.get(int(log.template[at])) or [""])[0]):
            return at
    return None


PROGRAM_LINES = 3  # stamped lines of normal logging that show a program ran on (also ``companions``)


def went_on_at(mined: MinedJob, node: str, pos: int, tid: int) -> int | None:
    """The position by which a node went on working after its line ``pos`` (of template ``tid``):
    its first training step, or its third routine stamped INFO line, after it. None when nothing
    routine followed."""
    from .stages import training_positions

    log = mined.nodes[node]
    steps = training_positions(mined, node)
    steps = steps[(steps > pos) & (log.template[steps] != tid)]
    routine = pos + 1 + np.flatnonzero(log.stamped[pos + 1:] & (log.level[pos + 1:] == INFO_LEVEL))
    went_on = [int(steps[0])] if len(steps) else []
    if len(routine) >= PROGRAM_LINES:
        went_on.append(int(routine[PROGRAM_LINES - 1]))
    return min(went_on) if went_on else None


def _went_on_after(root: EventCandidate, mined: MinedJob, table: EventTable) -> int | None:
    """The line by which the root's node went on working after a root that is only a warning
    (``went_on_at``). The program carried on past the warning, so it did not stop the job, however
    close in time the end came: verl's "[root][WARNING] - Token mismatch detected!" on every batch
    from start-up to the DataLoader's "ValueError: sequence_length=5284 is larger than
    self.max_length=4096" three steps in (HappynessI/verl-for-AgentGym textcraft SFT log);
    torchtitan's "WARNING - Error running lspci" before its optimizer and trainer INFO lines and the
    first step's CUDA OOM (QIU023/torchtitan_attention_residual run.log). None when the root is an
    error or nothing routine followed it."""
    stats = table.events[root.tid]
    if stats.max_level != WARNING_LEVEL or is_fatal_line(root, mined, table):
        return None
    node = stats.first_node()
    went_on = went_on_at(mined, node, stats.per_node[node].first_pos, root.tid)
    return int(mined.nodes[node].lineno[went_on]) if went_on is not None else None


def past_survived_error(
    root: EventCandidate, eligible: list[EventCandidate], mined: MinedJob, table: EventTable, weights: Weights = DEFAULT_WEIGHTS
) -> EventCandidate:
    """Sweeps and retry loops catch a trial's error and start the next trial: when the
    root's node then logs a long run of routine lines and fails again, the later failure
    ended the job (wandb's agent printing 'Agent Starting Run' and the next trial's config
    after a trial's CUDA OOM, then Slurm's oom_kill; vyjur/master-project output.err of
    job 21171137). The same error again after the routine run is the failure itself,
    repeating (every trial of a sweep too large for the GPU)."""
    stats = table.events[root.tid]
    node = stats.first_node()
    log = mined.nodes[node]
    start = stats.per_node[node].first_pos + 1
    after = log.template[start:]
    ok = routine_mask(log, routine_templates(mined), start)
    # Length of the run of routine lines ending at each line (0 on a line that breaks it).
    index = np.arange(len(after))
    run = index - np.maximum.accumulate(np.where(~ok, index, -1))
    long_enough = np.flatnonzero(run >= weights.survived_run_lines)
    if not len(long_enough):
        return root
    resumed_at = start + int(long_enough[-1])
    # The same error again after the program carried on is the failure repeating, not survived.
    message = lexicon.unprefixed(root.template)
    same = [e.tid for e in eligible if lexicon.unprefixed(e.template) == message]
    if np.any(np.isin(log.template[resumed_at + 1:], same)):
        return root
    later = [(s.per_node[node].first_pos, e) for e in eligible
             if (s := table.events[e.tid]).per_node.get(node) is not None and s.per_node[node].first_pos > resumed_at
             and e.role == "candidate" and lexicon.has_error_words(e.template)]
    return min(later, key=lambda pair: pair[0])[1] if later else root


IGNORED_REPORT_LINES = 20  # how far above an exception its "Exception ignored in:" header may be


def in_ignored_report(e: EventCandidate, mined: MinedJob, table: EventTable) -> bool:
    """Whether the line ends the traceback of an exception the interpreter ignored at shutdown:
    "Exception ignored in: <function ResourceTracker.__del__ at 0x7fb7cf1f4fe0>", its frames, then
    "AttributeError: '_thread.RLock' object has no attribute '_recursion_count'" (HappynessI/verl-for-
    AgentGym textcraft GRPO log). Nothing failed there that the job needed."""
    stats = table.events[e.tid]
    node = stats.first_node()
    log = mined.nodes[node]
    pos = stats.per_node[node].first_pos
    for p in range(pos - 1, max(-1, pos - 1 - IGNORED_REPORT_LINES), -1):
        text = mined.miner.template(int(log.template[p]))
        if lexicon.IGNORED_EXCEPTION.match(text):
            return True
        if lexicon.role_of(text) != "context":
            return False
    return False


def _program_logged_after(root: EventCandidate, mined: MinedJob, table: EventTable) -> int | None:
    """The line by which a program had started logging normally after an unstamped error:
    the shell's set-up complaints (Lmod's "The following module(s) are unknown" above a
    torchrun whose ranks then log "2026-05-29 12:16:55,793 - root - INFO - Torch version"
    and fail on their own, rcc-uchicago/pedramh-profiling e3sm_train_3166315.e) did not stop
    the job. None when the root carries a time or nothing ran after it."""
    stats = table.events[root.tid]
    node = stats.first_node()
    log = mined.nodes[node]
    pos = stats.per_node[node].first_pos
    if log.stamped[pos]:
        return None
    normal = np.flatnonzero(log.stamped[pos + 1:] & (log.level[pos + 1:] <= INFO_LEVEL) & (log.level[pos + 1:] != NO_LEVEL))
    if len(normal) < PROGRAM_LINES:
        return None
    return int(log.lineno[pos + 1 + normal[PROGRAM_LINES - 1]])


def underlying_error(
    root: EventCandidate,
    eligible: list[EventCandidate],
    mined: MinedJob,
    table: EventTable,
    weights: Weights = DEFAULT_WEIGHTS,
) -> EventCandidate:
    """A Python exception is usually the surfacing of the runtime error printed just before
    it on the same node ("EI0002 ... times out", then "RuntimeError: ... failed"): root at that.
    The runtime prints that error through a logger, with a level; a line without one, or a
    Python warning, is a print or wrapped text that happened to come first. A line that
    reports no failure is a note the runtime printed on the way (Paddle's "Please NOTE:
    device: 0, GPU Compute Capability: 7.0, Driver API Version: 11.0" above a data error,
    hutuxian/RSPNet log/workerlog.0), and so is a line logged at INFO, the library narrating:
    "NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object
    file: No such file or directory : when loading libnccl-net.so", then "Using internal network
    plugin." on a healthy start (pytorch/pytorch#146118)."""
    if not lexicon.is_exception_line(first_sample(mined, table.events[root.tid])):
        return root
    node = table.events[root.tid].first_node()
    mine = table.events[root.tid].per_node[node]
    lineno = mined.nodes[node].lineno
    best: EventCandidate | None = None
    for e in eligible:
        stats = table.events[e.tid].per_node.get(node)
        if (e is root or stats is None or lexicon.is_exception_line(first_sample(mined, table.events[e.tid]))
                or lexicon.is_python_warning(e.template) or table.events[e.tid].max_level < WARNING_LEVEL
                or not (lexicon.has_error_words(e.template) or lexicon.is_fault_indicating(e.template))):
            continue
        # Lines apart in the file, not in the node's stream: a console's other ranks print between.
        lines_apart = int(lineno[mine.first_pos]) - int(lineno[stats.first_pos])
        before = (
            0 <= mine.first_ts - stats.first_ts <= weights.surfacing_seconds
            and stats.first_pos < mine.first_pos
            and lines_apart <= weights.surfacing_lines
        )
        # Not a warning the program went on working after (``_went_on_after``): torchtitan's start-up
        # "WARNING - Error running lspci" is no cause of the first step's CUDA OOM.
        went_on = _went_on_after(e, mined, table) if before else None
        if went_on is not None and went_on < int(lineno[mine.first_pos]):
            continue
        if before and (best is None or stats.first_pos < table.events[best.tid].per_node[node].first_pos):
            best = e
    return best or root


_LEVEL_WORD = re.compile(r"\b(?:ERROR|FATAL|CRITICAL)\b")


def past_wordless_error(
    root: EventCandidate, eligible: list[EventCandidate], mined: MinedJob, table: EventTable, weights: Weights = DEFAULT_WEIGHTS
) -> EventCandidate:
    """A logger's ERROR line that names no failure is a header, and the failure is the message
    printed right under it: "[ERROR] 2020-01-17 00:55:01,724 coordinator_p2p: Rank: -1", then
    "Error: Rank -1 received an Exception. Detailed message: host not found: Name or service
    not known" (pytorch/elastic#31)."""
    if (table.events[root.tid].max_level < ERROR_LEVEL or lexicon.is_fault_indicating(root.template)
            or lexicon.has_error_words(_LEVEL_WORD.sub(" ", root.template))):
        return root
    source, line = first_line(root, mined, table)
    below = []
    for e in eligible:
        e_source, e_line = first_line(e, mined, table)
        if e_source == source and 0 < e_line - line <= weights.companion_lines and lexicon.has_error_words(e.template):
            below.append((e_line, e))
    return min(below, key=lambda pair: pair[0])[1] if below else root


_ERROR_STACK_HEADER = re.compile(r"(?i)error stack:\s*$")
_ERROR_STACK_ENTRY = re.compile(r"^\s*\w+\((?:\d+|<NUM>)\)\.*:")


def innermost_stack_entry(
    root: EventCandidate, eligible: list[EventCandidate], mined: MinedJob, table: EventTable
) -> EventCandidate:
    """MPICH prints its error stack from the outermost call in, under "Fatal error in MPI_Init:
    Other MPI error, error stack:"; the innermost entry that says something is the cause
    ("MPID_nem_tcp_init(379)....: gethostbyname failed, HW-AI-LC-1-1 (errno 2)", hicann/oam-tools
    HCCL Test FAQ)."""
    if not _ERROR_STACK_HEADER.search(root.template):
        return root
    node = table.events[root.tid].first_node()
    log = mined.nodes[node]
    pos = table.events[root.tid].per_node[node].first_pos + 1
    by_tid = {e.tid: e for e in eligible}
    innermost = root
    while pos < len(log) and _ERROR_STACK_ENTRY.match(text := mined.miner.template(int(log.template[pos]))):
        entry = by_tid.get(int(log.template[pos]))
        if entry is not None and lexicon.has_error_words(text.split(":", 1)[1]):
            innermost = entry
        pos += 1
    return innermost


# PyTorch re-raises a DataLoader worker's or a DataParallel replica's exception in the main
# process under a header that names only its class: "ValueError: Caught ValueError in DataLoader
# worker process 3." above "Original Traceback (most recent call last):" and the worker's own
# "ValueError: sequence_length=5284 is larger than self.max_length=4096" (HappynessI/verl-for-AgentGym
# textcraft SFT log); "torch.OutOfMemoryError: Caught OutOfMemoryError in replica 0 on device 0."
# (gtseligas/lcn-llama train.err).
_RERAISED = re.compile(r"Caught (?P<cls>\w+) in (?:DataLoader worker process|replica) ")


def original_exception(
    root: EventCandidate, eligible: list[EventCandidate], mined: MinedJob, table: EventTable, weights: Weights = DEFAULT_WEIGHTS
) -> EventCandidate:
    """The worker's own exception below a re-raise header: it says what failed."""
    m = _RERAISED.search(first_sample(mined, table.events[root.tid]))
    if m is None:
        return root
    source, line = first_line(root, mined, table)
    below = []
    for e in eligible:
        e_source, e_line = first_line(e, mined, table)
        sample = first_sample(mined, table.events[e.tid])
        if (e is not root and e_source == source and line < e_line <= line + weights.surfacing_lines
                and lexicon.exception_class(sample) == m["cls"] and not _RERAISED.search(sample)):
            below.append((e_line, e))
    return min(below, key=lambda pair: pair[0])[1] if below else root


def is_fatal_line(e: EventCandidate, mined: MinedJob, table: EventTable) -> bool:
    stats = table.events[e.tid]
    return e.role == "candidate" and (stats.max_level >= ERROR_LEVEL or lexicon.is_exception_line(first_sample(mined, stats)))
