"""Cold start (no normal jobs): one console, and the root is still the line an SRE points at.

Each case is a console a person could have pasted or a Slurm file: a long healthy
start-up with its own errors, then the failure near the end. The weights at work are
``tail_lines``/``tail_floor`` (a failed run stops soon after its cause), ``surfacing_lines``
(an exception surfaces an error printed just before it) and the scheduler-stop rule.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agent.extract import Weights, extract
from agent.library import FaultLibrary, KnownFaults
from agent.mining import mine_job

STARTUP = [
    "[node-25:376246] PMIX ERROR: ERROR in file gds_ds12_lock_pthread.c at line 168",
    *[f"using option {i}: value {i * 3}" for i in range(900)],
]
FAILURE = [
    "Traceback (most recent call last):",
    '  File "train.py", line 12, in <module>',
    'RuntimeError: [/opt/dali/dali/util/std_file.cc:29] Assert on "fp_ != nullptr" failed: '
    "Could not open file /data/train.rec: No such file or directory",
    "srun: error: node-25: task 0: Exited with exit code 1",
]
TRAINING = [f" iteration {i}/ 1000 | elapsed time per iteration (ms): 1993.{i} | lm loss 7.1" for i in range(1, 250)]
TIME_LIMIT = [
    "srun: Job step aborted: Waiting up to 62 seconds for job step to finish.",
    "slurmstepd: error: *** STEP 1999616.0 ON r6i4n5 CANCELLED AT 2021-05-27T21:42:11 DUE TO TIME LIMIT ***",
    "Killing subprocess 4231",
    "Main process received SIGTERM, exiting",
]


def root_text(tmp_path: Path, lines: list[str], weights: Weights | None = None, library: KnownFaults | None = None) -> str:
    logs = tmp_path / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "console.log").write_text("\n".join(lines) + "\n")
    extraction = extract(mine_job(logs, workers=1), None, library, weights or Weights())
    return extraction.events[0].template if extraction.events else ""


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        pytest.param([*STARTUP, *FAILURE], "Could not open file", id="the crash at the end, not the start-up error"),
        pytest.param([*TRAINING, *TIME_LIMIT], "DUE TO TIME LIMIT", id="the scheduler's reason, not srun's abort"),
        pytest.param(FAILURE, "Could not open file", id="a short excerpt is read as it is"),
    ],
)
def test_cold_start_root(tmp_path: Path, lines: list[str], expected: str) -> None:
    assert expected in root_text(tmp_path, lines)


# rcc-uchicago/pedramh-profiling e3sm_train_3166315.e: the shell's module error, then torchrun's
# ranks log normally and one fails on its own.
MODULE_NOISE = [
    "Lmod has detected the following error: The following module(s) are unknown:",
    '"conda"',
    *[f"2026-05-29 12:16:55,79{i} - root - INFO - Torch version: 2.6.0+cu124" for i in range(4)],
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/work2/11095/jwan4/PanguWeather/v2.0/train.py", line 3795, in <module>',
    "[rank0]:     os.makedirs(params['experiment_dir'], exist_ok=True)",
    "[rank0]: PermissionError: [Errno 13] Permission denied: '/glade'",
]


def test_an_unstamped_set_up_error_the_program_ran_past_is_noise(tmp_path: Path) -> None:
    assert "PermissionError" in root_text(tmp_path, MODULE_NOISE)
    # Without the program's own logging in between, nothing says the job got past it (seen
    # with the share of the strongest event relaxed, which alone already prefers the exception).
    relaxed = dataclasses.replace(Weights(), root_best_share=0.5)
    assert "Lmod" in root_text(tmp_path, [MODULE_NOISE[0], MODULE_NOISE[1], *MODULE_NOISE[-4:]], relaxed)
    assert "PermissionError" in root_text(tmp_path / "strict", [MODULE_NOISE[0], MODULE_NOISE[1], *MODULE_NOISE[-4:]])


def test_without_the_tail_weight_a_start_up_error_would_win(tmp_path: Path) -> None:
    # (the start-up lines after the error also show the program carried on past it: that rule is off here)
    no_tail = dataclasses.replace(Weights(), tail_lines=10**9, survived_run_lines=10**9)
    assert "PMIX ERROR" in root_text(tmp_path, [*STARTUP, *FAILURE], no_tail)


def test_an_exception_does_not_surface_an_error_printed_hundreds_of_lines_earlier(tmp_path: Path) -> None:
    # One timestamp dates the whole excerpt, so only line distance tells the two apart.
    stamped = ["2024-05-01 04:11:25 " + STARTUP[0], *STARTUP[1:], *FAILURE]
    assert "Could not open file" in root_text(tmp_path, stamped)
    far = dataclasses.replace(Weights(), surfacing_lines=10**6, tail_lines=10**9)
    assert "PMIX ERROR" in root_text(tmp_path, stamped, far)


def test_an_unstamped_error_block_is_one_fault_speaking(tmp_path: Path) -> None:
    # Real lines (hiyouga/LlamaFactory#3839), timestamps removed: the code line and the
    # exception a line apart are one fault, even with no time to say "together".
    lines = [
        "RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64",
        "EJ0001: Failed to initialize the HCCP process. Reason: Maybe the last training process is running.",
        "        Solution: Wait for 10s after killing the last training process and try again.",
    ]
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "console.log").write_text("\n".join(lines) + "\n")
    extraction = extract(mine_job(logs, workers=1))
    texts = [e.template for e in extraction.events]
    assert any("HCCL error in" in t for t in texts) and any("Failed to initialize the HCCP" in t for t in texts)
    assert not any("Solution" in t for t in texts)
    apart = extract(mine_job(logs, workers=1), None, None, dataclasses.replace(Weights(), companion_lines=0))
    assert len(apart.events) == 1


def test_a_bare_exception_ending_a_traceback_is_the_root(tmp_path: Path) -> None:
    lines = ["Traceback (most recent call last):",
             '  File "/workspace/Megatron-LM/megatron/core/datasets/megatron_dataset.py", line 42, in __init__',
             "    assert num_samples > 0", "AssertionError"]
    assert root_text(tmp_path, lines) == "AssertionError"


def test_the_tail_counts_routine_work_not_the_failures_own_output(tmp_path: Path) -> None:
    # ZhangDY-6483/Megatron-LM nohup.out: eight nodes' tracebacks and socket timeouts ran for
    # hundreds of lines after the FileNotFoundError that caused them.
    cascade = []
    for rank in range(250):
        cascade += ["Traceback (most recent call last):",
                    '  File "/root/Megatron-LM/pretrain_gpt.py", line 136, in <module>',
                    "    args_defaults={'tokenizer_type': 'GPT2BPETokenizer'}",
                    f"RuntimeError: [{rank}] is setting up NCCL communicator and retreiving ncclUniqueId from [0] "
                    "via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout"]
    lines = ["> building train, validation, and test datasets ...",
             "FileNotFoundError: [Errno 2] No such file or directory: './my-gpt2_text/train_indexmap_doc_idx.npy'",
             *cascade]
    assert "FileNotFoundError" in root_text(tmp_path, lines)
    # Routine work after an error says the job went on past it: the same error, then 300 lines of it.
    ran_on = [lines[1], *[f" > elapsed time to build and save mapping {i} (seconds): 0.00{i}" for i in range(300)],
              *FAILURE]
    (tmp_path / "ran-on").mkdir()
    assert "Could not open file" in root_text(tmp_path / "ran-on", ran_on)


def test_an_error_line_that_names_no_failure_is_a_header(tmp_path: Path) -> None:
    # pytorch/elastic#31: the logger's ERROR line says where, the next line says what failed.
    lines = ["INFO 2020-01-17 00:55:01,702 Rank 1 will conenct to TCPStore server at pytorch-elastic-test-z2b7s:47279",
             "[ERROR] 2020-01-17 00:55:01,724 coordinator_p2p: Rank: -1",
             "Error: Rank -1 received an Exception. Detailed message: host not found: Name or service not known"]
    assert "host not found" in root_text(tmp_path, lines)


def test_a_line_above_the_first_stamp_is_not_a_companion_by_its_borrowed_time(tmp_path: Path) -> None:
    # hutuxian/RSPNet log/workerlog.0: a DeprecationWarning on line 2, the data error 280 lines later.
    lines = ["/opt/conda/lib/python3.7/site-packages/paddle/utils.py:33: DeprecationWarning: invalid escape sequence \\d",
             *[f"    config line {i}" for i in range(280)],
             "I0805 11:02:03.123 12 device_context.cc:404] device: 0, cuDNN Version: 7.6.",
             "Exception: No video found in data/kinetics100/train_video"]
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "workerlog.0.log").write_text("\n".join(lines) + "\n")
    events = [e.template for e in extract(mine_job(logs, workers=1)).events]
    assert "No video found" in events[0] and not any("DeprecationWarning" in t for t in events)


def test_mpichs_error_stack_is_read_to_its_innermost_message(tmp_path: Path) -> None:
    # hicann/oam-tools docs/zh/hccl_test/faqs.md: the header says only "Fatal error in MPI_Init".
    lines = ["Fatal error in MPI_Init: Other MPI error, error stack:",
             "MPIR_Init_thread(474)...................:",
             "MPID_Init(190)..........................: channel initialization failed",
             "MPIDI_CH3_Init(89)......................:",
             "MPID_nem_init(320)......................:",
             "MPID_nem_tcp_init(173)..................:",
             "MPID_nem_tcp_get_business_card(420):",
             "MPID_nem_tcp_init(379)..................: gethostbyname failed, HW-AI-LC-1-1 (errno 2)"]
    assert "gethostbyname failed" in root_text(tmp_path, lines)


def test_a_known_faults_own_line_is_a_root_however_plainly_it_is_logged(tmp_path: Path) -> None:
    """Kernel lines carry no level, so they score below the Python exception they cause; a
    line that matches a known fault is a cause in its own right, not noise to pass over."""
    lines = [
        *[f" iteration {i}/ 1000 | elapsed time per iteration (ms): 1993.{i} | lm loss 7.1" for i in range(1, 40)],
        "[1203391.442120] EXT4-fs error (device nvme0n1p1): ext4_find_entry:1455: inode #2: comm python: reading directory lblock 0",
        "[366422.829294] EXT4-fs (dm-3): Remounting filesystem read-only",
        "OSError: [Errno 30] Read-only file system: '/tmp/torchinductor_root/1b450ba9.lock'",
    ]
    library = FaultLibrary.load(user_dir=tmp_path / "user-patterns")
    assert "EXT4-fs error" in root_text(tmp_path, lines, library=library)


def event_texts(tmp_path: Path, lines: list[str], library: KnownFaults | None = None) -> list[str]:
    logs = tmp_path / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "console.log").write_text("\n".join(lines) + "\n")
    return [e.template for e in extract(mine_job(logs, workers=1), None, library, Weights()).events]


def test_the_exception_an_error_raised_is_reported_with_it(tmp_path: Path) -> None:
    # NERSC perlmutter NCCL test (slurm-pm-test-8596): the WARN says what broke, the
    # RuntimeError below it is what the process died of; an SRE points at both.
    lines = ["nid001028:129497:129564 [3] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed",
             "Traceback (most recent call last):",
             '  File "allreduce.py", line 30, in <module>',
             "    dist.all_reduce(t)",
             "RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8"]
    texts = event_texts(tmp_path, lines)
    assert "NCCL WARN Call to ibv_create_cq failed" in texts[0]
    assert any("unhandled system error" in t for t in texts[1:])
    # With 80 lines of work between them, the warning was survived: the exception stands alone.
    (tmp_path / "far").mkdir()
    far = [lines[0], *[f"step {i} loss 2.{i}" for i in range(80)], *lines[1:]]
    texts = event_texts(tmp_path / "far", far)
    assert len(texts) == 1 and "unhandled system error" in texts[0]


def test_cpp_uncaught_exception_is_its_type_and_its_what(tmp_path: Path) -> None:
    # horovod/horovod#1341
    lines = ["[1,0]<stderr>:starting worker",
             "terminate called after throwing an instance of 'gloo::EnforceNotMet'",
             "  what():  [enforce fail at /tmp/horovod/third_party/gloo/gloo/transport/tcp/device.cc:88] ifa != nullptr. "
             "Unable to find address for: eth0"]
    texts = event_texts(tmp_path, lines)
    assert "Unable to find address for" in texts[0]
    assert any("terminate called after throwing" in t for t in texts[1:])


def test_a_relayed_exception_is_reported_with_the_exception_it_relays(tmp_path: Path) -> None:
    # verl-project/verl#1763: Ray prints the task's exception under RayTaskError(<class>).
    lines = ["Traceback (most recent call last):",
             '  File "/root/verl/verl/trainer/main_ppo.py", line 64, in main',
             "    ray.get(runner.run.remote(config))",
             "ray.exceptions.RayTaskError(FileNotFoundError): ray::TaskRunner.run() (pid=34827, ip=172.17.0.5)",
             '  File "/root/verl/verl/utils/dataset/rl_dataset.py", line 96, in _read_files_and_tokenize',
             '    dataframe = datasets.load_dataset("parquet", data_files=parquet_file)["train"]',
             "FileNotFoundError: Unable to find '/root/data/gsm8k/train.parquet'"]
    texts = event_texts(tmp_path, lines)
    assert "FileNotFoundError: Unable to find" in texts[0]
    assert any("RayTaskError(FileNotFoundError)" in t for t in texts[1:])
    # A relay of another class is another exception.
    (tmp_path / "other").mkdir()
    other = [*lines[:3], lines[3].replace("FileNotFoundError", "KeyError"), *lines[4:]]
    assert not any("RayTaskError" in t for t in event_texts(tmp_path / "other", other)[1:])


def test_an_indented_field_that_is_a_known_fault_is_a_report_not_source(tmp_path: Path) -> None:
    # nvidia-smi -q indents its fields (NVIDIA's nvidia-smi documentation); a job that slowed
    # down and finished prints them beside ordinary progress.
    lines = [*[f" iteration {i}/ 1000 | elapsed time per iteration (ms): 1993.{i} | lm loss 7.1" for i in range(1, 40)],
             "    Clocks Event Reasons",
             "        HW Slowdown                       : Active",
             "            HW Thermal Slowdown           : Active",
             *[f" iteration {i}/ 1000 | elapsed time per iteration (ms): 4993.{i} | lm loss 7.1" for i in range(40, 45)],
             "[after training is done]"]
    library = FaultLibrary.load(user_dir=tmp_path / "user-patterns")
    assert "Slowdown : Active" in root_text(tmp_path, lines, library=library)
    # A traceback's source line stays source, known wording or not.
    (tmp_path / "tb").mkdir()
    source = [*lines[:39], '  File "monitor.py", line 3, in <module>', '    print("HW Thermal Slowdown           : Active")',
              *lines[42:]]
    assert "Slowdown" not in root_text(tmp_path / "tb", source, library=library)


def test_one_ranks_prefix_does_not_merge_a_raise_statement_with_its_exception(tmp_path: Path) -> None:
    # Ascend/MindSpeed-MM merge request 1842: every line carries "[rank6]: ", and the raise
    # statement has the same words as the exception it raises.
    lines = ['[rank6]:   File "/work/Megatron-LM/megatron/core/transformer/transformer_config.py", line 621, in __post_init__',
             "[rank6]:     raise ValueError('num_moe_experts must be non None to use expert-parallel.')",
             "[rank6]: ValueError: num_moe_experts must be non None to use expert-parallel."]
    assert root_text(tmp_path, lines).endswith("ValueError: num_moe_experts must be non None to use expert-parallel.")


def test_when_nothing_stands_out_the_last_line_naming_an_error_is_reported(tmp_path: Path) -> None:
    # verl's FAQ quotes Triton's traceback without its exception line: the last frame's raise
    # statement is all that names what failed.
    lines = ['File "/envs/verl/lib/python3.10/site-packages/triton/runtime/build.py", line 48, in _build',
             "  ret = subprocess.check_call(cc_cmd)",
             'File "/envs/verl/lib/python3.10/subprocess.py", line 369, in check_call',
             "  raise CalledProcessError(retcode, cmd)"]
    assert "CalledProcessError" in root_text(tmp_path, lines)
    # Lines that name no error give nothing to point at.
    (tmp_path / "info").mkdir()
    assert root_text(tmp_path / "info", ["mtk:2521:2528 [0] NCCL INFO 0 -> 1 via P2P/IPC"] * 2) == ""


def test_a_recognised_header_stays_beside_the_exception_it_heads(tmp_path: Path) -> None:
    # jerrylsu.net DDP notes: the DataLoader's shared-memory message heads the traceback.
    lines = ["Training Start!",
             "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
             "Traceback (most recent call last):",
             '  File "/root/anaconda3/envs/torch/lib/python3.7/multiprocessing/queues.py", line 236, in _feed',
             "    obj = _ForkingPickler.dumps(obj)",
             '  File "/root/anaconda3/envs/torch/lib/python3.7/multiprocessing/reduction.py", line 51, in dumps',
             "    cls(buf, protocol).dump(obj)",
             '  File "/root/anaconda3/envs/torch/lib/python3.7/site-packages/torch/multiprocessing/reductions.py", line 333',
             "    fd, size = storage._share_fd_()",
             "RuntimeError: unable to write to file </torch_3531_3962650647>"]
    library = FaultLibrary.load(user_dir=tmp_path / "user-patterns")
    events = event_texts(tmp_path, lines, library)
    assert "unable to write to file" in events[0] and any("Unexpected bus error" in t for t in events)


def test_a_recognised_line_inside_an_untimed_error_block_is_a_companion(tmp_path: Path) -> None:
    # hiyouga/LLaMA-Factory#4610: the CANN TraceBack block names the missing kernel binary.
    lines = ["RuntimeError: call aclnnCast failed, detail:EZ9999: Inner Error!",
             "EZ9999: 2024-06-28-13:05:55.631.066  Parse dynamic kernel config fail.",
             "        TraceBack (most recent call last):",
             "        AclOpKernelInit failed opType",
             "        Op Cast does not has any binary.",
             "        Kernel Run failed. opType: 3, Cast"]
    library = FaultLibrary.load(user_dir=tmp_path / "user-patterns")
    assert any("does not has any binary" in t for t in event_texts(tmp_path, lines, library))
    assert not any("does not has any binary" in t for t in event_texts(tmp_path / "bare", lines, None))


def test_a_cann_code_line_in_the_roots_block_is_a_companion_though_it_reads_as_a_wait(tmp_path: Path) -> None:
    # hiyouga/LLaMA-Factory#5551: EE1002 (stream synchronize timeout) is the code behind the root.
    lines = ["RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:390 NPU function error: "
             "aclrtSynchronizeDevice, error code is 507046",
             "[ERROR] 2024-09-26-16:06:40 (PID:2671581, Device:2, RankID:2) ERR00100 PTA call acl api failed",
             "[Error]: In the specified timeout waiting event, all tasks in the specified stream are not completed. ",
             "        Rectify the fault based on the error information in the ascend log.",
             "EE1002: 2024-09-26-16:06:40.565.510 Stream synchronize timeout. rtDeviceSynchronize execute failed, "
             "reason=[stream sync timeout]"]
    library = FaultLibrary.load(user_dir=tmp_path / "user-patterns")
    assert any(t.startswith("EE1002") for t in event_texts(tmp_path, lines, library))


def test_a_root_that_borrows_its_time_has_its_stamped_block_below_it_as_companions(tmp_path: Path) -> None:
    # torch_npu's unstamped exception under a start-up stamp, over its own stamped CANN block (a
    # blind author's job, corpus F, f24; the EJ0001 wording as on the Ascend device-occupied docs).
    lines = ["2024-04-16 10:40:12 INFO set device npu:6, HCCL_IF_IP=10.83.28.152",
             "[rank20]: RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64",
             "[rank20]: [ERROR] 2024-04-16-12:02:01 (PID:37333, Device:4, RankID:20) ERR02200 DIST call hccl api failed.",
             "[rank20]: EJ0001: 2024-04-16-12:02:01.762.231 Failed to initialize the HCCP process. Reason: Maybe the last "
             "training process is running."]
    library = FaultLibrary.load(user_dir=tmp_path / "user-patterns")
    assert any(t.startswith("EJ0001") for t in event_texts(tmp_path, lines, library))


def test_an_exception_message_ending_in_a_colon_goes_on_in_the_next_line(tmp_path: Path) -> None:
    # PrimeIntellect-ai/prime-rl#3146: the next line says which variable was missing.
    lines = ["Traceback (most recent call last):",
             "ValueError: Error initializing torch.distributed using env:// rendezvous:",
             "environment variable RANK expected, but not set"]
    assert any("RANK expected" in t for t in event_texts(tmp_path, lines, None))
    # A path or a list under the colon is data the message names, not more of it (verl#4029).
    listed = ["FileNotFoundError: [Errno 2] No such file or directory:", "'/root/verl/config/agent.yaml'"]
    assert len(event_texts(tmp_path / "listed", listed, None)) == 1


def test_startup_warnings_of_an_unstamped_stderr_give_way_to_its_fatal_assert(tmp_path: Path) -> None:
    # sajal-vt/Megatron-DeepSpeed-Summit LSF job 3328774: the .e file carries no time (its .o
    # beside it does); the Spectrum MPI and JIT warnings at its top did not stop the job, the
    # batch-size assertion at its end did.
    stderr = ["Error: SMPI environment generator script not found at:",
              "Path : /gpfs/alpine2/stf218/world-shared/sajal/moe-env-311/bin/alias.pl",
              "Error: No such file or directory",
              "Warning. Failed to setup the Spectrum MPI environment.",
              "Continuing to launch. Beware, the Spectrum MPI environment may not be completely setup.",
              *["Warning: OMP_NUM_THREADS=16 is greater than available PU's"] * 12,
              *["WARNING:root:Cannot import JIT optimized kernels. CUDA extension will be disabled."] * 12,
              *["/bin/sh: line 0: type: git: not found"] * 12,
              # Twelve ranks' tracebacks interleaved: frames, not the routine lines of a program running on.
              *["Traceback (most recent call last):",
                '  File "/gpfs/alpine2/stf218/world-shared/sajal/Megatron-DeepSpeed/pretrain_gpt.py", line 356, in <module>',
                "    pretrain(train_valid_test_datasets_provider,",
                '  File "/gpfs/alpine2/stf218/world-shared/sajal/Megatron-DeepSpeed/megatron/training.py", line 125, in pretrain'] * 18,
              *[line for _ in range(3) for line in (
                  "Traceback (most recent call last):",
                  '  File "/gpfs/alpine2/stf218/world-shared/sajal/Megatron-DeepSpeed/pretrain_gpt.py", line 356, in <module>',
                  "    assert global_batch_size % micro_batch_times_data_parallel == 0, \\",
                  "AssertionError: global batch size (48) is not divisible by micro batch size (8) times data parallel size (12)")]]
    stdout = ["g16n14", *[f"[2024-03-04 00:20:59,1{i:02d}] [INFO] [real_accelerator.py:133:get_accelerator] Setting ds_accelerator "
                          "to cuda (auto detect)" for i in range(12)]]
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "gpt3-megatron.3328774.e.log").write_text("\n".join(stderr) + "\n")
    (logs / "gpt3-megatron.3328774.o.log").write_text("\n".join(stdout) + "\n")
    events = extract(mine_job(logs, workers=1), None, FaultLibrary.load(user_dir=tmp_path / "user-patterns"), Weights()).events
    assert "global batch size" in events[0].template


def test_a_startup_warning_far_above_is_not_in_the_roots_moment_by_a_borrowed_time(tmp_path: Path) -> None:
    # okoge-kaz/megatron-deepspeed-turing-techblog logs/20230712: DeepSpeed's start-up warnings
    # borrow the time of the stamp above them; the rendezvous failure comes 400 lines later.
    lines = ["[2023-07-12 13:42:55,100] [INFO] [real_accelerator.py:110:get_accelerator] Setting ds_accelerator to cuda",
             " [WARNING]  sparse_attn requires a torch version >= 1.5 and < 2.0 but detected 2.0",
             *[f"  arg_{i} ........................................ {i}" for i in range(400)],
             "> initializing torch distributed ...",
             "[W socket.cpp:601] [c10d] The client socket has failed to connect to [::ffff:10.2.76.66]:16500 "
             "(errno: 113 - No route to host).",
             "[E socket.cpp:657] [c10d] The client socket has failed to connect to any network address of (10.2.76.66, 16500)."]
    events = event_texts(tmp_path, lines, FaultLibrary.load(user_dir=tmp_path / "user-patterns"))
    assert "client socket" in events[0] and not any("sparse_attn" in t for t in events)


def test_a_known_fault_drain_folded_into_a_wider_template_still_counts(tmp_path: Path) -> None:
    # CANN 8.0.0 troubleshooting, HBM bit ECC fault: the NPU black box's APEI report. Drain folds
    # "error_type: 3, multi-bit ECC" into one template with "Error 0, type: recoverable".
    prefix = "/hisi_logs/device-2/20240420162417-271713000/bbox/kbox.txt:20{0}[2454.83069{1}] {{6}}[Hardware Error]"
    rest = [" Hardware error from APEI Generic Hardware Error Source: 0", "event severity: recoverable",
            " Error 0, type: recoverable", "  section_type: memory error", "  physical_address: 0x0000101efe36d3c0",
            "  node: 2 card: 259 module: 51 rank: 1 bank: 10 row: 30691  column: 56", "  error_type: 3, multi-bit ECC",
            "  DIMM location: not present. DMI handle: 0x0000"]
    lines = [prefix.format(14 + i, i) + text for i, text in enumerate(rest)]
    library = FaultLibrary.load(user_dir=tmp_path / "user-patterns")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "device-2.log").write_text("\n".join(lines) + "\n")
    events = extract(mine_job(logs, workers=1), None, library, Weights()).events
    assert any(e.known == "npu-hbm-multibit-ecc" for e in events)


def test_a_fatal_error_with_no_time_at_all_is_not_placed_after_the_dated_ones(tmp_path: Path) -> None:
    """A rank whose file is a bare traceback (no stamp anywhere) died importing torch_npu; its
    peers' HCCL calls timed out later, stamped. No time is not a late time."""
    from agent.pipeline import Diagnoser

    logs = tmp_path / "job"
    for host in ("npu-srv-69", "npu-srv-84"):
        (logs / host).mkdir(parents=True)
    for r in range(2):
        (logs / "npu-srv-69" / f"rank_{r}.log").write_text(
            f"[ERROR] 2025-08-22-15:51:58 (PID:5500{r}, Device:{r}, RankID:{r}) ERR02200 DIST call hccl api failed.\n"
            f"EI0006: [PID: 5500{r}] 2025-08-22-15:51:58.662.604 Getting socket times out. Reason: 1. The remote "
            "does not initiate a connect request.\n")
        (logs / "npu-srv-84" / f"rank_{r}.log").write_text(
            f"[rank{16 + r}]: Traceback (most recent call last):\n"
            f"[rank{16 + r}]:   File \"/app/launcher.py\", line 9, in <module>\n"
            f"[rank{16 + r}]:     import torch_npu\n"
            f"[rank{16 + r}]: ImportError: /usr/local/python3.10/lib/python3.10/site-packages/torch_npu/lib/"
            "libtorch_npu.so: undefined symbol: HcclCommInitClusterInfoConfig\n")
    d = Diagnoser(reasoner="offline", kb=None).diagnose(logs, workers=1)
    assert "undefined symbol" in d.events[0].occurrences[0].text
    assert d.faulty_nodes[0].node.startswith("npu-srv-84")


