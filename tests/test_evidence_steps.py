"""Remediation steps read from what the failing line names (agent.reasoners.evidence_steps)."""

from __future__ import annotations

import pytest

from agent.extract import lexicon
from agent.reasoners.evidence_steps import evidence_steps, message_hints, step_from_frames, steps_from_message

# (real line, words the step must name): each reading on the example its comment quotes.
READINGS = [
    ("ModuleNotFoundError: No module named 'vllm.lora.lora_model'", ["'vllm.lora.lora_model'", "pip show vllm"]),
    ("EC0010: Failed to import Python module [ModuleNotFoundError: No module named "
     "'tbe.common.repository_manager.utils.repository_manager_log'.].", ["CANN", "set_env.sh"]),
    ("ModuleNotFoundError: No module named 'acl'", ["CANN", "set_env.sh"]),
    ("OSError: libatb.so: cannot open shared object file", ["libatb.so", "nnal/atb/set_env.sh"]),
    ("ImportError: libhccl.so: cannot open shared object file: No such file or directory", ["libhccl.so", "CANN toolkit"]),
        ("ImportError: cannot import name 'index_first_axis' from 'transformers.integrations.npu_flash_attention' "
     "(/usr/local/python3.10/lib/python3.10/site-packages/transformers/integrations/npu_flash_attention.py)",
     ["'transformers'", "'index_first_axis'", "version"]),
    ("ImportError: cannot import name 'Auc' from 'ppcls.metric.metrics' (/mnt/data1_hdd/wgk/PaddleClas/ppcls/metric/metrics.py)",
     ["job's own module", "checkout"]),
    ("ImportError: /home/zitwang/miniforge3/envs/nanofm/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: "
     "undefined symbol: ncclDevCommDestroy", ["libtorch_cuda.so", "NCCL", "LD_LIBRARY_PATH"]),
    ("OSError: [Errno 28] No space left on device: '/tmp/pymp-2ntknau9'", ["'/tmp/pymp-2ntknau9'", "df -h", "TMPDIR"]),
    ("OSError: [Errno 122] Disk quota exceeded: '/work/proj/ckpt/epoch_14.pth'", ["quota", "'/work/proj/ckpt/epoch_14.pth'"]),
    ("PermissionError: [Errno 13] Permission denied: '/data/shared/output/llama7b-sft/checkpoint-500'",
     ["'/data/shared/output/llama7b-sft/checkpoint-500'", "permissions"]),
    ("FileNotFoundError: [Errno 2] No such file or directory: '/data/train.idx'", ["'/data/train.idx'", "mounted"]),
    ("[rank1]: requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: "
     "https://huggingface.co/HuggingFaceTB/cosmo2-tokenizer/resolve/main/config.json", ["huggingface.co", "429", "HF_HUB_OFFLINE"]),
    ("RuntimeError: Rank 1 failed to pass monitoredBarrier in 2000 ms", ["Rank 1", "py-spy"]),
    ("r11i6n2:486514:486651 [1] include/socket.h:403 NCCL WARN Connect to 10.148.3.247<56821> failed : Connection refused",
     ["10.148.3.247:56821", "NCCL_SOCKET_IFNAME"]),
    ("pool0-00008:1391870:1393239 [7] init.cc:904 NCCL WARN Duplicate GPU detected : rank 15 and rank 7 both on CUDA device e4000",
     ["Ranks 7 and 15", "e4000", "CUDA_VISIBLE_DEVICES"]),
    ("172.17.0.2: mchorse@172.17.0.2: Permission denied (publickey,password).", ["172.17.0.2", "passwordless SSH"]),
    ("pdsh@6dca91c32bfd: 172.17.0.2: ssh exited with exit code 255", ["172.17.0.2", "SSH"]),
    ("EZ9999: [PID: 775] 2025-02-16-12:18:25.258.321 Cannot find bin of op Range, integral key 0/1/|int64/ND/int64/ND/.",
     ["operator Range", "kernels (ops) package"]),
    ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB (GPU 0; 79.33 GiB total capacity; "
     "27.16 GiB already allocated; 244.44 MiB free; 31.59 GiB reserved in total by PyTorch)", ["CUDA device 0", "3.91 GiB", "micro-batch"]),
    ("Exception: No video found in data/kinetics100/train_video", ["'data/kinetics100/train_video'", "working directory"]),
    ('RuntimeError: [/opt/dali/dali/util/std_file.cc:29] Assert on "fp_ != nullptr" failed: Could not open file '
     "/data/train.rec: No such file or directory", ["'/data/train.rec'"]),
    ("ImportError: /usr/lib64/libstdc++.so.6: version `GLIBCXX_3.4.20' not found (required by /home/u/.cache/Python-Eggs/"
     "resample2d_cuda-0.0.0-py2.7-linux-x86_64.egg-tmp/resample2d_cuda.so)", ["resample2d_cuda.so", "GLIBCXX_3.4.20", "GCC module"]),
]


