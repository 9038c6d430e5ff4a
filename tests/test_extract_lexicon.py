"""Message roles (``agent.extract.lexicon``): facts about PyTorch/NCCL/HCCL/launcher lines
that only lower an event's rank."""

from __future__ import annotations

import pytest

from agent.extract import lexicon


@pytest.mark.parametrize(
    ("template", "raw", "role"),
    [
        ("CUDA error: an illegal memory access was encountered", "", "candidate"),
        ("Watchdog caught collective operation timeout: WorkNCCL(SeqNum=<NUM>)", "", "wait"),
        ("connection reset by peer", "", "wait"),
        ("Sending process <NUM> closing signal SIGTERM", "", "teardown"),
        ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", "", "teardown"),
        ("worker FAILED on host <NODE>", "", "teardown"),
        ("Traceback (most recent call last):", "", "context"),
        ('File "<PATH>", line <NUM>, in forward', "", "context"),
        ("out = self.module(x)", "    out = self.module(x)", "context"),  # indentation lives in the raw line
        ("=============================================", "", "context"),
        # Real lines (pytorch/pytorch#113128): the watchdog reports a device fault, so the line
        # is about the fault; the DSA hint and the C++ stack header are boilerplate around it.
        ("[PG <NUM> (default_pg) Rank <NUM>] Process group watchdog thread terminated with exception: "
         "CUDA error: uncorrectable ECC error encountered", "", "candidate"),
        ("Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", "", "context"),
        ("Exception raised from c10_cuda_check_implementation at <PATH>:<NUM> (most recent call first):", "", "context"),
        # Real lines (mlcommons/training_results_v4.0, Oracle resnet log): a C++ backtrace.
        ("[frame <NUM>]: <PATH>(dali::FileStream::Open(std::string const&, bool, bool, bool)+<HEX>)", "", "context"),
        ("Stacktrace (<NUM> entries):", "Stacktrace (52 entries):", "context"),  # same DALI log, above the frames
        # Real line (bigscience-workshop/bigscience, gpt2-meg-ds-zero 1999616.out): srun after a cancel.
        ("srun: Job step aborted: Waiting up to <NUM> seconds for job step to finish.", "", "teardown"),
        # Real line (hiyouga/LlamaFactory#5322): CANN indents the reasons under its TraceBack.
        ("rtFftsPlusTaskLaunch execute failed, reason=[driver error:out of memory][FUNC:FuncErrorReason]"
         "[FILE:error_message_manage.cc][LINE:<NUM>]",
         "        rtFftsPlusTaskLaunch execute failed, reason=[driver error:out of memory][FUNC:FuncErrorReason]"
         "[FILE:error_message_manage.cc][LINE:53]", "candidate"),
        ("Solution: Close applications not in use.", "        Solution: Close applications not in use.", "context"),
        # PyTorch's monitored_barrier report (pytorch/pytorch docs, distributed.rst): a short
        # heading introduces the gloo error on the next line and says nothing itself.
        ("Original exception:", "", "context"),
        ("ERROR:", "", "context"),
        ("RuntimeError:", "", "candidate"),  # an exception line is never a heading
        # A watchdog timeout that only says it timed out stays a wait.
        ("Watchdog caught collective operation timeout: CUDA error: timed out", "", "wait"),
        # A shell's xtrace echo is the command, not a message (mlcommons/training_results_v4.0, Red Hat log).
        ("+ docker exec -it --env=CP --env=CUDA_DEVICE_MAX_CONNECTIONS --env=HYDRA_FULL_ERROR <*>", "", "context"),
        ("++ export CUDA_VISIBLE_DEVICES=<NUM>", "", "context"),
        # nvidia-smi's table at job start is state (rcc-uchicago/pedramh-profiling e3sm_train_3166315.o);
        # a failing GPU's row shows ERR!.
        ("| GPU Name Persistence-M | Bus-Id Disp.A | Volatile Uncorr. ECC |", "", "context"),
        ("| <NUM> NVIDIA H100 On | <*> Off | ERR! |", "", "candidate"),
        # A launcher prefix left in the text does not hide a traceback's shape (same repository, .e file).
        ('[rank<RANK>]: File "<PATH>", line <NUM>, in <module>', '[rank0]:   File "/work2/train.py", line 3795, in <module>',
         "context"),
        ("[rank<RANK>]: Traceback (most recent call last):", "[rank0]: Traceback (most recent call last):", "context"),
        # MPICH's error stack entry carries its message after the call (hicann/oam-tools HCCL Test FAQ).
        ("MPID_nem_tcp_init(<NUM>)..................: gethostbyname failed, <NODE><NUM> (errno <NUM>)", "", "candidate"),
        ("main()", "", "context"),
        # A warning of what would happen if something were so is advice (pommespeter/iBOT-Paddle
        # workerlog.0; LIU-Hao-2002/GRPO_project logs/nohup.out); an exception never is.
        ("<TS> <NUM> reducer.cc:<NUM>] There is no parameter in the device involved in the backward calculation. If "
         "there are parameters on other devices involved in the backward, then a serious error will occur here.", "", "context"),
        ("Warning: The cache directory for DeepSpeed Triton autotune, <PATH>, appears to be on an NFS system. While this "
         "is generally acceptable, if you experience slowdowns or hanging when DeepSpeed exits, it is recommended to set "
         "the TRITON_CACHE_DIR environment variable to a non-NFS path.", "", "context"),
        ("ValueError: if you pass a tokenizer it will be ignored", "", "candidate"),
        # The shell's report of SIGABRT follows the message that caused it (pytorch/pytorch#15592).
        ("Aborted (core dumped)", "Aborted (core dumped)", "teardown"),
        # A traceback pasted with an indent (a commit message, bytedance/byteps 10dad881): the
        # exception's line is still the message; the indented source line above it is not.
        ("TypeError: must be real number, not NoneType", "  TypeError: must be real number, not NoneType", "candidate"),
        ("p = torch.Tensor([p]).cuda()", "      p = torch.Tensor([p]).cuda()", "context"),
        # Hydra's header above the traceback (verl-project/verl#3828) says the job failed, not why.
        ("Error executing job with overrides: [<*>]", "Error executing job with overrides: ['algorithm.adv_estimator=grpo']",
         "context"),
        # A table's header row and py-spy's thread heading are context (aws-samples/awsome-distributed-training
        # Kueue README; bigscience-workshop/bigscience tr11 chronicles).
        ("NAME QUEUE RESERVED IN ADMITTED FINISHED AGE",
         "NAME                                         QUEUE                           RESERVED IN                       "
         "ADMITTED   FINISHED   AGE", "context"),
        ('Thread <NUM> (idle): "MainThread"', 'Thread 1439102 (idle): "MainThread"', "context"),
        # ... and its footer asking for the full trace (mjvolk3/torchcell delta_deepset Slurm output).
        ("Set the environment variable HYDRA_FULL_ERROR=<NUM> for a complete stack trace.",
         "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.", "context"),
        ("run.sh: line <NUM>: <NUM> Aborted (core dumped) python train.py", "", "teardown"),
        # The interpreter's shutdown report of a finalizer's exception (HappynessI/verl-for-AgentGym GRPO log).
        ("Exception ignored in: <function ResourceTracker.__del__ at <HEX>>", "", "teardown"),
        # C++'s terminate handler indents the exception's message (horovod/horovod#1341): it is the message.
        ("what(): [enforce fail at <PATH>:<NUM>] ifa != nullptr. Unable to find address for: eth<NUM>",
         "  what():  [enforce fail at /tmp/gloo/transport/tcp/device.cc:83] ifa != nullptr. Unable to find address for: eth0",
         "candidate"),
        # A launcher naming SIGBUS or SIGSEGV reports the process's own fault (dlrover#1046);
        # SIGTERM and SIGKILL are how launchers stop the others.
        ("The worker fails with {<NUM>: ProcessFailure(local_rank=<RANK>, pid=<NUM>, exitcode=<NUM>, error_file='<N/A>', "
         "error_file_data={'message': '<NONE>'}, message='Signal <NUM> (SIGBUS) received by PID <NUM>', timestamp=<NUM>)}", "",
         "candidate"),
        ("The worker fails with {<NUM>: ProcessFailure(local_rank=<RANK>, pid=<NUM>, exitcode=<NUM>, error_file='<N/A>', "
         "error_file_data={'message': '<NONE>'}, message='Signal <NUM> (SIGTERM) received by PID <NUM>', timestamp=<NUM>)}", "",
         "teardown"),
        # Open MPI's signal handler (eth-cscs/cscs-docs, OSU iallreduce on GH200): its report names the
        # fault, and the native backtrace's frames under it are the report, not routine work.
        ("[nid<NUM>:<NUM>] Signal: Segmentation fault (<NUM>)", "[nid006549:31808] Signal: Segmentation fault (11)", "candidate"),
        ("[nid<NUM>:<NUM>] [ <NUM>] <*>", "[nid006549:31808] [ 3] /user-environment/linux-neoverse_v2/openmpi-5.0.9-leskuw5dysw"
         "fdw3eaybcyfmsrbid3uuq/lib/libmpi.so.40(NBC_Progress+0x164)[0x400029a97bd4]", "context"),
        ("[nid<NUM>:<NUM>] [<NUM>] <PATH>[<HEX>]", "[nid006549:31808] [10] /user-environment/env/default/libexec/"
         "osu-micro-benchmarks/mpi/collective/osu_iallreduce[0x404e98]", "context"),
        ("[<NUM>:<NUM>] step <NUM> done", "[10:30] step 5 done", "candidate"),  # a time, not a host:pid prefix
        # Python's threading header above a thread's traceback (JFrankLee/AI PaddleSeg train log).
        ("Exception in thread Thread-<NUM>:", "Exception in thread Thread-2:", "context"),
        # tqdm's redraw starts with a carriage return, not an indent (pedramh-profiling e3sm_train_3167436.e).
        ("<NUM>%| | <ITER>/<NUM> [<NUM>:<NUM><?, ?it/s] Epoch [<NUM>/<NUM>], Year <NUM>, Loss: <NUM>",
         "\r  0%|                              | 0/2281 [00:00<?, ?it/s]Epoch [1/100], Year 2015, Loss: 0.8920", "candidate"),
    ],
)
def test_role_of(template: str, raw: str, role: str) -> None:
    assert lexicon.role_of(template, raw) == role


