"""Message shapes every distributed-training stack shares, by role.

These are facts about PyTorch/NCCL/HCCL/launchers in general (a watchdog timeout is a
consequence; a Python stack frame is context), not about any one log producer. They only
*lower* an event's rank; selection itself rests on novelty, locality and timing, so an
unknown format degrades gracefully instead of failing.
"""

from __future__ import annotations

import re

from ..scan import unprefixed as _launcher_unprefixed

# kubectl logs --timestamps puts the RFC 3339 time before every line the container wrote, a traceback's
# frames and source lines too ("2025-03-17T07:21:39.050083Z   rank      : 15 (local_rank: 7)", a pod of
# independent corpus I); a time at the head of a line says when, never what the line is.
_LINE_STAMP = re.compile(r"^\s*(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)|<TS>) ")


def unprefixed(text: str) -> str:
    """The line without its launcher's prefix (``[rank3]:``, ``[1,3]<stdout>:``, Ray's ``(pid=..)``)
    and without a bare time before it."""
    text = _launcher_unprefixed(text)
    stamp = _LINE_STAMP.match(text)
    return _launcher_unprefixed(text[stamp.end():]) if stamp else text

# Waiting on or losing a peer: usually a consequence, but a timeout can be the first sign
# (a connect that never succeeds), so these stay eligible as roots.
WAIT = re.compile(
    r"(?i)("
    r"time[sd]?[ _-]?out|timeout|watchdog|deadline exceeded|"
    r"connection (reset|refused|closed)|closed by (remote )?peer|broken pipe|remote (process|peer|rank)|"
    r"peer .{0,40}(exited|closed|unreachable|lost|disconnect)|(exited|disconnected) unexpectedly|"
    # Ray reports an actor it lost, whatever killed it: "ray.exceptions.RayActorError: The actor
    # died unexpectedly before finishing this task." beside slurmstepd's oom-kill (ray-project/ray#14394).
    r"\bactor died unexpectedly|"
    # ... or relays the exception its constructor raised, printed above it: "ray.exceptions.ActorDiedError:
    # The actor died because of an error raised in its creation task" (verl-project/verl PR #5687 log,
    # below the worker's "AssertionError: ppo_mini_batch_size 0 should be larger than 0").
    r"\bactor died because of an error raised in its creation task|"
    r"notify wait|wait(ing)? for .{0,40}(rank|peer|process)|barrier|"
    r"failed to (send|recv|receive)|(send|recv) failed|"
    r"\bcommunicator\b.{0,20}abort|ncclRemoteError|nccl .{0,20}error.{0,30}remote"
    r")"
)

# The job being torn down after the fact: signals, launcher summaries, process-group aborts.
TEARDOWN = re.compile(
    r"(?i)("
    r"sigterm|sigkill|signal ?(9|15)\b|signals?\.SIG|closing signal|received signal|got signal|"
    r"killing (process|worker|rank)|sending process .{0,30} (closing|kill)|"
    r"childfailed|exitcode|exit code|exit status|"
    r"aborting|abort(ed)? (the )?(job|communicator|process group)|job step aborted|"
    r"(taking|take|bring(ing)?) (the )?(entire )?process down|"
    r"elastic.{0,40}(fail|error|stop|shut)|rendezvous .{0,20}(closed|shutdown)|shutting down|teardown|stopping (the )?job|"
    r"terminat(e|ed|ing) (called|the|all|worker|process)|worker group .{0,20}(fail|stop)|"
    # The shell reporting SIGABRT after the message that caused it ("terminate called after
    # throwing an instance of 'gloo::IoException' / what(): ... Connection refused / Aborted
    # (core dumped)", pytorch/pytorch#15592).
    r"\baborted \(core dumped\)|^\s*aborted\s*$|"
    # Python reporting, as the interpreter shuts down, an exception a finalizer raised and it could
    # not pass on: "Exception ignored in: <function ResourceTracker.__del__ at 0x7fb7cf1f4fe0>" after
    # Ray killed a worker for host memory (HappynessI/verl-for-AgentGym textcraft GRPO log).
    r"^\s*Exception ignored in:"
    r")"
)
IGNORED_EXCEPTION = re.compile(r"^\s*Exception ignored in:")