@pytest.mark.parametrize(("line", "names"), READINGS)
def test_each_reading_names_what_its_example_line_names(line: str, names: list[str]) -> None:
    steps = steps_from_message(line)
    assert len(steps) == 1
    for name in names:
        assert name in steps[0]


def test_an_oom_on_a_nearly_full_device_points_at_states_not_the_batch() -> None:
    line = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 606.00 MiB (GPU 1; 79.18 GiB total capacity; "
            "77.07 GiB already allocated; 468.31 MiB free; 77.41 GiB reserved in total by PyTorch)")
    assert "states" in steps_from_message(line)[0]
    assert "weights" in steps_from_message(line, stage="model_loading")[0]


def test_an_oom_on_a_device_another_process_filled_says_so() -> None:
    # And1210/FER_SSL train_2.out: PyTorch held 4.2 of 22.17 GiB with 154 MiB free.
    shared = ("RuntimeError: CUDA out of memory. Tried to allocate 576.00 MiB (GPU 0; 22.17 GiB total capacity; 3.47 GiB "
              "already allocated; 153.81 MiB free; 4.20 GiB reserved in total by PyTorch)")
    assert "another process" in steps_from_message(shared)[0] and "17.8 GiB" in steps_from_message(shared)[0]
    # JunyeP/Interpretability run.log: the process itself held nearly all of it.
    own = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 392.00 MiB. GPU 0 has a total capacity of 10.57 GiB "
           "of which 38.19 MiB is free. Including non-PyTorch memory, this process has 10.53 GiB memory in use.")
    assert "another process" not in steps_from_message(own)[0]


def test_lines_naming_nothing_give_no_step() -> None:
    assert steps_from_message("iteration 100 | loss 2.1 | lr 1e-4") == []
    assert steps_from_message("RuntimeError: NCCL communicator was aborted on rank 3.") == []
    # A path before the missing words is who complains, not what is missing (LLaMA-Factory#5217).
    assert steps_from_message("/bin/sh: 1: torchrun: not found") == []
    assert steps_from_message("include/socket.h:416 NCCL WARN NET/IB : device not found") == []


TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/home/u/LLaMA-Factory/src/llamafactory/train/sft/trainer.py", line 174, in prediction_step',
    "    loss, outputs = self.compute_loss(model, inputs, return_outputs=True)",
    '  File "/home/u/env/lib/python3.11/site-packages/torch/_tensor.py", line 1043, in __iter__',
    '    raise TypeError("iteration over a 0-d tensor")',
]


def test_an_exception_raised_in_a_library_names_the_library_and_the_calling_frame() -> None:
    step = step_from_frames("TypeError: iteration over a 0-d tensor", TRACEBACK)
    assert step is not None and "inside torch" in step and "trainer.py:174 (prediction_step)" in step