@pytest.mark.parametrize(
    ("template", "error_words"),
    [
        ("RuntimeError: NCCL communicator was aborted", True),
        ("no such file or directory", True),
        ("GPU has fallen off the bus", True),
        ("loss is nan at step <NUM>", True),
        ("saving checkpoint at iteration <NUM>", False),
        # Real line (mlcommons/training_results_v4.0, smc bert): words inside words are not failures.
        ("heckpoints=<NUM>, allreduce_post_accumulation_fp16=False, do_train=True, exchange_padding=False", False),
        ("the job hangs at iteration <NUM>", True),
        ("link down on port <NUM>", True),
        ("iteration <NUM> | loss <NUM> | lr <NUM>", False),
    ],
)
def test_has_error_words(template: str, error_words: bool) -> None:
    assert lexicon.has_error_words(template) is error_words


@pytest.mark.parametrize(
    ("template", "words"),
    [("Inner Error!", 1), ("Last error:", 1), ("<TS> ERROR CUDA error: illegal memory access", 4), ("<NUM> <IP>", 0),
     # an exception's class is read as the phrase it is (verl NPU FAQ: "FileNotFoundError: common.pt")
     ("FileNotFoundError: <*>", 3), ("RuntimeError: <*>", 1), ("torch.distributed.DistNetworkError: <*>", 4)],
)
def test_informative_words(template: str, words: int) -> None:
    assert lexicon.informative_words(template) == words