def test_a_command_the_job_ran_failed_by_itself_and_said_why(tmp_path: Path) -> None:
    # sajal-vt/Megatron-DeepSpeed-Summit gpt3-megatron.3328291.e: the job's own code ran ssh to
    # find the master; ssh's complaint is printed above Python's report of its exit status.
    lines = ["WARNING:root:Cannot import JIT optimized kernels. CUDA extension will be disabled.",
             "Host key verification failed.",
             "Traceback (most recent call last):",
             '  File "/gpfs/Megatron-DeepSpeed/megatron/initialize.py", line 59, in initialize_world',
             '    master_addr = str(subprocess.check_output(["ssh", master_addr, "hostname", "-I"])).split()[0][2:]',
             '  File "/gpfs/moe-env-311/lib/python3.11/subprocess.py", line 569, in run',
             "    raise CalledProcessError(retcode, process.args,",
             "subprocess.CalledProcessError: Command '['ssh', 'g13n13', 'hostname', '-I']' returned non-zero exit status 255."]
    texts = event_texts(tmp_path, lines)
    assert "CalledProcessError: Command '['ssh'" in texts[0]
    assert any("Host key verification failed." in t for t in texts[1:])
    # A launcher relaying its training child's exit is teardown: the child's own error leads.
    (tmp_path / "relay").mkdir()
    relay = ["ValueError: num_heads must divide hidden_size", *lines[2:4],
             "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py']' returned non-zero exit status 1."]
    assert "ValueError: num_heads" in event_texts(tmp_path / "relay", relay)[0]