def test_an_exception_raised_in_the_checkout_names_that_frame() -> None:
    own = [TRACEBACK[0], '  File "/home/u/my-project/train.py", line 174, in prediction_step', TRACEBACK[2]]
    step = step_from_frames("KeyError: 'labels'", own)
    assert step is not None and "train.py:174" in step and "checkout" in step
    # A framework run from its checkout is the stack, not the job's code: its tracker and releases.
    step = step_from_frames("KeyError: 'labels'", TRACEBACK[:3])
    assert step is not None and "inside llamafactory" in step and "issue tracker" in step
    assert step_from_frames("NCCL error: unhandled system error", TRACEBACK) is None  # not a Python exception


def test_an_error_between_two_packages_names_where_one_called_the_other() -> None:
    # verl-project/verl#5200: verl's checkpoint manager calls transformers without trust_remote_code.
    before = ["Traceback (most recent call last):",
              '  File "/opt/verl/verl/utils/checkpoint/fsdp_checkpoint_manager.py", line 288, in save_checkpoint',
              "    auto_model_cls.from_config(model_config)",
              '  File "/usr/local/lib/python3.12/dist-packages/transformers/dynamic_module_utils.py", line 769, in '
              "resolve_trust_remote_code",
              "    raise ValueError("]
    step = step_from_frames("ValueError: The repository /models/x contains custom code which must be executed", before)
    assert step is not None and "inside transformers" in step and "called from verl at" in step
    assert "fsdp_checkpoint_manager.py:288 (save_checkpoint)" in step and "issue trackers" in step


def test_a_companion_line_is_read_when_the_root_names_nothing() -> None:
    named, _ = evidence_steps("RuntimeError: DataLoader worker (pid 4242) exited unexpectedly", [],
                              ["OSError: [Errno 28] No space left on device"])
    assert named and "full" in named[0]


def test_the_message_s_own_remedy_is_quoted_and_boilerplate_is_not() -> None:
    ddp = ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error "
           "indicates that your module has parameters that were not used in producing loss. You can enable unused parameter "
           "detection by passing the keyword argument `find_unused_parameters=True` to "
           "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs participate in "
           "calculating loss. Please include the loss function and the structure of the return value of `forward` of your "
           "module when reporting this issue")
    hints = message_hints([ddp])
    assert len(hints) == 1 and "find_unused_parameters=True" in hints[0] and "torch.nn.parallel.DistributedDataParallel" in hints[0]
    # A long message wrapped over lines is read as one text.
    assert message_hints(["RuntimeError: Expected all tensors to be on the same device. Expected NPU tensor, please check",
                          "whether the input tensor device is correct."]) == ["Please check whether the input tensor device is correct."]
    assert message_hints(["RuntimeError: CUDA error: unknown error. For debugging consider passing CUDA_LAUNCH_BLOCKING=1."]) == []
    assert message_hints(["Permission denied, please try again."]) == []
    # PyTorch's exit-time warning under any crash points at a page, not at the fix (VirenLoka/GlueFormer torchrun logs).
    assert message_hints(["[rank0]:[W222 08:15:47.095540416 ProcessGroupNCCL.cpp:1553] Warning: WARNING: "
                          "destroy_process_group() was not called before program exit, which can leak resources. For more "
                          "info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())"]) == []
    # transformers' trust_remote_code error (verl-project/verl#5200): the place to look is not a fix, the next sentence is.
    remote = ("ValueError: The repository /models/x contains custom code which must be executed to correctly load the model. "
              "You can inspect the repository content at /models/x. Please pass the argument `trust_remote_code=True` to "
              "allow custom code to be run.")
    assert message_hints([remote]) == ["Please pass the argument `trust_remote_code=True` to allow custom code to be run."]
    assert message_hints(["The trainer will consider this sentence about trying things"]) == []