# Launcher and job-control words that are written in capitals when they report teardown.
TEARDOWN_CAPS = re.compile(r"\bFAILED\b|\bKILLED\b|\bSIGTERM\b|\bSIGKILL\b|\bCANCELLED\b|\bABORTED\b")

# Someone outside the job stopped it: a scheduler, the cluster, an operator. torchrun's agent
# says so when a signal reaches it rather than its workers: "Received Signals.SIGTERM death
# signal, shutting down workers" is what a preempted NeMo job logs (NVIDIA NeMo docs,
# PreemptionCallback); older torch prints "Received 15 death signal".
EXTERNAL_STOP = re.compile(r"(?i)evict|preempt|\bdrain|cancel|time limit|node fail|kubelet|slurmstepd|\bdeath signal\b")

# Context printed around an error, never the error itself.
CONTEXT = re.compile(
    r"(?i)("
    r"^\s*traceback \(most recent call last\)|^\s*file \".*\", line|^\s*File <|^\s*[\^~]+\s*$|"
    r"^\s*frame #|<unknown function>|^\s*[\w.]+\($|"
    r"^\s*[=\-*#~]{8,}\s*$|^\s*\[<NUM>\]:?\s*$|^\s*<NUM>:\s*$|^\s*(time|host|rank|exitcode|error_file|traceback|local_rank|pid)\s*:|"
    r"root cause \(first observed failure\)|^\s*failures:|no_other_failures|"
    r"to enable traceback|see https?://|^\s*\[\d+\]:\s*$|^\s*raise |^\s*return |^\s*<\*>\s*$|"
    r"during handling of the above exception|the above exception was the direct cause|"
    # Hydra's header above the traceback of whatever ended the job: it names the overrides, not
    # the error ("Error executing job with overrides: ['algorithm.adv_estimator=grpo', ...]",
    # verl-project/verl#3828; linfeng-du/direct-preference-optimization's SFT run).
    r"^\s*Error executing job with overrides:|"
    # ... and its footer below it, which asks for the full trace ("Set the environment variable
    # HYDRA_FULL_ERROR=1 for a complete stack trace.", mjvolk3/torchcell delta_deepset Slurm output).
    r"HYDRA_FULL_ERROR=(?:1|<NUM>) for a complete stack trace|"
    # Python's threading prints a header above an uncaught exception's traceback; the exception
    # the traceback ends in is the error ("Exception in thread Thread-2:" above a DataLoader
    # thread's traceback, JFrankLee/AI PaddleSeg train log).
    r"Exception in thread [\w.<>-]+(?: \([\w.<>-]+\))?:\s*$|"
    r"TORCH_USE_CUDA_DSA|CUDA_LAUNCH_BLOCKING|ASCEND_LAUNCH_BLOCKING|might be asynchronously reported|"
    r"^\s*Exception raised from .{0,200}\(most recent call first\)|^\s*\[frame (<NUM>|\d+)\]|^\s*Stacktrace \((<NUM>|\d+) entries\)|"
    # A call on a line of its own is a frame; MPICH's error stack ("MPID_nem_tcp_init(379)....:
    # gethostbyname failed, HW-AI-LC-1-1 (errno 2)", hicann/oam-tools HCCL Test FAQ) is not.
    r"^\s*\w+(\.\w+)*\((?!(?:\d+|<NUM>)\)\.*:).*\)\s*$|"
    # unittest's heading above each failing test's traceback, whose exception line says what
    # failed: "ERROR: test_autograd_backward (__main__.TestMode)" (Ascend torch_npu fault-mode
    # troubleshooting example, benchmarks/real asc-c-torchnpu-ts-inplace-autograd)
    r"^\s*(ERROR|FAIL): test\w* \([\w.]+\)\s*$|"
    # MindSpore heads each part of its error report with a title line; the part's own lines
    # below it carry the error: "- Ascend Error Message:" above "E39999: Inner Error! ... load
    # aicpu ops package failed" (mindspore-lab/mindocr FAQ), "- Dataset Pipeline Error Message:",
    # "- C++ Call Stack: (For framework developers)" (MindSpore's error format).
    r"^\s*\\?-\s?[A-Z][\w+ ]{0,40}(?:Error Message|Call Stack):(?:\s*\(For framework developers\))?\s*$|"
    # MindSpore's import-time package check reports what it could not verify and lets the job go
    # on; the job's own failure comes later: "[ERROR] ME(...):... [mindspore/run_check/_check_version.py:388]
    # CheckFailed: cannot import name 'utils' from partially initialized module 'tbe.common'" above
    # "Malloc device memory failed ... may be other processes occupying this card" (mindspore-lab/models
    # LPCNet eval.log); its WARNINGs above a device-address error (mindspore-lab/mindocr FAQ).
    r"\[mindspore/run_check/_check_version\.py:(?:\d+|<NUM>)\]|"
    # A shell's xtrace echo of the command it is about to run is the job's input, however
    # many error words its arguments carry: "+ docker exec -it --env=CP ... --env=HYDRA_FULL_ERROR"
    # (mlcommons/training_results_v4.0, Red Hat llama2_70b_lora result log)
    r"^\+{1,4} \S|"
    # A row of a status table (nvidia-smi's, printed at job start) is state, not a message; its
    # header names "Uncorr. ECC" on every healthy machine: "| GPU  Name  Persistence-M | Bus-Id
    # Disp.A | Volatile Uncorr. ECC |" (rcc-uchicago/pedramh-profiling, e3sm_train_3166315.o).
    # A failing GPU shows "ERR!" in its row, which stays a candidate.
    r"^\s*\|(?!.*ERR!).*\|\s*$|"
    # So is a table's header row of column names (kubectl's "NAME  QUEUE  RESERVED IN  ADMITTED
    # FINISHED  AGE", aws-samples/awsome-distributed-training Kueue preemption README), and
    # py-spy's heading above one thread's stack ('Thread 1439102 (idle): "MainThread"',
    # bigscience-workshop/bigscience tr11 chronicles): the frames under it show where it waits.
    r"^\s*NAME(?:\s+[A-Z][A-Z-]*){4,}\s*$|^\s*Thread (?:\d+|<NUM>) \((?:idle|active)[^)]*\): \"[^\"]*\"\s*$"
    r")"
)