def test_a_hardware_fault_reported_late_explains_the_peers_timeouts(tmp_path: Path) -> None:
    # Independent corpus I, c02: the peers' watchdogs fire, then the Slurm epilog dumps the failed
    # host's kernel log; the Xid line (NVIDIA's format) says why they waited.
    timeouts = [f"[rank{r}]:[E0306 11:51:59.27{r}546 ProcessGroupNCCL.cpp:630] [Rank {r}] Some NCCL operations have failed "
                "or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
                "corrupted/incomplete data." for r in range(3)]
    xid = ("[epilog 2025-03-06T11:52:44] gpu-st-p4d-24xlarge-56 kernel: NVRM: Xid (PCI:0000:70:00): 79, pid='<unknown>', "
           "name=<unknown>, GPU has fallen off the bus.")
    lines = [*TRAINING, *timeouts, "srun: error: gpu-st-p4d-24xlarge-56: task 3: Killed", xid]
    library = FaultLibrary.load(user_dir=tmp_path / "user-patterns")
    assert "GPU has fallen off the bus" in root_text(tmp_path, lines, library=library)
    # Without a hardware report the timeouts stay what there is.
    (tmp_path / "plain").mkdir()
    assert "Some NCCL operations have failed" in root_text(tmp_path / "plain", [*TRAINING, *timeouts], library=library)