def test_lexicon_readings_on_their_examples() -> None:
    assert lexicon.role_of("ERROR: test_autograd_backward (__main__.TestMode)") == "context"
    assert lexicon.announces_fallback("slurmstepd: error: couldn't chdir to `<PATH>': No such file or directory: going to <PATH> instead")
    assert not lexicon.announces_fallback("FileNotFoundError: [Errno 2] No such file or directory: <PATH>")
    assert lexicon.is_python_warning("<PATH>:<NUM>: RuntimeWarning: Using fork() can cause Polars to deadlock in the child process.")
    assert not lexicon.is_python_warning("RuntimeError: CUDA error: an illegal memory access was encountered")


def test_diagnose_leads_with_what_the_log_names(tmp_path) -> None:
    from agent.pipeline import Diagnoser

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "console.log").write_text(
        "Starting training with 8 GPUs\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/proj/train.py", line 12, in <module>\n'
        "    from fancylib.sub import thing\n"
        "ModuleNotFoundError: No module named 'fancylib.sub'\n"
    )
    d = Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1)
    assert "'fancylib.sub'" in d.remediation[0] and "pip show fancylib" in d.remediation[0]


def test_the_root_lines_are_read_back_around_the_root(tmp_path) -> None:
    from agent.pipeline import Diagnoser
    from agent.rootlines import read_root_lines

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "console.log").write_text(
        "step 1 loss 2.0\n"
        '  File "/home/u/proj/train.py", line 40, in step\n'
        "RuntimeError: Expected all tensors to be on the same device. Expected NPU tensor, please check\n"
        "whether the input tensor device is correct.\n"
    )
    run = Diagnoser(reasoner="offline", library=None, kb=None).analyze(logs, workers=1)
    around = read_root_lines(run.extraction.mined, run.diagnosis)
    assert any("train.py" in line for line in around.before)
    assert around.after and "whether the input tensor device" in around.after[0]
    assert any("Please check whether the input tensor device is correct." in s for s in run.diagnosis.remediation)


def test_a_time_limit_that_ended_a_hang_says_so_and_a_crash_does_not(tmp_path) -> None:
    from agent.pipeline import Diagnoser

    def job(name: str, last: str, between: tuple[str, ...] = ()) -> list[str]:
        logs = tmp_path / name / "logs"
        logs.mkdir(parents=True)
        lines = [f"[2024-05-01 10:{i:02d}:00] iteration {i * 10}/1000 | loss 2.{i:02d} | elapsed time per iteration (s): 60.0"
                 for i in range(30)]
        lines += [*between, last]
        (logs / "slurm-42.out").write_text("\n".join(lines) + "\n")
        return Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1).remediation

    hung = job("hung", "slurmstepd: error: *** JOB 42 ON node7 CANCELLED AT 2024-05-01T12:30:00 DUE TO TIME LIMIT ***")
    assert any("logged no progress after iteration 290" in s and "hung" in s for s in hung)
    crashed = job("crashed", "[2024-05-01 12:30:00] RuntimeError: CUDA error: an illegal memory access was encountered")
    assert not any("logged no progress" in s for s in crashed)
    # A job still logging its own work (a long validation) when the limit hit was slow, not hung
    # (rcc-uchicago/pedramh-profiling e3sm_train_3180828: validation at 95 s per batch, then TIME LIMIT).
    validating = job("validating", "slurmstepd: error: *** JOB 42 ON node7 CANCELLED AT 2024-05-01T12:30:00 DUE TO TIME LIMIT ***",
                     ("[2024-05-01 11:40:05] Finished Bias Plots...",
                      "[2024-05-01 12:05:12] Saved bias plot (level value heuristic) to: results/plots/bias_epoch_1.png",
                      "[2024-05-01 12:29:37] ===== END TRAINER FIRST FORWARD PASS DIAGNOSTIC ====="))
    assert not any("logged no progress" in s for s in validating)
    # tqdm draws its bar without a time and Slurm's stop lands on it (pedramh-profiling
    # e3sm_train_3166345.e): the undated bar may fill the silence, so no hang is claimed.
    bar = " 0%|   | 19/9125 [25:54<181:35:17, 71.79s/it]"
    barred = job("barred", bar + "slurmstepd: error: *** JOB 42 ON node7 CANCELLED AT 2024-05-01T12:30:00 DUE TO TIME LIMIT ***",
                 ("Epoch [1/100], Loss: 0.1461:" + bar,))
    assert not any("logged no progress" in s for s in barred)
    # An ordinary undated line was printed once: the silence after it is still a silence.
    info = job("info", "slurmstepd: error: *** JOB 42 ON node7 CANCELLED AT 2024-05-01T12:30:00 DUE TO TIME LIMIT ***",
               ("node-01:63050:63263 [2] NCCL INFO Bootstrap : Using bond0:10.68.0.5<0>",))
    assert any("logged no progress after iteration 290" in s for s in info)