# Indented source lines under a traceback frame ("    return f(x)") keep their indentation
# only in the raw text. C++'s terminate handler indents the exception's message too, and that
# is the message: "  what():  [enforce fail at ...] ifa != nullptr. Unable to find address
# for: eth0" (horovod/horovod#1341).
# An indented line is a traceback's source line, unless it is an exception's message: a log
# pasted with an indent keeps its shape ("  TypeError: must be real number, not NoneType" in
# a commit message's two-space indented traceback, bytedance/byteps 10dad881). Source code never
# reads "Name: message". Indentation is spaces and tabs: tqdm starts each redraw with a carriage
# return ("\r  0%|    | 0/2281 [00:00<?, ?it/s", pedramh-profiling e3sm_train_3167436.e).
# A native backtrace's frames (glibc backtrace_symbols, Open MPI's signal handler) are the crash
# report, not the program's work: "[ 3] /user-environment/.../libmpi.so.40(NBC_Progress+0x164)
# [0x400029a97bd4]", "[ 8] .../osu_iallreduce[0x40424c]" (eth-cscs/cscs-docs).
RAW_CONTEXT = re.compile(r"^([ \t]{2,}(?!what\(\):)(?!(?:[\w]+\.)*[A-Z]\w*(?:Error|Exception): )\S|\s*File \"|"
                         r"\s*\[\s*\d+\]\s+\S+?(?:\([^)]*\))?\s*\[0x[0-9a-f]+\]\s*$)")