def test_a_python_warning_is_passed_over_for_the_hang_after_it(tmp_path: Path) -> None:
    # argonne-lcf/alcf-nccl-tests resnet50 with_aws.log: Python's warnings module says a deadlock is
    # likely and the run goes on; its first BROADCAST then times out on every rank.
    lines = ["start training",
             "/soft/applications/conda/2024-04-29/mconda3/lib/python3.11/multiprocessing/popen_fork.py:66: RuntimeWarning: "
             "os.fork() was called. os.fork() is incompatible with multithreaded code, and JAX is multithreaded, so this "
             "will likely lead to a deadlock.",
             "  self.pid = os.fork()",
             *[f"x3005c0s25b1n0:24012:24113 [0] NCCL INFO Channel 0{i}/0 : 0[0] -> 1[1] via P2P/CUMEM/read" for i in range(4)],
             *[f"[rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: "
               "WorkNCCL(SeqNum=3, OpType=BROADCAST, NumelIn=25610152, NumelOut=25610152, Timeout(ms)=120000) ran for "
               "120001 milliseconds before timing out." for r in range(4)]]
    assert "Watchdog caught collective operation timeout" in root_text(tmp_path, lines)


def test_a_tools_field_under_its_command_is_no_wrapped_line(tmp_path: Path) -> None:
    # Independent corpus I, a04: a launcher's health check echoes hccn_tool's command (a long line
    # ending in a letter) and the tool's answer below it; the answer is a message of its own.
    lines = ["[launcher 2025-04-09 22:16:26,906] 910b-rack2-04: starting 8 local ranks (node_rank=3, master=10.131.150.10:29500)",
             "[health-check 2025-04-09 22:16:37,151] hccn_tool -i 1 -link -g",
             "link status: DOWN",
             "[health-check 2025-04-09 22:16:37,156] hccn_tool -i 1 -ip -g",
             "ipaddr:29.34.3.101"]
    library = FaultLibrary.load(user_dir=tmp_path / "user-patterns")
    assert root_text(tmp_path, lines, library=library) == "link status: DOWN"