def test_a_fallback_warning_above_the_traceback_names_the_unsupported_operator() -> None:
    before = ["[W compiler_depend.ts:51] Warning: CAUTION: The operator 'aten::linalg_lstsq.out' is not currently supported "
              "on the NPU backend and will fall back to run on the CPU. This may have performance implications.",
              "Traceback (most recent call last):", '  File "temp_1.py", line 4, in <module>']
    named, _ = evidence_steps("RuntimeError: _copy_from_and_resize now only support copy with same size!", before)
    assert named and "aten::linalg_lstsq.out" in named[0] and "NPU" in named[0]
    assert steps_from_message("RuntimeError: Tensors must be contiguous")[0].count(".contiguous()") == 1
    assert step_from_frames("KeyError: 'x'", ['  File "distributed/_mode_cases/case.py", line 18, in run']) is not None
    # Ascend/pytorch migration guide: next() on an empty generator inside torch's module.py.
    stop = step_from_frames("StopIteration", [
        '  File "/root/YoloV3/mmdetection/mmdet/models/detectors/base.py", line 251, in train_step',
        '  File "/usr/local/python3.7.5/lib/python3.7/site-packages/torch/nn/modules/module.py", line 660, in __call__',
        "    var = next((v for v in var.values() if isinstance(v, torch.Tensor)))"])
    assert stop is not None and "inside torch" in stop and "var = next(" in stop


def test_a_dist_packages_frame_belongs_to_its_package() -> None:
    frames_ = ['  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1501, in _call_impl']
    step = step_from_frames("TypeError: forward() got an unexpected keyword argument 'labels'", frames_)
    assert step is not None and "inside torch" in step
    flash = ("ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
             "undefined symbol: _ZN3c104cuda9SetDeviceEi")
    assert "(flash_attn_2_cuda) expects PyTorch" in steps_from_message(flash)[0]


def test_the_message_below_a_bare_header_or_inside_a_help_block_is_quoted() -> None:
    from agent.reasoners.evidence_steps import message_below

    # huggingface/accelerate troubleshooting: the exception's message follows its header.
    shapes = ["", "Cannot apply desired operation due to shape mismatches. All shapes across devices must be valid.", "",
              "Operation: `accelerate.utils.operations.broadcast`", "Input shapes:", "  - Process 0: [1, 5]",
              "  - Process 1: [1, 2, 5]"]
    quote = message_below("accelerate.utils.operations.DistributedOperationException:", shapes)
    assert quote is not None and "shape mismatches" in quote and "Process 1: [1, 2, 5]" in quote
    # Open MPI's help text framed by dashes (mlcommons training_results_v4.0, Oracle resnet).
    block = ["srun: error: compute-hpc-node-25: task 0: Exited with exit code 1", "-" * 74,
             'The application appears to have been direct launched using "srun",',
             "but OMPI was not built with SLURM's PMI support and therefore cannot", "execute.", "-" * 74, "*** later"]
    quote = message_below("[compute-hpc-node-25:363735] OPAL ERROR: Unreachable in file pmix3x_client.c at line 111", block)
    assert quote is not None and "PMI support" in quote and "later" not in quote
    assert message_below("RuntimeError: CUDA error: out of memory", ["Traceback ...", "  File x"]) is None