# CANN's indented detail lines name the failing call and its source position.
_CANN_DETAIL = re.compile(r"\b(failed|error)\b.{0,200}\[FUNC:\w+\]\[FILE:[\w.]+\]\[LINE:\d+\]", re.I)

# Python exception lines ("RuntimeError: ...") are roots when nothing earlier explains them;
# so are the built-ins whose names end in none of these words ("StopIteration" closing a
# traceback through torch/nn/modules/module.py, Ascend/pytorch migration guide, mmdetection YOLOv3).
EXCEPTION = re.compile(r"^\s*(\w+\.)*(\w*(Error|Exception|Interrupt|Exit|Failure|Fault)|StopIteration|StopAsyncIteration)\b:?")


# Words of failure: a tie-breaker between otherwise equal candidates, never a filter.
# "could not" as conda says it: "EnvironmentNameNotFound: Could not find conda environment:
# nanovlm" (EPFL izar nanoVLM Slurm .err, the cause of the "torchrun: command not found" after it).
ERROR_WORDS = re.compile(
    r"(?i)(error|fail|\bfault|exception|time[sd]? ?out|cannot|can't|could ?n[o']t|unable|not found|no such|invalid|denied|refused|fatal|panic|"
    r"corrupt|mismatch|incompatib|unsupported|not supported|out of memory|\boom\b|\blost\b|\bdown\b|"
    r"exceed|overflow|\bnan\b|illegal|assert|abort|crash|killed|\bhang(s|ing|ed)?\b|\bstuck\b|throttl|unreachable|missing|"
    r"uncorrectable|uncontained|\bxid\b|\becc\b|hardware error|fallen off|parity|deadlock|evict|preempt)"
)


# A device fault named in a line: the line is about that fault even when a watchdog or a
# teardown message is the one printing it ("watchdog thread terminated with exception:
# CUDA error: uncorrectable ECC error encountered").
DEVICE_FAULT = re.compile(
    r"(?i)CUDA error: (?!.{0,40}time[sd]? ?out)|uncorrectable ECC|\bXid\b|illegal memory access|"
    r"CUDA out of memory|fallen off the bus"
)


# The machine's own report of what broke or stopped a process: the GPU driver's Xid, the NVSwitch's
# SXid, an uncorrectable ECC error, a GPU gone from the bus or from nvidia-smi, the kernel's OOM killer.
# Real: "NVRM: Xid (PCI:0000:37:00): 95, pid=5171, Uncontained: FBHUB. RST: Yes, D-RST: No" (NVIDIA's
# Xid catalogue); "slurmstepd: error: Detected 1 oom_kill event in StepId=..." (NERSC Perlmutter job
# in benchmarks/real c3-cuda-vault-perlmutter-gpt1t-cgroup-oom); the kernel's "Memory cgroup out of
# memory: Killed process 155197 (python)" (Linux mm/oom_kill.c's message, as kubectl events relay it).
MACHINE_FAULT_REPORT = re.compile(
    r"\bS?Xid\b|uncorrectable ECC|fallen off the bus|Unable to determine the device handle for GPU|"
    r"[Oo]ut of memory: Killed process|\boom[-_]kill event"
)


def is_machine_fault_report(template: str) -> bool:
    return bool(MACHINE_FAULT_REPORT.search(template))


# A short heading that introduces the next line ("Original exception:" above the gloo error
# in PyTorch's monitored_barrier report, pytorch/pytorch docs distributed.rst): the line
# below it is the message, the heading says nothing itself.
_HEADING = re.compile(r"^\s*[A-Za-z][A-Za-z ]{0,40}:\s*$")
_HEADING_MAX_WORDS = 3


