"""The job's accelerator stack, read from the library names its lines print."""

import pytest

from agent.stackdetect import detect, fits

# Real lines: LlamaFactory#3839 (Ascend), pytorch/pytorch#113128 and NVIDIA/nccl#230 (CUDA).
ASCEND_LINES = [
    "RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64",
    "EJ0001: 2024-05-21-11:57:54.167.645 Failed to initialize the HCCP process. Reason: Maybe the last training "
    "process is running.",
]
CUDA_LINES = [
    "[rank12]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 12] Process group "
    "watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered",
    "container-e275-1553839402050-12124-01-000057:815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got "
    "async event : local catastrophic error",
]


@pytest.mark.parametrize(
    ("lines", "stack"),
    [
        (ASCEND_LINES, "ascend"),
        (CUDA_LINES, "cuda"),
        (["iteration 10 | loss 2.3", "Traceback (most recent call last):"], "unknown"),
        ([*ASCEND_LINES, *CUDA_LINES], "unknown"),  # both, equally: keep docs of both
    ],
)
def test_detect(lines, stack):
    assert detect(lines) == stack


def test_docs_of_the_other_stack_do_not_fit():
    assert fits("cuda", "cuda") and fits("any", "ascend") and fits("ascend", "unknown")
    assert not fits("ascend", "cuda") and not fits("cuda", "ascend")


def test_steps_naming_only_the_other_stacks_software_are_foreign() -> None:
    from agent.stackdetect import foreign_step

    rebuild = "Rebuild the CUDA extensions (apex, flash-attn, Transformer Engine) against the installed torch."
    assert foreign_step(rebuild, "ascend", "[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!")
    assert not foreign_step(rebuild, "cuda", "")
    assert not foreign_step(rebuild, "unknown", "")
    # The job itself names the package: advice about it is not foreign.
    assert not foreign_step(rebuild, "ascend", "ModuleNotFoundError: No module named 'flash_attn'")
    both = "List the devices each rank sees (nvidia-smi, or npu-smi info on Ascend)."
    assert not foreign_step(both, "ascend", "") and not foreign_step(both, "cuda", "")
    assert foreign_step("Raise HCCL_CONNECT_TIMEOUT on every rank.", "cuda", "NCCL WARN Connect failed")


def test_a_step_for_both_stacks_loses_only_the_other_stacks_clause() -> None:
    from agent.stackdetect import for_stack

    step = "Raise the timeout: init_process_group(timeout=...), DeepSpeed init_distributed(timeout=...); on Ascend HCCL_EXEC_TIMEOUT."
    assert for_stack(step, "cuda", "") == "Raise the timeout: init_process_group(timeout=...), DeepSpeed init_distributed(timeout=...)."
    assert for_stack(step, "ascend", "") == step
    assert for_stack("Run nvidia-smi -q -d ECC on the node.", "ascend", "") == ""


def test_the_tbe_compiler_marks_an_ascend_job() -> None:
    # MindSpore forum topic 1215: the only line of the job.
    assert detect(["[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!"]) == "ascend"


def test_a_doc_for_another_training_framework_advises_only_jobs_that_name_it() -> None:
    from agent.stackdetect import framework_fits, frameworks

    # LeeChangmin0310/RARE-3D logs/train.log: a PyTorch job's numpy ABI error, nothing of MindSpore.
    torch_job = frameworks(['  File "/opt/conda/lib/python3.9/site-packages/torch/utils/data/dataloader.py", line 1, in <module>',
                            "ValueError: numpy.dtype size changed, may indicate binary incompatibility."])
    assert torch_job == frozenset({"torch"})
    assert not framework_fits(["mindspore", "minddata"], torch_job)
    assert framework_fits(["pytorch", "numpy"], torch_job)
    # A one-line excerpt that names no framework keeps every doc (MindSpore Pangu-alpha README).
    assert framework_fits(["mindspore", "mindrecord"], frameworks(["Unexpected error. MindRecordOp init failed, illegal column list"]))
    # mindspore-lab/mindocr FAQ: MindSpore names itself in its log prefix.
    ms_job = frameworks(["[ERROR] MD(1234,fffe,python):2023-03-01-10:00:00.000.000 [mindspore/ccsrc/minddata/dataset/x.cc:10] error"])
    assert framework_fits(["mindspore", "minddata"], ms_job) and not framework_fits(["paddlepaddle"], ms_job)


def test_code_that_asks_for_cuda_on_an_npu_host_does_not_make_a_cuda_job() -> None:
    # Ascend/pytorch#10: bitsandbytes calls torch.cuda on an NPU-only torch build.
    lines = ['  File "/home/u/miniconda3/envs/fedllm/lib/python3.11/site-packages/torch/cuda/__init__.py", line 305, in _lazy_init',
             '    raise AssertionError("Torch not compiled with CUDA enabled")',
             "AssertionError: Torch not compiled with CUDA enabled",
             "[ERROR] 2024-12-11-11:23:51 (PID:471812, Device:0, RankID:-1) ERR99999 UNKNOWN applicaiton exception"]
    assert detect(lines) == "ascend"


def test_one_line_that_only_mentions_a_device_decides_no_stack() -> None:
    # VitalyyBezuglyj/mindspore-resnet scripts/train/log: a GPU run prints its config help,
    # which lists the targets it supports; nothing of CANN ran.
    lines = ["{'enable_modelarts': 'Whether training on modelarts, default: False', 'device_target': "
             "'Target device type, available: [Ascend, GPU, CPU]'}",
             "ValueError: Error, package type mindspore support device type cpu, but got device target GPU"]
    assert detect(lines) == "unknown"
    # One line of a library only a running stack prints still decides.
    assert detect(["EZ9999: Inner Error!"]) == "ascend"