def test_a_framed_heading_reads_on_and_launcher_boilerplate_is_not_quoted() -> None:
    from agent.reasoners.evidence_steps import message_below

    rule = "-" * 66
    # mindspore-lab/mindocr FAQ: the heading sits in its own frame, the message in the next one.
    pipeline = ["", rule, "- Dataset Pipeline Error Message:", rule, "[ERROR] No cast for the specified DataType was found.",
                "", rule, "- C++ Call Stack: (For framework developers)"]
    quote = message_below("Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.", pipeline)
    assert quote is not None and "No cast for the specified DataType" in quote and "C++" not in quote
    # horovod/horovod#1136: mpirun's notice after any failed rank says nothing about the cause.
    mpirun = ["-" * 55, "Primary job  terminated normally, but 1 process returned",
              "a non-zero exit code. Per user-direction, the job has been aborted.", "-" * 55]
    assert message_below("[gn05:194927] *** End of error message ***", mpirun) is None
    # MindSpore's developer section in its own frame is no message (mindspore-lab/models LPCNet train_timers3.log).
    developers = ["", "-" * 52, "- C++ Call Stack: (For framework developers)", "-" * 52,
                  "mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_memory_adapter.cc:62 Initialize"]
    assert message_below("RuntimeError: Malloc device memory failed, free memory size is less than half of total memory "
                         "size.", developers) is None
    assert message_hints(["wandb: You can sync this run to the cloud by running:"]) == []


def test_a_bare_exception_quotes_the_statement_above_it() -> None:
    # aws-samples/awsome-distributed-training (Megatron GPT-3 README): --eval-iters 0 without --split 100,0,0.
    before = ['  File "/workspace/Megatron-LM/megatron/core/datasets/megatron_dataset.py", line 42, in __init__',
              "    assert num_samples > 0"]
    step = step_from_frames("AssertionError", before)
    assert step is not None and "`assert num_samples > 0`" in step
    assert "failing statement" not in (step_from_frames("AssertionError: num_samples is 0", before) or "")


def test_a_user_verdict_without_a_doc_collects_the_command_not_the_kernel_log(tmp_path) -> None:
    from agent.pipeline import Diagnoser

    logs = tmp_path / "logs"
    logs.mkdir()
    for rank in range(2):  # hutuxian/RSPNet log/workerlog.N: every rank fails on the same data path
        (logs / f"workerlog.{rank}.log").write_text(
            "Traceback (most recent call last):\n"
            '  File "/home/u/RSPNet/datasets/classification/kinetics.py", line 37, in __init__\n'
            "Exception: No video found in data/kinetics100/train_video\n")
    d = Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1)
    assert d.category == "user"
    assert any("launch command" in s for s in d.collect_next) and not any("dmesg" in s for s in d.collect_next)
    assert "'data/kinetics100/train_video'" in d.remediation[0]


def test_a_path_mkdir_could_not_create_names_its_missing_parent() -> None:
    # MrCogito/Deep_learning_2023 (LSF job 19629902): a one-level mkdir of a nested output folder.
    err = "FileNotFoundError: [Errno 2] No such file or directory: 'outputs/1WorkingSetup/1WorkingSetup-0/'"
    named, _ = evidence_steps(err, ['  File "main.py", line 47, in run', "    if not exists(folder): mkdir(folder)"])
    assert named and "parent does not exist" in named[0] and "makedirs" in named[0]
    # Opening a file that is not there is a missing input, not a missing parent.
    named, _ = evidence_steps(err, ['  File "main.py", line 47, in run', "    with open(folder) as f:"])
    assert named and "does not exist where the job ran" in named[0]


def test_an_eggs_directory_names_its_package_without_the_version() -> None:
    before = ['    File "/root/.local/lib/python3.7/site-packages/byteps-0.7.2-py3.7-linux-x86_64.egg/byteps/torch/__init__.py", '
              "line 403, in broadcast_optimizer_state", "      p = torch.Tensor([p]).cuda()"]
    step = step_from_frames("  TypeError: must be real number, not NoneType", before)
    assert step is not None and "inside byteps (" in step