def is_heading(template: str) -> bool:
    template = unprefixed(template)
    return bool(_HEADING.match(template)) and not EXCEPTION.match(template) and informative_words(template) <= _HEADING_MAX_WORDS


# A warning that says what would happen if something were so is advice about a possibility, not
# an event: "If there are parameters on other devices involved in the backward, then a serious
# error will occur here." (Paddle's reducer, pommespeter/iBOT-Paddle workerlog.0, above the real
# AssertionError) and "if you experience slowdowns or hanging when DeepSpeed exits, it is
# recommended to set the TRITON_CACHE_DIR" (LIU-Hao-2002/GRPO_project logs/nohup.out).
_HYPOTHETICAL = re.compile(r"(?i)\bif\b[^.;]{0,160}\b(?:will|would|may|might|could|is recommended)\b")


# Launchers tear a job down with SIGTERM and SIGKILL; a process that died of SIGBUS, SIGSEGV,
# SIGILL or SIGFPE died of its own fault, so a launcher line naming one reports the fault:
# "The worker fails with {0: ProcessFailure(local_rank=0, pid=54, exitcode=-7, ...,
# message='Signal 7 (SIGBUS) received by PID 54', ...)}" (intelligent-machine-learning/dlrover#1046).
_OWN_FAULT_SIGNAL = re.compile(r"\bSignal (?:\d+|<NUM>) \(SIG(?:ILL|BUS|FPE|SEGV)\)")

# Python's subprocess reports any command that failed with "exit status"; a launcher relaying its
# training child's exit names a Python or launcher command ("Command '['torchrun', '--nnodes', '1',
# ...]' returned non-zero exit status 1.", accelerate's launch), but the job's own call of another
# program failed by itself: "subprocess.CalledProcessError: Command '['ssh', 'g13n13', 'hostname',
# '-I']' returned non-zero exit status 255." (sajal-vt/Megatron-DeepSpeed-Summit gpt3-megatron.3328291.e),
# "Command '['npu-smi', 'info', '-t', 'board', '-i', '1']' returned non-zero exit status 215." (verl-project/verl#6773).
_CALLED_PROCESS = re.compile(r"CalledProcessError: Command '\[?'?(?P<cmd>[^' ,\]]+)")
_RELAYING_COMMAND = re.compile(r"(?:^|/)(?:python[\d.]*|torchrun|deepspeed|accelerate|srun|mpirun|mpiexec|jsrun|bash|sh)$|<")


def own_call_failed(text: str) -> bool:
    """A subprocess the job itself ran (not its training child) exited with an error."""
    m = _CALLED_PROCESS.search(text)
    return m is not None and not _RELAYING_COMMAND.search(m.group("cmd"))


def first_message(text: str) -> str:
    """A JSON-escaped multi-line message up to its first escaped newline: torchelastic's error
    file holds the exception and the CUDA hints under it in one string ('"message": "RuntimeError:
    CUDA error: uncorrectable NVLink error detected during the execution\\nCUDA kernel errors might
    be asynchronously reported ...', intelligent-machine-learning/dlrover docs/blogs), and the
    hints must not make the error read as one of them."""
    cut = text.find("\\n")
    return text[:cut] if cut > 0 else text