@pytest.mark.parametrize(
    ("raw", "exception"),
    [
        ("RuntimeError: ACL stream synchronize failed", True),
        ("torch.distributed.DistBackendError: NCCL error", True),
        ("KeyboardInterrupt", True),
        ("StopIteration", True),  # Ascend/pytorch migration guide: a traceback through torch's module.py ends so
        ("StopIterationCount: 3", False),
        ("2024-10-02 10:00:00 RuntimeError: late", False),  # must start the line
        ("an error occurred", False),
    ],
)
def test_is_exception_line(raw: str, exception: bool) -> None:
    assert lexicon.is_exception_line(raw) is exception


@pytest.mark.parametrize(
    ("template", "external"),
    [
        ("slurmstepd: error: *** STEP <NUM> CANCELLED DUE TO TIME LIMIT ***", True),
        ("pod <NODE> evicted by kubelet", True),
        ("Sending process <NUM> closing signal SIGTERM", False),
    ],
)
def test_is_external_stop(template: str, external: bool) -> None:
    assert lexicon.is_external_stop(template) is external


@pytest.mark.parametrize(
    ("template", "names_reason"),
    [
        # Real line (bigscience-workshop/bigscience, experiments/gpt2-meg-ds-zero 1999616.out).
        ("slurmstepd: error: *** STEP <NUM>.<NUM> ON <NODE> CANCELLED AT <TS> DUE TO TIME LIMIT ***", True),
        # Real line (huggingface/m4-logs, tr_141 README).
        ("srun: error: Node failure on jean-zay-iam37", True),
        ("slurmstepd: error: *** STEP <NUM>.<NUM> ON <NODE> CANCELLED AT <TS> ***", False),  # who and why unknown
        ("srun: Job step aborted: Waiting up to <NUM> seconds for job step to finish.", False),
    ],
)
def test_a_scheduler_stop_that_names_its_reason(template: str, names_reason: bool) -> None:
    assert lexicon.names_stop_reason(template) is names_reason


