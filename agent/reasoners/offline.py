"""The offline reasoner: known patterns first, then retrieved knowledge, then rules.

Deterministic and fast, it is the default without an endpoint and the fallback of the LLM
reasoner. Its order follows the L4 paper's deployment, with the shape of the evidence
ahead of the wording of one message:

1. a pattern an SRE confirmed (``l4 library confirm``) settles the category;
2. shape rules: a node its peers lost that reports nothing itself, ranks in different
   collectives, a delete or rename that found its own target gone (ranks racing on one
   path), a timeout far below the stack's default, an internal assertion of the framework
   (not one the job's own script raised);
3. a specific doc signature on a failure-indicating event;
4. a vote of the nearest retrieved docs plus the wording rules.

Where the fault sits then refines the verdict: a code or path error confined to some
nodes points at those nodes rather than at the job's code or arguments, and a "script bug"
whose traceback holds no frame of the job's own code is the stack's, unless the stack raised
it on purpose to refuse the job's input. A doc near only in wording gives one step, never a
stack change.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .. import stackdetect
from ..aliases import peers_in
from ..extract import lexicon
from ..extract.nodes import machines, named_enough
from ..knowledge.lexical import log_tokens
from ..schema import Diagnosis, KnowledgeRef
from . import Evidence
from .evidence_steps import (
    MISSING_PATH,
    STDLIB,
    evidence_steps,
    frame_run,
    frames,
    message_hints,
    rejected_input,
    statement_above,
    step_from_frames,
    traceback_above,
)
from .wording import first_rule

if TYPE_CHECKING:
    from ..knowledge.docs import KnowledgeDoc
    from ..library import LibraryMatch

LIBRARY_DECISIVE = 0.6  # a specific signature (or a user pattern) settles the category
RETRIEVAL_DECISIVE = 0.5
# Beside a wrapper, a code-specific doc below LIBRARY_DECISIVE still beats it; family
# regexes (any EJxxxx code) score 0.45 and do not.
SPECIFIC_BESIDE_WRAPPER = 0.5
RETRIEVAL_VOTES = (0.5, 0.3, 0.2)  # weight of the first, second and third retrieved doc
RULE_VOTE = 0.35
MAX_KNOWLEDGE = 5
# A collective or notify timeout below this was set on purpose: the stacks' defaults are
# 600 s (PyTorch watchdog) and 1836 s (HCCL_EXEC_TIMEOUT). A wait that long is normal
# during a slow step or a checkpoint, so the setting, not the network, is the cause.
SHORT_TIMEOUT_SECONDS = 300.0
# Silence this long before the end is a hang whatever the step time: the watchdogs' own
# defaults (600 s PyTorch, 1836 s HCCL) are of this order.
HANG_STEP_SECONDS = 600.0
# PyTorch's watchdog prints the timeout it waited: "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, ..., Timeout(ms)=600000)".
_TIMEOUT_VALUE = re.compile(r"(?i)timeout\(ms\)=(\d+)")
_ASSERTION = re.compile(r"\bAssertionError\b")
# A delete or rename whose own target is missing lost a race: the path existed when the code
# chose it. Real: FunASR's checkpoint pruning, "shutil.rmtree(path)" / "os.rmdir(path)" frames
# above "FileNotFoundError: [Errno 2] No such file or directory: './train_outputs_full2/model.pt.ep0.5000'"
# (modelscope/FunASR#2557); six ranks each logging "DEBUG Removing past checkpoint for step 15"
# before the same FileNotFoundError (PrimeIntellect-ai/prime-rl#1678).
_VANISHED = re.compile(r"FileNotFoundError|No such file or directory")
_PATH_CHANGE = re.compile(r"\b(?:shutil\.rmtree|os\.rmdir|os\.remove|os\.unlink|os\.rename|os\.replace|shutil\.move)\(|"
                          r"(?i:\b(?:removing|deleting|cleaning up)\b.{0,40}\bcheckpoint)")
PATH_CHANGE_LINES = 4  # the frames just above the error: the call that raised it
RACE_DOC = "ranks-race-on-shared-path"
# Docs that the shape rules name: the pipeline attaches them so their steps can be given.
SHAPE_DOCS = ("collective-mismatch-across-ranks", RACE_DOC)
# Wording of a check on the user's arguments: Megatron, MindSpeed and DeepSpeed validate
# hyper-parameters with assert, so an assertion that names one, a value left unset or a
# mismatch with the checkpoint is a configuration check. Real lines (knowledge/ examples):
#   "AssertionError: learning_rate is None" (mindspeed-pp-stage-without-llm-layers)
#   "AssertionError: AnnealingLR: class input value 1e-06 and checkpointvalue 1e-05 for
#    minimum learning rate do not match" (megatron-lr-scheduler-checkpoint-mismatch)
#   "AssertionError: Check batch related parameters. train_batch_size is not equal to ..."
#   "AssertionError: num_layers value from checkpoint (32) is not equal to the input argument value (40)."
#   "AssertionError: Input image size (96*96) doesn't match model (224*224)." (pommespeter/iBOT-Paddle workerlog)
# A size or value held against a bound is a setting too: "AssertionError: Weight
# model.embed_tokens.weight(torch.Size([151936, 4096]), torch.float32) is too large to fit in
# the bucket." (verl NPU FAQ, the update-weights bucket size).
_ARGUMENT_CHECK = re.compile(
    r"(?i)divisible|must be|should be|--[a-z][\w-]+|\bargs\.|not supported with|requires|is None\b|"
    r"too (large|small|big|long|short|many|few)\b|exceeds?\b|out of range|at (least|most)\b|"
    r"\bassert \w+ *[<>]=? *\d|"
    # A size that must divide another is a parallel setting: "assert self.num_heads % tp_size == 0"
    # (TensorRT-LLM attention, verl-project/verl PR #5687 launch log with TP 8 on 28 heads).
    r"\bassert [\w.]+ % [\w.]+ == 0|"
    r"do(es)? not match|(does|do)n'?t match|not equal to|learning.?rate|batch.?size|num_layers|seq.?length|parallel size|world size|"
    # Parallel degrees are settings: "AssertionError: global work size [8], mp_degree [1], sharding_degree [2],
    # pp_degree [1], dp_degree [2]." (PaddlePaddle/PaddleFleetX examples/resnet workerlog.0).
    r"\w+_degree\b|"
    # A check that a dependency is there is the environment's: "    assert _check_cv2() is True" above a bare
    # AssertionError, under "please install opencv-python first" (PaddleFleetX examples/resnet workerlog.0).
    r"\bassert _?(?:check|has|is)_\w+\(\)|_available\(\)|"
    # The parsed options of a run: "    assert opts.resume_id is not None" above a bare AssertionError
    # (Mattias421/tdmolflow slurm-3734182.out, the run id left unset in the job script).
    r"\b(?:opts?|cfg|hparams|options)\.\w+|is not None\b"
)

@dataclass
class _Choice:
    category: str
    subcategory: str
    doc_id: str | None
    confidence: float
    why: str
    by_signature: bool = False  # a doc's signature matched the line (else the doc is only nearest in wording)
    by_frames: bool = False  # the traceback's frames decided it (none is the job's own code)


class OfflineReasoner:
    name = "offline"

    def reason(self, evidence: Evidence) -> Diagnosis:
        d = evidence.diagnosis.model_copy(deep=True)
        # Ranks stopped in different collectives: both the verdict and a step read it.
        mismatch = _mismatched_collectives(evidence)
        choice = _refine(self._first_choice(evidence, mismatch), evidence)
        d.category = choice.category  # type: ignore[assignment]
        d.subcategory = choice.subcategory
        d.confidence = round(choice.confidence, 2)
        doc = evidence.docs.get(choice.doc_id) if choice.doc_id else None
        d.root_cause = _root_cause(evidence, d, doc.title if doc else None, choice.why)
        companions = [e.occurrences[0].text if e.occurrences else e.template for e in d.events[1:3]]
        root_text = _root_text(d)
        named, frame = evidence_steps(root_text, evidence.root_before, companions, d.stage, evidence.root_after)
        if frame is None and choice.by_frames:  # the frames decided the verdict: say where they point, whatever the class
            frame = step_from_frames(root_text, evidence.root_before, any_exception=True)
        if choice.doc_id == RACE_DOC:  # the path existed: "check the argument that sets it" would mislead
            named = [step for step in named if MISSING_PATH not in step]
        hints = [f"The message's own hint: {h}" for h in message_hints([root_text, *evidence.root_after])]
        named = [*hints, *_mismatch_step(mismatch), *_short_timeout_step(root_text), *named, *_hang_step(evidence),
                 *_overrides_step(evidence)]
        if doc is not None and choice.by_signature:
            steps = [*named, *doc.remediation[:2], *([frame] if frame else []), *doc.remediation[2:]]
        elif doc is not None:
            # Nearest in wording is a guess: what the log names leads, the doc follows as one
            # reading, and a guess gets one step, not a plan. Across 61 fresh real cases a guessed
            # doc's steps reached the fix once in eleven and caused the harmful advice (a Ray
            # host-OOM plan for a worker that could not register, a stack upgrade for a dtype bug).
            # The caveat rides on the guess itself: a step of its own would take one of the
            # three slots an SRE reads (a blind reader counted it as filler, 71 fresh cases).
            # A guess never sends the SRE to change the installed stack: that costs a rebuild and a
            # failed rerun when the guess is wrong (three of a blind reader's harmful cases, fresh and test).
            step = next((s for s in doc.remediation if not _STACK_CHANGE.search(s)), None)
            guess = [f"If this is '{doc.title}' (only the nearest doc by wording: none of its signatures matched, so "
                     f"confirm with 'Collect next' first): {step}"] if step else []
            steps = [*named, *([frame] if frame else []), *guess, *([] if frame else _reading_step(d))]
        else:
            steps = [*named, *([frame] if frame else []), *([] if frame else _reading_step(d)), *_generic_remediation(d)]
        d.remediation = list(dict.fromkeys(steps))
        d.collect_next = list(doc.collect_next) if doc is not None else _generic_collect(d)
        # The log's own fix comes first: CANN and HCCL print one under the code they explain.
        d.remediation = [*(f"The log's own advice: {a}" for a in evidence.log_advice), *d.remediation]
        seen = "\n".join([*_around(root_text, evidence), *companions])
        d.remediation = [kept for s in d.remediation if (kept := stackdetect.for_stack(s, evidence.stack, seen))]
        d.knowledge = _knowledge_refs(evidence, choice.doc_id)
        d.reasoner = self.name
        return d

    def _first_choice(self, evidence: Evidence, mismatch: str | None) -> _Choice:
        # 1. The fault library: a specific pattern on a failure-indicating event, the root's
        # own matches first (evidence.library is ordered root event first). A pattern an
        # SRE confirmed outranks everything; the shape of the evidence outranks what a doc
        # says about a message that peers print about a lost node.
        # A doc for a message jobs print and go on working explains that line, never the failure.
        library = [m for m in evidence.library if not m.benign]
        decisive = [m for m in library if m.confidence >= LIBRARY_DECISIVE]
        for match in decisive:
            if match.source == "user":
                return _library_choice(match)
        shape = _shape_rule(evidence, mismatch, has_signature=bool(decisive))
        if shape is not None:
            return shape
        # A wrapper ("HCCL error in ...", "PTA call acl api failed") only says a call failed;
        # the code or exception printed beside it names the cause, so a specific doc on any
        # failure-indicating event outranks a wrapper on the root.
        specific = [m for m in library if not _is_wrapper(evidence, m.doc_id)]
        chosen = [m for m in specific if m.confidence >= LIBRARY_DECISIVE] or [
            m for m in specific if m.confidence >= SPECIFIC_BESIDE_WRAPPER and decisive
        ] or decisive
        if chosen:
            return _library_choice(chosen[0])
        # 2. Retrieval over the root event, with the rules' reading of the evidence as one
        # more vote: the nearest documents agree more often than the single nearest one.
        rule = _rules(evidence)
        votes: dict[tuple[str, str], float] = {}
        best_doc: dict[tuple[str, str], str] = {}
        hits = [h for h in evidence.knowledge if not _is_wrapper(evidence, h.id)] or evidence.knowledge
        root_text = _root_text(evidence.diagnosis)
        root_words = _distinctive_words(root_text)
        # A device or link verdict needs the device or link in the log: resemblance in wording
        # is no hardware trace ("Lmod has detected the following error" is not Xid 74's "fatal
        # error detected on link", rcc-uchicago/pedramh-profiling e3sm_train_3166613.e).
        # (A peer's timeout is judged by _wait_alone and the timeout rules instead.)
        beside = "\n".join(_around(root_text, evidence))
        hardware_seen = bool(_HARDWARE_TRACE.search(beside) or _NETWORK_WORDS.search(beside) or lexicon.WAIT.search(root_text))
        for weight, hit in zip(RETRIEVAL_VOTES, hits, strict=False):
            if hit.score < RETRIEVAL_DECISIVE or not _shares_words(root_words, evidence.docs.get(hit.id)):
                continue
            if hit.category == "hardware" and not hardware_seen:
                continue
            key = (hit.category, hit.subcategory)
            votes[key] = votes.get(key, 0.0) + weight * hit.score
            best_doc.setdefault(key, hit.id)
        if rule.category != "unknown":
            key = (rule.category, rule.subcategory)
            votes[key] = votes.get(key, 0.0) + RULE_VOTE
        if not votes:
            return rule
        (category, subcategory), weight = max(votes.items(), key=lambda kv: kv[1])
        doc_id = best_doc.get((category, subcategory))
        if doc_id is None:
            return rule
        title = evidence.docs[doc_id].title if doc_id in evidence.docs else doc_id
        return _Choice(category, subcategory, doc_id, min(0.6, 0.5 * weight), f"resembles '{title}' in wording (no signature of it matched)")


# Retrieval ranks (RRF), so its nearest doc looks near even when it shares one common word
# with the line ("machine" between 'Invalid CUDAPlace(1) ... GPU number on your machine is
# 1' and a machine-check doc). A doc speaks for the line only when it shares its words.
_COMMON_WORDS = (
    "error errors failed failure fail runtime exception warning info traceback file line call called "
    "process rank node device number value code message most recent last"
)
SHARED_WORDS = 2


@functools.cache
def _common_tokens() -> frozenset[str]:
    # Built on first use: tokenizing loads the stemmer, which start-up need not pay for.
    return frozenset(log_tokens(_COMMON_WORDS))


def _distinctive_words(text: str) -> set[str]:
    common = _common_tokens()
    return {t for t in log_tokens(text) if len(t) >= 3 and not t.isdigit() and t not in common}


def _shares_words(root_words: set[str], doc: KnowledgeDoc | None) -> bool:
    if doc is None or not root_words:
        return True  # nothing to compare: the rank stands
    text = " ".join([doc.title, *doc.components, *(sig.example for sig in doc.signatures)])
    return len(root_words & set(log_tokens(text))) >= min(SHARED_WORDS, len(root_words))


def _is_wrapper(evidence: Evidence, doc_id: str | None) -> bool:
    doc = evidence.docs.get(doc_id) if doc_id else None
    return bool(doc is not None and getattr(doc, "wrapper", False))


def _library_choice(match: LibraryMatch) -> _Choice:
    return _Choice(match.category, match.subcategory, match.doc_id, match.confidence, f"matches the known pattern '{match.title}'",
                   by_signature=True)


def _shape_rule(evidence: Evidence, mismatch: str | None, has_signature: bool) -> _Choice | None:
    """Verdicts that rest on the shape of the evidence rather than on the wording of one message."""
    d = evidence.diagnosis
    extraction = evidence.extraction
    if extraction is not None and extraction.nodes and extraction.events:
        suspect = extraction.nodes[0].node
        own_events = any(suspect in e.nodes for e in extraction.events)
        root = extraction.events[0]
        # Every other node printing the same failure while the quiet one printed nothing, and
        # waiting on something, is the peers' side of one lost node too, whatever the root's
        # wording: torch_npu heads each peer's HCCL timeout with "[ERROR] ... ERR02200 DIST call
        # hccl api failed." (hiyouga/LlamaFactory#3839). Without a wait, every rank raising the same
        # KeyError is the script, and the quiet one is a process that had nothing to say.
        waited = any(e.role_kind == "wait" for e in [*extraction.events, *extraction.cascades])
        everyone_else = waited and bool(evidence.nodes) and set(evidence.nodes) - {suspect} <= set(root.nodes)
        # Peers' timeouts that name it (not only the root's) while the root itself is a wait: HCCL's
        # "EI0006: ... Getting socket times out. Reason: Remote Rank did not send the data" on two
        # peers of a node that stopped logging (a blind author's job).
        machine = machines(extraction.mined) if extraction.mined is not None else {n: n for n in evidence.nodes}
        blamed = extraction.blame is not None and named_enough(extraction.blame, suspect, machine)
        lost = suspect in extraction.named_by_peers or (
            suspect in extraction.timeline.silent_nodes and (root.role_kind in ("wait", "teardown") or everyone_else)
        ) or (blamed and root.role_kind == "wait" and waited)
        if lost and not own_events:
            # Peers report losing it and it reports nothing itself: the node went down (the
            # paper's missing heartbeat), whatever the peers' messages call it.
            return _Choice("hardware", "node", None, 0.45, f"points at {suspect}, which went quiet while its peers reported losing it")
    if mismatch is not None:
        return _Choice("user", "script_bug", "collective-mismatch-across-ranks", 0.6,
                       f"shows ranks running different collectives ({mismatch})", by_signature=True)
    text = _root_text(d)
    if _VANISHED.search(text) and any(_PATH_CHANGE.search(line) for line in evidence.root_before[-PATH_CHANGE_LINES:]):
        return _Choice("framework", "framework_bug", RACE_DOC, 0.6,
                       "is a delete or rename that found its own target gone: another process (another rank running the "
                       "same code) removed it in between", by_signature=True)
    for match in _TIMEOUT_VALUE.finditer(text):
        seconds = float(match.group(1)) / 1000.0
        if seconds < SHORT_TIMEOUT_SECONDS:
            return _Choice("user", "configuration", None, 0.4,
                           f"reports a timeout of {seconds:g} s, far below the stack's default, so the wait itself was likely normal")
    checked = _checked_text(text, evidence)
    # An assertion the job's own script raised is the job's check, not the framework's invariant.
    innermost = frames(traceback_above(evidence.root_before))[-1:]
    own_code = bool(innermost) and innermost[0].package is None
    internal_assert = _ASSERTION.search(text) and not _ARGUMENT_CHECK.search(checked) and not has_signature and not own_code
    if internal_assert:
        return _Choice("framework", "framework_bug", None, 0.4, "is an internal assertion of the framework, not a check of the user's input")
    return None


# The collective a timed-out task was running, with what identifies its place in the sequence:
# HCCL's task tag names the op and the communicator ("tag[AllReduce_127.10.0.1%enp_60000_0_1761275812718970]",
# hicann/hccl fault-diagnosis guide, task_exec_stage.md); PyTorch's watchdog names the sequence
# number and op ("WorkNCCL(SeqNum=1520, OpType=ALLREDUCE, ...)").
_HCCL_TASK_TAG = re.compile(r"tag\[(?:Hccl)?(?P<op>[A-Za-z]+)_(?P<comm>[^\]]+)\]")
_NCCL_WORK = re.compile(r"SeqNum=(?P<seq>\d+), OpType=_?(?P<op>[A-Z_]+?)(?:_BASE|_COALESCED)?\b")


def _mismatched_collectives(evidence: Evidence) -> str | None:
    """Ranks that stopped in different collectives at the same place in one communicator's
    sequence called different collectives: the code took different paths on different ranks
    (rank0's AllReduce against rank1's AllGather in one group, both timing out, hicann/hccl
    task_exec_stage.md). A rank that is merely late stops in the same op as the others.
    Returns what disagreed ("AllGather and AllReduce in one communicator"), else None."""
    # Raw lines only: a template masks the communicator, and two groups timing out in
    # different ops after one rank died would read as one group disagreeing with itself.
    texts = [o.text for e in evidence.diagnosis.events for o in e.occurrences]
    at: dict[str, set[str]] = {}
    for text in texts:
        for m in _HCCL_TASK_TAG.finditer(text):
            at.setdefault(f"communicator {m.group('comm')}", set()).add(m.group("op"))
        for m in _NCCL_WORK.finditer(text):
            at.setdefault(f"sequence number {m.group('seq')}", set()).add(m.group("op").replace("_", "").lower())
    for place, ops in at.items():
        if len(ops) > 1:
            where = "in one communicator" if place.startswith("communicator") else "at one sequence number"
            return f"{' and '.join(sorted(ops))} {where}"
    return None


def _mismatch_step(found: str | None) -> list[str]:
    if found is None:
        return []
    return [f"The ranks stopped in different collectives ({found}): find where the code branches on the rank or on "
            "its data (a condition on rank, an early exit, uneven batches per rank) and make every rank "
            "issue the same collectives in the same order; raising the timeout will not help."]


_NOT_FOUND = re.compile(r"(?i)no such file|not found|does not exist|transport endpoint is not connected")
_DEVICE_REPORT = re.compile(r"NVRM: Xid|\bXid \d+\b")


def _refine(choice: _Choice, evidence: Evidence) -> _Choice:
    """Where the fault sits settles what its wording leaves open: every rank runs the same
    code and reads the same paths, so a code or path error confined to some nodes points at
    those nodes' device or mounts rather than at the job's code or arguments."""
    extraction = evidence.extraction
    text = _root_text(evidence.diagnosis)
    waited = _wait_alone(choice, evidence, text)
    if waited is not None:
        return waited
    absent = _ABSENT_PACKAGE.search(text)
    if absent and (choice.category, choice.subcategory) == ("user", "software_incompatibility") and not _names_module(
            evidence.docs.get(choice.doc_id) if choice.doc_id else None, absent.group(1)):
        # A package missing as a whole is not installed where the job ran (the environment
        # was not activated, CANN's set_env.sh not sourced); a version mismatch shows as a
        # missing piece of a package that is there ("No module named 'vllm.lora.lora_model'").
        return replace(choice, category="user", subcategory="configuration",
                       why=f"{choice.why}; '{absent.group(1)}' is missing as a whole, so the job ran outside the environment that has it")
    setup = _setup_reading(choice, evidence, text)
    if setup is not None:
        return setup
    # A user verdict resting only on a doc's wording yields to the frames too, unless the message
    # checks an argument or reports input the job gave that does not parse (a task YAML with a
    # syntax error is raised inside the yaml package, THUDM/GLM-130B eval logs).
    guessed_user = (choice.category == "user" and not choice.by_signature and choice.doc_id is not None
                    and choice.subcategory in ("configuration", "script_bug")
                    and not _ARGUMENT_CHECK.search(_checked_text(text, evidence)) and not _INPUT_PARSE.search(text))
    if (choice.category, choice.subcategory) == ("user", "script_bug") or guessed_user:
        stack = [] if _user_frame_in_original(evidence.root_after) else _stack_only_frames(evidence.root_before)
        if stack and rejected_input(traceback_above(evidence.root_before)):
            return replace(choice, category="user", subcategory="configuration", doc_id=None, by_signature=False,
                           why=f"{choice.why}; {stack[-1]} raised it on purpose, rejecting a value the job gave it")
        if stack:
            # The user-code doc's steps ("fix your code") no longer apply: the frames lead.
            return replace(choice, category="framework", subcategory="framework_bug", doc_id=None, by_signature=False,
                           by_frames=True, why=f"{choice.why}; but no frame of the traceback is in the job's own script: every one is in "
                               f"the installed stack ({', '.join(stack)}), so the bug is there or in how it was combined")
    machines = {_machine_of(n) for n in evidence.nodes}
    if extraction is None or not extraction.events or len(machines) < 2:
        return choice
    root = extraction.events[0]
    confined = extraction.scope == "node_local" and 0 < len({_machine_of(n) for n in root.nodes}) < len(machines)
    if not confined:
        return choice
    # Every rank runs the same code and the same kernels: a fault only one GPU reported is that GPU's.
    code_fault = (choice.category, choice.subcategory) in (("user", "script_bug"), ("framework", "framework_bug"))
    if code_fault and _DEVICE_REPORT.search(text) and len(root.nodes) == 1:
        return _Choice("hardware", "accelerator", choice.doc_id, choice.confidence,
                       f"{choice.why}, but only {root.nodes[0]}'s GPU reported it while every rank ran the same code")
    if choice.category == "user" and choice.subcategory in ("configuration", "misoperation") and _NOT_FOUND.search(text):
        return _Choice("platform", "resource_management", choice.doc_id, choice.confidence,
                       f"{choice.why}, but the path is missing on {len(root.nodes)} of {len(evidence.nodes)} nodes only, so their mounts differ")
    return choice


def _checked_text(text: str, evidence: Evidence) -> str:
    """A bare "AssertionError" says what failed in the statement above it ("assert num_samples > 0")."""
    statement = statement_above(evidence.root_before)
    return text if text.strip() != "AssertionError" or statement is None else f"{text} {statement}"


# A parser's complaint about a file the job gave it: "yaml.scanner.ScannerError: while scanning a
# simple key" (THUDM/GLM-130B eval log), "json.decoder.JSONDecodeError: Expecting value".
_INPUT_PARSE = re.compile(r"ScannerError|ParserError|JSONDecodeError|TOMLDecodeError|ParseError|UnicodeDecodeError")


def _stack_only_frames(before: list[str]) -> list[str]:
    """The packages of the root's traceback when every frame outside Python's own library is in
    the installed stack or a framework checkout (none in the job's own script); else []. A
    programming error raised with no frame of the user's code on the stack is not a bug in
    the user's script: verl's reward code called on the wrong device ("verl/trainer/ppo/core_algos.py"),
    vLLM handed a numpy array by verl (verl-project/verl#772)."""
    packages: list[str] = []
    for frame in frames(traceback_above(before)):
        if frame.package == STDLIB:
            continue  # Python's own library says nothing about whose code failed
        if frame.package is None:
            return []
        if frame.package not in packages:
            packages.append(frame.package)
    return packages


def _user_frame_in_original(after: list[str]) -> bool:
    """Whether the worker's own traceback, which PyTorch prints under a relayed exception
    ("IndexError: Caught IndexError in DataLoader worker process 4." then "Original Traceback (most
    recent call last):", torch/_utils.py ExceptionWrapper), has a frame of the job's own code: the
    frames above the relay are only the main process's way into the DataLoader."""
    header = next((i for i, line in enumerate(after)
                   if "Original Traceback (most recent call last)" in lexicon.unprefixed(line)), None)
    if header is None:
        return False
    return any(f.package is None for f in frames(list(frame_run(after[header + 1 :]))))


def _names_module(doc: KnowledgeDoc | None, module: str) -> bool:
    """The doc's own signature names the module: it knows why that piece is missing (apex's
    'fused_layer_norm_cuda' is an extension apex was built without, NVIDIA/apex#156), which
    outranks the general reading of a missing top-level package."""
    return doc is not None and any(module in sig.regex for sig in doc.signatures)


# Real: "ModuleNotFoundError: No module named 'torch'" (a Slurm job whose conda env was missing,
# Mattias421/tdmolflow slurm-3681956.out); "No module named 'acl'" (CANN not sourced, MindSpeed-MM FAQ).
_ABSENT_PACKAGE = re.compile(r"No module named '([A-Za-z_]\w*)'")

# Words by which a network fault names itself; a timeout without them names no broken link.
# Real: "NCCL WARN NET/IB : Got completion from peer 10.216.210.236<54862> with status=12"
# (knowledge/cuda/nccl-ib-completion-error-12-retry-exceeded.md), "Connection refused", "Socket Timeout".
_NETWORK_WORDS = re.compile(r"NET/IB|\bIB\b|\bRoCE\b|\bibv_|\bGID\b|(?i:completion from peer|connection (?:refused|reset|closed)|"
                            r"\bsocket\b|link (?:down|flap)|port (?:down|error)|unreachable)")


def _wait_alone(choice: _Choice, evidence: Evidence, root_text: str) -> _Choice | None:
    """A collective that timed out says only that some rank did not arrive, not that a link
    broke: broken links name themselves. On the first collectives the ranks could not reach
    each other as configured; later one rank was busy with work the others waited out."""
    extraction = evidence.extraction
    if extraction is None or not extraction.events or not (extraction.events[0].role_kind == "wait" or _decided_by_wait(choice, evidence)):
        return None
    # "Beside it": the root's own line or any reported event, as NCCL's "NET/IB : Got completion
    # from peer ... status=12" under a peer's "DistBackendError: ... remote process exited or
    # there was a network error" (independent corpus F, f34).
    beside = [root_text, *(o.text for event in evidence.diagnosis.events for o in event.occurrences[:1])]
    if (choice.category, choice.subcategory) != ("hardware", "network") or any(_NETWORK_WORDS.search(t) for t in beside):
        return None
    if evidence.diagnosis.stage == "init":
        return replace(choice, category="platform", subcategory="platform_configuration",
                       why=f"{choice.why}; a timeout on the first collectives, with no network error, points at how "
                           "the ranks were told to reach each other")
    return replace(choice, category="user", subcategory="configuration",
                   why=f"{choice.why}; with no network error beside it, the others waited out one rank's long work "
                       "(preprocessing, evaluation, saving) or a timeout too short for it")


def _decided_by_wait(choice: _Choice, evidence: Evidence) -> bool:
    """The verdict's doc matched only a wait printed beside a root that merely reports a failed
    call: torch_npu's "ERR00100 PTA call acl api failed" over CANN's "hccl fftsplus task timeout"
    (Ascend/pytorch#43, ranks waiting out rank 0's dataset preprocessing)."""
    extraction = evidence.extraction
    events = evidence.diagnosis.events
    if not choice.by_signature or extraction is None or not events or not evidence.wrapped_only(events[0]):
        return False
    samples = {t for m in evidence.library if m.id == choice.doc_id for t in m.samples}
    matched = [cand for event, cand in zip(events, extraction.events, strict=False)
               if any(o.text in samples for o in event.occurrences)]
    return bool(matched) and all(cand.role_kind == "wait" for cand in matched)


# A device or link that broke names itself: Xid, ECC, a port or link going down.
_HARDWARE_TRACE = re.compile(r"(?i)\bXid\b|\becc\b|uncorrectable|fallen off the bus|link (?:is )?down|port (?:is )?down|"
                             r"\bNET/IB\b.{0,60}(?:error|fail)|hardware error|\bmce\b|\bibv_|\bCQE\b|\bRoCE\b|heartbeat|"
                             r"nvlink|\bpcie\b|\baer\b|thermal|throttl|\bhbm\b|aicore|device (?:is )?lost|lost device|"
                             r"not responding|node fail|\bsxid\b|retired pages|row remap|link quality|retransmi|pcs_err|"
                             r"crc err|symbol.?err|port_rcv_err|link_?downed")


def _setup_reading(choice: _Choice, evidence: Evidence, root_text: str) -> _Choice | None:
    """A generic error while the job was still setting up, with no hardware trace beside it,
    is how the job or its container was set up: devices that served the last job rarely break
    in the first second of this one (the doc's ``setup_reading`` says what it then means)."""
    doc = evidence.docs.get(choice.doc_id) if choice.doc_id else None
    reading = getattr(doc, "setup_reading", None)
    if not reading or evidence.diagnosis.stage != "init":
        return None
    beside = _around(root_text, evidence)
    if _HARDWARE_TRACE.search("\n".join(beside)) or peers_in(beside):
        return None  # a broken device, or one machine its peers could not reach
    category, _, subcategory = reading.partition("/")
    return replace(choice, category=category, subcategory=subcategory,
                   why=f"{choice.why}; printed while the job was setting up, with no device or link error beside it, "
                       "it points at how the job was set up")


# Slurm's --output/--error (job_%j.out beside job_%j.err) are two streams of one job, not two
# machines: nanovlm_train_2844512.out and nanovlm_train_2844512.err (EPFL izar nanoVLM homework);
# so are e3sm_train_3190856.e and .o, and PBS's e3sm_sfno_train.o5808053 and .e5808053
# (rcc-uchicago/pedramh-profiling).
_STREAM_SUFFIX = re.compile(r"(?i)[._-](?:err|out|stderr|stdout|error|output|e|o)(?=\d*$)")


# Paddle's launcher writes one workerlog.N per local rank into its log directory, so the
# workerlogs of one directory are one machine's ranks (simuler/ESPNet workerlog.0 and .1: rank
# 1 asked for a GPU the machine lacked, rank 0 for a config file that was not there).
_LOCAL_RANK_LOG = re.compile(r"(?<![^/])workerlog\.\d+$")


def _machine_of(node: str) -> str:
    return _LOCAL_RANK_LOG.sub("workerlog", _STREAM_SUFFIX.sub("", node))


def _around(root_text: str, evidence: Evidence) -> list[str]:
    """The root's line with the traceback above it and the message's rest below it."""
    return [root_text, *evidence.root_before, *evidence.root_after]


def _root_text(d: Diagnosis) -> str:
    if not d.events:
        return ""
    event = d.events[0]
    return event.occurrences[0].text if event.occurrences else event.template


def _rules(evidence: Evidence) -> _Choice:
    d = evidence.diagnosis
    text = " ".join(_root_text(d) for _ in range(1)) + " " + " ".join(e.template for e in d.events[1:3])
    extraction = evidence.extraction
    if extraction is not None and not d.events and extraction.timeline.silent_nodes:
        return _Choice("hardware", "node", None, 0.4, "a node stopped logging while its peers waited on it")
    rule = first_rule(text)
    if rule is not None:
        return _Choice(rule.category, rule.subcategory, None, 0.3, f"reads as {rule.category}/{rule.subcategory} by its wording")
    if extraction is not None and extraction.scope == "global" and d.symptom == "launching_failure":
        return _Choice("user", "configuration", None, 0.25, "failed the same way on every rank before training")
    return _Choice("unknown", "unknown", None, 0.1, "is explained by no known pattern or document")


def _root_cause(evidence: Evidence, d: Diagnosis, title: str | None, why: str) -> str:
    if not d.events:
        if d.faulty_nodes:
            return f"No failure-indicating message stood out; {d.faulty_nodes[0].display} is suspected because {d.faulty_nodes[0].reason}."
        return "No failure-indicating message stood out in the logs; see collect_next for what to gather."
    event = d.events[0]
    where = (
        f"on {d.faulty_nodes[0].display}"
        if d.faulty_nodes and any(o.node == d.faulty_nodes[0].node for o in event.occurrences)
        else f"on {len({o.node for o in event.occurrences})} node(s)"
    )
    when = f"during {d.stage}" + (f" (iteration {d.iterations[0]})" if d.iterations else "")
    first = event.occurrences[0] if event.occurrences else None
    cite = f" ({first.node}:{first.line})" if first else ""
    line = _root_text(d).strip()
    if len(line) > 160:
        line = line[:157] + "..."
    sentence = f"The first failure-indicating message {where} {when}{cite} was: {line}"
    return sentence + (f" — it {why}." if title else f"; it {why}.")


# NCCL reports each setting the job changed from its defaults: "NCCL INFO NCCL_NET_GDR_LEVEL set
# by environment to PHB" (argonne-lcf/alcf-nccl-tests, pytests/VAE with_aws.log: every rank then timed
# out in its first broadcast across nodes, and the same job without the setting trained).
_NCCL_OVERRIDE = re.compile(r"\b(NCCL_[A-Z0-9_]+) set by environment to (\S+)")
MAX_OVERRIDES = 6


def _overrides_step(evidence: Evidence) -> list[str]:
    """A collective that timed out with no error of its own: the NCCL settings the job changed
    from their defaults are the first suspects, named as the log printed them."""
    extraction = evidence.extraction
    if extraction is None or extraction.mined is None or not extraction.events or extraction.events[0].role_kind != "wait":
        return []
    found: dict[str, str] = {}
    for log in extraction.mined.nodes.values():
        for samples in log.samples.values():
            for text in samples:
                if (m := _NCCL_OVERRIDE.search(text)) and m.group(1) not in found:
                    found[m.group(1)] = m.group(2).rstrip(".,;")
    if not found:
        return []
    listed = ", ".join(f"{k}={v}" for k, v in list(found.items())[:MAX_OVERRIDES])
    return [f"The job changed NCCL settings from their defaults ({listed}, as NCCL logged them): with no error "
            "of its own behind the timeout, rerun once without them, or with the values the cluster documents, to "
            "see whether one of them stalls the collectives."]


def _short_timeout_step(root_text: str) -> list[str]:
    """A collective that timed out after a wait set far below the stack's default: the setting
    is the fault, so the step names it ("Timeout(ms)=1", instructlab/training#520)."""
    for match in _TIMEOUT_VALUE.finditer(root_text):
        seconds = float(match.group(1)) / 1000.0
        if seconds < SHORT_TIMEOUT_SECONDS:
            return [f"The collective waited only {seconds:g} s (Timeout(ms)={match.group(1)}), far below PyTorch's default of "
                    "600 s: find where the job sets it (the timeout given to init_process_group, or the framework's or "
                    "launcher's timeout option) and restore the default, or a value longer than the slowest step, "
                    "evaluation or checkpoint save."]
    return []


def _hang_step(evidence: Evidence) -> list[str]:
    """A job that stopped progressing long before it ended hung: whatever ended it (a time
    limit, a watchdog) only ended the hang, so the hang is what to debug."""
    extraction = evidence.extraction
    if extraction is None or not extraction.events:
        return []
    timeline, root = extraction.timeline, extraction.events[0]
    ended_by_wait = (root.role_kind in ("wait", "teardown") or lexicon.names_stop_reason(root.template)
                     or not lexicon.has_error_words(root.template))
    if not ended_by_wait or not timeline.hang or timeline.hang_seconds < HANG_STEP_SECONDS:
        return []  # a crash ends a job by itself; only a stop or a timeout can end a hang
    at = f" after iteration {timeline.last_iteration}" if timeline.last_iteration >= 0 else ""
    return [f"The job logged no progress{at} for {timeline.hang_seconds / 60:.0f} min before it ended: it hung, and "
            "what ended it only ended the hang. Find what the ranks were waiting on (py-spy dump of every rank, the "
            "NCCL/HCCL flight recorder, each rank's last lines) before raising a time limit or timeout."]


# Steps that change what is installed: worth their cost only when a signature says so.
_STACK_CHANGE = re.compile(r"(?i)\b(?:upgrade|downgrade|reinstall|re-install|rebuild|pin)\b|\b(?:pip|conda) install\b")


# What each reading asks of the SRE when no document gives the fix: where the fix lives for that
# kind of fault. A blind reader graded the bare "read the evidence" step as no help on 60 dev cases
# whose own docs were hidden (benchmarks/knowledge_holdout.py --advice).
_READING_STEPS = {
    ("framework", "framework_bug"): "This reads as a bug in the installed framework or library, not in the job's settings: "
        "search its issue tracker and release notes for this exact message, move to the release that fixes it (or back to "
        "the last one that worked for this job), and report it with the full traceback if nobody has.",
    ("user", "software_incompatibility"): "This reads as components from releases that do not fit together: list what is "
        "installed (`pip list`, the CUDA or CANN toolkit, the driver) and install the combination the project pins or "
        "documents; a recent upgrade of any of them is the first suspect.",
    ("user", "configuration"): "This reads as a value the job was given: find the argument, config key or environment "
        "variable the message names, compare it with what the code or its docs accept, fix it and rerun on one node first.",
    ("user", "script_bug"): "This reads as the job's own code: fix it where the traceback's last frame in the job's "
        "checkout points, then rerun on one process to confirm.",
    ("user", "misoperation"): "This reads as how the job was run: check for leftovers of an earlier run (processes still "
        "holding devices or ports, stale output or lock files) and for paths or permissions of the launching user.",
    ("platform", "resource_management"): "A limit of the node or container ran out (memory, disk, shared memory, open "
        "files, quota): check that limit on the failing node and raise it, or make the job use less.",
    ("platform", "scheduling"): "The scheduler or cluster stopped the job: read its own record of why (`sacct -j JOB`, "
        "`kubectl describe`), then request more time or priority, or resume from the last checkpoint.",
    ("platform", "platform_configuration"): "This reads as the cluster's setup (network interfaces, container runtime, "
        "drivers, mounts): compare the setting the message names with the platform's documented configuration on the "
        "failing node.",
}


def _reading_step(d: Diagnosis) -> list[str]:
    step = _READING_STEPS.get((d.category, d.subcategory))
    return [step] if step else []


def _generic_remediation(d: Diagnosis) -> list[str]:
    """Steps when no doc explains the root: no catalogue fix is guessed; a machine is only
    suspected when the verdict is about hardware and the logs name one."""
    steps = []
    if d.category == "unknown":
        steps.append("Nothing in these logs names a cause l4 knows: gather what 'Collect next' lists before changing the job.")
    suspect = d.faulty_nodes[0] if d.faulty_nodes else None
    if suspect is not None and d.category in ("hardware", "unknown") and (suspect.aliases or len(d.faulty_nodes) > 1):
        steps.append(f"Check {suspect.display} first (dmesg, device health, NIC counters); drain it only if a check fails.")
    steps.append("Read the evidence lines above in context (`l4 ask JOB \"window NODE:LINE\"`).")
    if d.category != "unknown":
        steps.append("Restart from the last good checkpoint once the cause is fixed.")
    return steps


def _generic_collect(d: Diagnosis) -> list[str]:
    """What to gather when no doc says: the machine's own logs only for a fault that may sit in the machine."""
    if d.category == "user":
        out = ["The exact launch command, config files and arguments the ranks ran with, and the code revision (`git rev-parse HEAD`)."]
        if d.subcategory == "software_incompatibility":
            out.append("Versions in the job's environment: `pip list` (torch, the framework, CUDA/CANN libraries) against the project's pinned requirements.")
        return out
    out = ["Kernel log of the suspect node(s): `dmesg -T` or `journalctl -k` around the failure time."]
    if d.symptom == "abnormal_behavior":
        out.append("Per-rank stack dumps of the hung processes (`py-spy dump --pid PID`) and NCCL/HCCL flight-recorder dumps.")
    out.append("The job's launch command and environment (parallel sizes, NCCL_*/HCCL_* variables).")
    return out


def _knowledge_refs(evidence: Evidence, chosen: str | None) -> list[KnowledgeRef]:
    refs: dict[str, KnowledgeRef] = {}
    for match in evidence.library:
        doc_id = match.doc_id
        if doc_id and doc_id not in refs:
            refs[doc_id] = KnowledgeRef(id=doc_id, title=match.title, score=round(match.confidence, 3))
    for hit in evidence.knowledge:
        if hit.id not in refs:
            refs[hit.id] = KnowledgeRef(id=hit.id, title=hit.title, score=round(hit.score, 3))
    ordered = sorted(refs.values(), key=lambda r: (r.id != chosen, -r.score))
    return ordered[:MAX_KNOWLEDGE]