def role_of(template: str, raw: str = "") -> str:
    """context | teardown | wait | candidate. ``raw`` is a sample line: templates lose the
    indentation that marks traceback source lines."""
    template, raw = first_message(unprefixed(template)), first_message(unprefixed(raw))
    # An indented line is a traceback's source line, unless it reports a failure itself:
    # CANN indents its TraceBack reasons ("        rtFftsPlusTaskLaunch execute failed,
    # reason=[driver error:out of memory]", hiyouga/LlamaFactory#5322).
    if CONTEXT.search(template) or is_heading(template) or (raw and RAW_CONTEXT.search(raw) and not _CANN_DETAIL.search(raw)):
        return "context"
    if DEVICE_FAULT.search(template):
        return "candidate"
    if _HYPOTHETICAL.search(template) and not EXCEPTION.match(template):
        return "context"
    if ((TEARDOWN.search(template) or TEARDOWN_CAPS.search(template)) and not _OWN_FAULT_SIGNAL.search(template)
            and not own_call_failed(raw or template)):
        return "teardown"
    if WAIT.search(template):
        return "wait"
    return "candidate"


def indented_only(template: str, raw: str) -> bool:
    """Context only by its indentation: no traceback frame, heading or context word makes it
    one. Such a line may be a report's indented field instead of a traceback's source line."""
    template, raw = first_message(unprefixed(template)), first_message(unprefixed(raw))
    return (not CONTEXT.search(template) and not is_heading(template) and not raw.lstrip().startswith("File ")
            and bool(re.match(r"[ \t]{2,}\S", raw)))


def has_error_words(template: str) -> bool:
    return bool(ERROR_WORDS.search(template) or EXCEPTION.search(template))


def is_routine(template: str) -> bool:
    """A line of the program's own routine work: no error words, no fault mark, not a
    traceback frame, a wait or teardown. A hung program stops printing these; a program
    that caught an error and carried on prints them again."""
    return role_of(template) == "candidate" and not has_error_words(template) and not is_fault_indicating(template)



_WORD = re.compile(r"(?<![<\w/])[A-Za-z][A-Za-z_]{2,}(?![\w>/])")  # a path's parts ("torch/distributed/run.py:792]", a glog tag) are no words
_LOG_NOISE_WORDS = frozenset({"INFO", "WARN", "WARNING", "ERROR", "DEBUG", "TRACE", "NOTICE", "CRITICAL", "FATAL", "PID"})


def informative_words(template: str) -> int:
    """Distinct real words in a template (masks, levels and codes excluded): how much a
    message says. 'Inner Error!' or 'Last error:' say little on their own."""
    template = unprefixed(template)
    words = {w.lower() for w in _WORD.findall(template) if w.upper() not in _LOG_NOISE_WORDS}
    # An exception's class is a phrase: "FileNotFoundError: <*>" (three lines of one verl
    # checkpoint load, each naming another file, verl NPU FAQ) says what failed even when
    # Drain masked every file name; "RuntimeError: <*>" still says little.
    head = _EXCEPTION_CLASS.match(template)
    if head:
        words.discard(head.group("cls").lower())
        words |= {p.lower() for p in _CAMEL_PART.findall(head.group("cls")) if p not in _CLASS_SUFFIXES}
    return len(words)


_CAMEL_PART = re.compile(r"[A-Z][a-z]+")
_CLASS_SUFFIXES = frozenset({"Error", "Exception"})


def is_exception_line(raw: str) -> bool:
    return bool(EXCEPTION.match(unprefixed(raw)))


def is_external_stop(template: str) -> bool:
    return bool(EXTERNAL_STOP.search(template))


# A scheduler's stop that says why (Slurm's "CANCELLED AT ... DUE TO TIME LIMIT"): the line
# names the cause itself, so whatever the job prints after it is teardown.
STOP_WITH_REASON = re.compile(r"(?i)CANCELLED AT .{0,40}DUE TO (TIME LIMIT|PREEMPTION|NODE FAILURE)|\bpreempted\b|Node failure on ")


def names_stop_reason(template: str) -> bool:
    return bool(STOP_WITH_REASON.search(template))


# Slurm reports a task that ended on its own with a failure code ("srun: error: 292KF14:
# task 0: Exited with exit code 1", mlcommons/training_results_v4.0 SMC BERT log); tasks
# the scheduler ended read "Terminated" or "Killed" instead.
# srun prints the line only for a failure, so a masked code (<NUM>) counts too.
TASK_ERROR_EXIT = re.compile(r"(?i)\btasks? (<NUM>|[\d,\-\[\]])+: Exited with exit code (<NUM>|[1-9]\d*)")