@pytest.mark.parametrize(
    "raw",
    ["[rank0]: PermissionError: [Errno 13] Permission denied: '/glade'",
     "[1,3]<stderr>:RuntimeError: NCCL error",
     "(MegatronPolicyWorker pid=1391870) torch.distributed.DistBackendError: NCCL error in: init.cc:1"],
)
def test_exception_lines_behind_a_launcher_prefix(raw: str) -> None:
    assert lexicon.is_exception_line(raw)
    assert lexicon.exception_class(raw) is not None


def test_a_traceback_relayed_by_wandb_is_still_a_traceback() -> None:
    # vyjur/master-project output.err (Slurm job 21171137): the sweep agent re-prints a trial's traceback.
    assert lexicon.role_of('wandb: ERROR   File "/cluster/home/u/master-project/src/model/base/bert.py", line 220, in train') == "context"
    assert lexicon.is_exception_line("wandb: ERROR torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 768.00 MiB.")
    assert lexicon.role_of("wandb: Agent Starting Run: em3qtl1s with config:") == "candidate"


def test_an_escaped_multi_line_message_is_read_by_its_first_message() -> None:
    # torchelastic's error file as dlrover's docs quote it: the CUDA hints follow the error in one string.
    raw = ('      "message": "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution\\n'
           'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might '
           'be incorrect.\\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\\n",')
    assert lexicon.role_of(raw, raw) != "context" or lexicon.indented_only(raw, raw)
    assert "asynchronously" not in lexicon.first_message(raw)


def test_a_pod_logs_time_before_each_line_does_not_hide_what_the_line_is() -> None:
    # kubectl logs --timestamps (a pod of independent corpus I): a traceback's frames keep their shape.
    assert lexicon.role_of('2025-03-17T07:21:39.050083Z   File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main') == "context"
    assert lexicon.role_of("<TS> frame #<NUM>: c<NUM>::Error::Error(c<NUM>::SourceLocation, std::string) + <HEX> (<HEX> in <PATH>)") == "context"
    assert lexicon.is_exception_line("2025-03-17T07:21:39.050083Z [rank3]: RuntimeError: CUDA error: out of memory")
    assert lexicon.role_of("2025-03-17T07:21:39Z step 570 loss 1.93") == "candidate"


@pytest.mark.parametrize(
    ("text", "reports"),
    [
        ("NVRM: Xid (PCI:0000:37:00): 95, pid=5171, Uncontained: FBHUB. RST: Yes, D-RST: No", True),
        ("slurmstepd: error: Detected 1 oom_kill event in StepId=2345.0. Some of the step tasks have been OOM Killed.", True),
        ("Memory cgroup out of memory: Killed process 155197 (python) total-vm:312345678kB", True),
        ("Out of memory: Killed process 4242 (python3) total-vm:100kB, anon-rss:90kB", True),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", False),
        ("[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)", False),
    ],
)
def test_the_machines_own_fault_reports(text: str, reports: bool) -> None:
    assert lexicon.is_machine_fault_report(text) is reports