def test_a_stack_that_raised_on_purpose_rejected_the_jobs_input() -> None:
    from agent.reasoners.evidence_steps import rejected_input

    # hiyouga/LlamaFactory#7703: run from outside the checkout, the dataset name is unknown.
    own_check = ['  File "/kaggle/working/LLaMA-Factory/src/llamafactory/data/loader.py", line 303, in get_dataset',
                 '  File "/kaggle/working/LLaMA-Factory/src/llamafactory/data/parser.py", line 129, in get_dataset_list',
                 '    raise ValueError(f"Undefined dataset {name} in {DATA_CONFIG}.")']
    assert rejected_input(own_check)
    step = step_from_frames("ValueError: Undefined dataset mllm_demo in dataset_info.json.", own_check)
    assert step is not None and "on purpose" in step and "not the code" in step
    # torch refusing Megatron's call (no process group yet) is not the job's input (alibaba/ChatLearn FAQ).
    called = ['  File "/root/Megatron-LM/megatron/training/checkpointing.py", line 426, in save_checkpoint',
              '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 1001, in _get_default_group',
              "    raise ValueError("]
    assert not rejected_input(called)
    # A re-raised worker exception is not a check at all (torch/_utils.py reraise).
    assert not rejected_input(['  File "/usr/local/lib/python3.10/dist-packages/torch/_utils.py", line 719, in reraise',
                               "    raise exception"])


def test_a_message_that_numbers_its_own_workarounds_is_quoted() -> None:
    # protobuf's descriptor error (EleutherAI/gpt-neox commit 86206da).
    lines = ["TypeError: Descriptors cannot not be created directly.",
             "If you cannot immediately regenerate your protos, some other possible workarounds are:",
             " 1. Downgrade the protobuf package to 3.20.x or lower."]
    assert message_hints(lines)[0] == "Downgrade the protobuf package to 3.20.x or lower."
    assert message_hints(["Epoch 1. Use of this model is restricted"]) == []  # not a numbered list item


def test_an_argument_the_library_dropped_is_named() -> None:
    # aws-samples/awsome-distributed-training commit bff3aa29: datasets 4 dropped trust_remote_code.
    step = steps_from_message("[ERROR] datasets.load: trust_remote_code is not supported anymore.")
    assert step and "`trust_remote_code`" in step[0] and "by datasets" in step[0] and "remove it" in step[0]


def test_a_collective_timeout_names_the_nccl_settings_the_job_changed(tmp_path) -> None:
    from agent.pipeline import Diagnoser

    def steps(name: str, settings: list[str]) -> list[str]:
        logs = tmp_path / name
        logs.mkdir()
        # argonne-lcf/alcf-nccl-tests pytests/VAE with_aws.log: PHB with the OFI plugin, then every rank times out.
        lines = [*settings, "[2024-11-08 21:20:00] epoch 0 starting",
                 "[rank0]:[E1108 21:30:01.000000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
                 "timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600003 "
                 "milliseconds before timing out."]
        (logs / "console.log").write_text("\n".join(lines) + "\n")
        return Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1).remediation

    changed = steps("phb", ["x3006c0s13b0n0:21304:21304 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to PHB",
                            "x3006c0s13b0n0:21304:21304 [0] NCCL INFO NCCL_CROSS_NIC set by environment to 1."])
    assert any("NCCL_NET_GDR_LEVEL=PHB, NCCL_CROSS_NIC=1," in s for s in changed)
    assert not any("changed NCCL settings" in s for s in steps("defaults", []))