def is_task_error_exit(template: str) -> bool:
    return bool(TASK_ERROR_EXIT.search(template))


# A message that says how the program carried on is not what stopped it, when a fatal error
# follows: "slurmstepd: error: couldn't chdir to `/workspace': No such file or directory:
# going to /tmp instead" ran 250 lines of training before "AssertionError: SharedMemory
# objects are None." (kerimoglutolga/open_clip-mixtera:output.err). DeepSpeed's launcher says so
# on every single-node run: "[WARNING] [runner.py:203:fetch_hostfile] Unable to find hostfile, will
# proceed with training with local resources only." (matsuolab/nedo_project_code, a 13-line log
# whose "can't open file '.../pretrain_gpt.py'" nine lines later is the failure).
# IBM's jsrun ends its complaint about a missing set-up script with "Continuing to launch. Beware,
# the Spectrum MPI environment may not be completely setup." before the ranks start and fail on
# their own (sajal-vt/Megatron-DeepSpeed-Summit gpt3-megatron.3314739.e).
FALLBACK = re.compile(
    r"(?i)\bgoing to <?\S+>? instead\b|\bfall(s|ing)? ?back to\b|\bwill retry\b|\bretrying in\b|\bwill proceed with\b|"
    r"\bcontinuing (?:to|with|without|anyway)\b|"
    # A feature switched off so the run can go on: "WARNING:root:Cannot import JIT optimized
    # kernels. CUDA extension will be disabled." (sajal-vt/Megatron-DeepSpeed-Summit gpt3-megatron.*.e).
    r"\bwill be disabled\b|"
    # Megatron on a fresh start: "WARNING: could not find the metadata file <load>/latest_checkpointed_
    # iteration.txt" then "    will not load any checkpoints and will start from random" (c15's
    # 64-GPU console, real corpus; Megatron-LM checkpointing.py), then trains on.
    r"\bwill start from (?:random|scratch)\b"
)


def announces_fallback(template: str) -> bool:
    return bool(FALLBACK.search(template))


# Python's warnings module ("<file>:<line>: <Category>Warning: <message>") reports a possible
# problem once and lets the program go on, so it never explains the exception after it:
# "/usr/lib/python3.10/multiprocessing/popen_fork.py:66: RuntimeWarning: Using fork() can
# cause Polars to deadlock in the child process." (kerimoglutolga/open_clip-mixtera:output.err)
PYTHON_WARNING = re.compile(r"^\s*(\S*\.py|<PATH>):(\d+|<NUM>): \w*Warning: ")


def is_python_warning(template: str) -> bool:
    return bool(PYTHON_WARNING.search(template))


# A warning that foretells a failure has not seen one: "RuntimeWarning: os.fork() was called. os.fork()
# is incompatible with multithreaded code, and JAX is multithreaded, so this will likely lead to a
# deadlock." (argonne-lcf/alcf-nccl-tests resnet50 with_aws.log), "RuntimeWarning: Using fork() can
# cause Polars to deadlock in the child process." (kerimoglutolga/open_clip-mixtera output.err). One
# that reports an error ("UserWarning: Error ending MLflow run: Error when retrieving credentials",
# verl-project/verl#5771) may be the failure itself.
_FORETELLS = re.compile(r"(?i)\b(?:will likely|is likely to|likely to|may|might|can|could)\s+(?:cause|lead|result|deadlock|hang|break|fail)")


def foretells_failure(template: str) -> bool:
    """A Python warning that predicts a failure rather than reporting one."""
    return is_python_warning(template) and bool(_FORETELLS.search(template))


# The class an exception line names, wherever it is named: "torch.OutOfMemoryError: Caught
# OutOfMemoryError in replica 0 on device 0." and "torch.OutOfMemoryError: CUDA out of memory.
# Tried to allocate ..." name one (gtseligas/lcn-llama train.err); so do "AssertionError:
# Caught AssertionError in DataLoader worker process 0." and "AssertionError: SharedMemory
# objects are None." (kerimoglutolga/open_clip-mixtera output.err).
_EXCEPTION_CLASS = re.compile(r"^\s*(?:\w+\.)*(?P<cls>\w*(?:Error|Exception))\b:")
# Ray relays a task's exception under a class that names it: "ray.exceptions.RayTaskError(
# FileNotFoundError): ray::TaskRunner.run() ..." ends in "FileNotFoundError: Unable to find
# '/root/data/gsm8k/train.parquet'" (verl-project/verl#1763): one exception, told twice.
_RELAYED_CLASS = re.compile(r"^\s*(?:\w+\.)*\w*(?:Error|Exception)\((?:\w+\.)*(?P<cls>\w*(?:Error|Exception))\):")


def exception_class(raw: str) -> str | None:
    m = _EXCEPTION_CLASS.match(unprefixed(raw))
    return m.group("cls") if m else None


def relayed_class(raw: str) -> str | None:
    """The class a relaying exception names ("RayTaskError(OSError): ..." -> "OSError")."""
    m = _RELAYED_CLASS.match(unprefixed(raw))
    return m.group("cls") if m else None


# A line that says a fault happened, whoever prints it and however often healthy runs do:
# the shipped prior of healthy runs (``agent.prior``) never makes such a line benign, since
# a healthy run can print a rare error it recovered from. Examples, with their sources:
#   NCCL's own warning: "r11i6n2:486514:486651 [1] include/socket.h:403 NCCL WARN Connect to
#     10.148.3.247<56821> failed : Connection refused" (bigscience-workshop/bigscience jz/slurm/README.md)
#   a CANN error code: "EJ0001: 2024-05-21-11:57:54.167.645 Failed to initialize the HCCP process."
#     and torch_npu's "ERR02200 DIST call hccl api failed." (hiyouga/LlamaFactory#3839)
#   the GPU driver: "NVRM: Xid (PCI:0000:37:00): 95, pid=5171, Uncontained: FBHUB. RST: Yes, D-RST: No"
#     (NVIDIA's Xid catalogue, docs.nvidia.com/deploy/xid-errors)
#   Slurm: "srun: error: 292KF14: task 0: Exited with exit code 1" (mlcommons/training_results_v4.0 SMC BERT log)
CANN_CODE = re.compile(r"\bE[A-Z]\d{4}\b")  # "EJ0001", "EE1002", "EI0006": CANN's error codes
FAULT_MARK = re.compile(rf"NCCL WARN|{CANN_CODE.pattern}|\bERR\d{{5}}\b|\bXid\b|NVRM:|\b(?:srun|slurmstepd): error:")


def is_fault_indicating(template: str, raw: str = "") -> bool:
    """Whether the line reads as a fault by itself: a Python exception, a marked error
    (``FAULT_MARK``), a device fault or a task that exited with an error."""
    return any(
        bool(EXCEPTION.match(unprefixed(text)) or FAULT_MARK.search(text) or DEVICE_FAULT.search(text) or TASK_ERROR_EXIT.search(text))
        for text in (template, raw) if text
    )


# PyTorch's watchdog says how long the collective it gave up on had run: "[Rank 2] Watchdog caught
# collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, ...) ran for 1800088 milliseconds
# before timing out." (modelscope/FunASR#2006).
_RAN_FOR = re.compile(r"\bran for (\d+) milliseconds before timing out")


def collective_ran_seconds(raw: str) -> float | None:
    """How long the collective a watchdog timeout gave up on had run, if the line says."""
    m = _RAN_FOR.search(raw)
    return int(m.group(1)) / 1000.0 if m else None