def test_a_library_checking_a_value_is_read_as_a_setting_not_a_bug() -> None:
    # verl-project/verl PR #5687: TensorRT-LLM's attention asserts the heads divide by TP; Python
    # 3.11 underlines the statement with carets, which are not the statement.
    before = ['  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/modules/attention.py", line 251, in __init__',
              "    assert self.num_heads % tp_size == 0",
              "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"]
    step = step_from_frames("AssertionError", before)
    assert step is not None and "`assert self.num_heads % tp_size == 0`" in step
    assert "checks a value" in step and "move to the release" not in step
    # A message that only says something "must be executed" is no value check.
    other = step_from_frames("ValueError: The repository /models/x contains custom code which must be executed",
                             ['  File "/usr/local/lib/python3.12/dist-packages/transformers/dynamic_module_utils.py", '
                              "line 769, in resolve_trust_remote_code", "    raise ValueError("])
    assert other is not None and "checks a value" not in other


def test_a_runtime_error_whose_frames_decided_the_verdict_gets_its_frame_step() -> None:
    # lucidrains/ema-pytorch#36: every frame is ema_pytorch's or torch's.
    before = [' File "path/python3.10/site-packages/ema_pytorch/ema_pytorch.py", line 351, in update_moving_average',
              "   self.inplace_lerp(tgt, src, 1. - current_decay)",
              ' File "path/python3.10/site-packages/ema_pytorch/ema_pytorch.py", line 42, in inplace_lerp',
              "   tgt.lerp_(src, weight)"]
    text = "RuntimeError: expected dtype float for `end` but got dtype c10::BFloat16"
    assert step_from_frames(text, before) is None  # a RuntimeError's frames say little by default
    step = step_from_frames(text, before, any_exception=True)
    assert step is not None and "inside ema_pytorch" in step and "no frame is the job's own code" in step


def test_a_feature_that_names_what_it_needs_is_told_to_provide_it_or_stop_using_it() -> None:
    # hicann/torchtitan-npu custom_cp.md and low_precision_training.md; OpenGVLab/InternVL#918.
    [step] = steps_from_message("CP on deepseek_v32 requires 'npu_dsa' converter")
    assert "CP on deepseek_v32 needs 'npu_dsa' converter" in step
    [step] = steps_from_message("[MXFP8/Hif8] is only supported on Ascend950 or higher architecture")
    assert "[MXFP8/Hif8] works only with Ascend950 or higher architecture" in step
    [step] = steps_from_message("RuntimeError: FlashAttention only supports Ampere GPUs or newer.")
    assert "FlashAttention works only with Ampere GPUs or newer," in step
    # What a function accepts is no platform to move to (Ascend/torchtitan-npu swap-optimizer case).
    assert steps_from_message("NotImplementedError: Flattening optimizer state_dict only supports tensor, int, float, "
                              "dict states now.") == []


def test_a_dataset_refusing_a_value_inside_a_dataloader_worker_is_the_jobs_setting() -> None:
    # HappynessI/verl-for-AgentGym textcraft SFT log: the main process's frames above "Original Traceback"
    # and torch's fetch are only the way into verl's dataset, which refuses the sample on purpose.
    before = ['  File "/Data/wyh/verl/verl/trainer/fsdp_sft_trainer.py", line 752, in fit',
              "    for step_in_epoch, data in enumerate(",
              '  File "/home/wyh/miniconda3/envs/verl/lib/python3.12/site-packages/tqdm/std.py", line 1181, in __iter__',
              "    for obj in iterable:",
              "ValueError: Caught ValueError in DataLoader worker process 3.",
              "Original Traceback (most recent call last):",
              '  File "/home/wyh/miniconda3/envs/verl/lib/python3.12/site-packages/torch/utils/data/_utils/fetch.py", '
              "line 52, in fetch",
              "    data = [self.dataset[idx] for idx in possibly_batched_index]",
              '  File "/Data/wyh/verl/verl/utils/dataset/multiturn_sft_dataset.py", line 362, in __getitem__',
              '    raise ValueError(f"{sequence_length=} is larger than {self.max_length=}")']
    step = step_from_frames("ValueError: sequence_length=5284 is larger than self.max_length=4096", before)
    assert step is not None and "on purpose" in step and "not the code" in step
