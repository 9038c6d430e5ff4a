"""Wording rules: the last resort of the offline reasoner when no document explains the root.

Each rule is data with provenance: a regex over the root line, the category it suggests,
a real line it was written from, and where that line is (a knowledge doc, which records its
public sources). ``tests/test_wording_rules.py`` runs every rule on its example and over
every knowledge example line, and fails a rule that decides against the docs more often
than with them. Order matters: the first rule that matches decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class WordingRule:
    regex: re.Pattern[str]
    category: str
    subcategory: str
    example: str
    source: str


def _rule(pattern: str, reading: str, example: str, source: str) -> WordingRule:
    category, _, subcategory = reading.partition("/")
    return WordingRule(re.compile(pattern), category, subcategory, example, source)


WORDING_RULES: tuple[WordingRule, ...] = (
    # Not an SSH login refused ("root@worker-1: Permission denied (publickey,password).", pdsh
    # across nodes): keys between nodes are the platform's setup, and its doc says so. Nor NCCL
    # refused its shared memory ("NCCL WARN Call to shm_open failed : Permission denied",
    # pytorch/pytorch#37004): /dev/shm's mode is the node's.
    _rule(r"(?i)^(?!.*shm_open failed).*(?:permission denied(?! \(publickey|, please try again)|access denied|read-only file system)",
          "user/misoperation",
          "PermissionError: [Errno 13] Permission denied: '/data/shared/output/llama7b-sft/checkpoint-500'",
          "knowledge/platform/output-dir-permission-denied.md"),
    # The job's own allocations exhausting device memory are its settings (knowledge/README.md's
    # borderline table); a host or cgroup limit is the platform's (the next rule).
    _rule(r"(?i)CUDA out of memory|NPU out of memory|OutOfMemoryError|\bEL0004\b", "user/configuration",
          "torch.OutOfMemoryError: NPU out of memory. Tried to allocate 72.00 MiB (NPU 0; 61.27 GiB total capacity; "
          "56.05 GiB already allocated; 56.05 GiB current active; 5.04 MiB free; 58.39 GiB reserved in total by PyTorch).",
          "knowledge/ascend/ascend-torch-npu-oom.md"),
    # A bus error in a training process is, far more often than not, shared memory (/dev/shm) running
    # out under a container's small default; a PCIe "Bus Error" is the link's (hardware rules below).
    _rule(r"(?i)no space left|disk quota|out of memory|\boom\b|killed process|cgroup|(?<!PCIe )\bbus error\b",
          "platform/resource_management",
          "slurmstepd: error: Detected 1 oom_kill event in StepId=123456.0. Some of the step tasks have been OOM Killed.",
          "knowledge/platform/cgroup-oom-killed.md"),
    _rule(r"(?i)preempt|evict|cancelled at|time limit|\bdrain", "platform/scheduling",
          "slurmstepd: error: *** STEP 1999616.0 ON r6i4n5 CANCELLED AT 2021-05-27T21:42:11 DUE TO TIME LIMIT ***",
          "bigscience-workshop/bigscience experiments/gpt2-meg-ds-zero (Slurm output)"),
    _rule(r"(?i)version|undefined symbol|incompatib|not supported|no kernel image|too old",
          "user/software_incompatibility",
          "ImportError: /usr/local/lib/python3.11/site-packages/torch_npu/lib/libtorch_npu.so: undefined symbol: "
          "MsprofSysCycleTime",
          "knowledge/ascend/ascend-torch-npu-cann-version-mismatch.md"),
    # A feature that needs newer hardware or software than the job has: "RuntimeError: FlashAttention
    # only supports Ampere GPUs or newer." (OpenGVLab/InternVL#918), "XLA requires ptxas version 11.8 or higher".
    _rule(r"(?i)\b(?:or|and) (?:higher|newer|later|above)\b|>=\s*\d+\.\d", "user/software_incompatibility",
          "RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "OpenGVLab/InternVL#918"),
    _rule(r"ModuleNotFoundError|No module named|ImportError", "user/software_incompatibility",
          "ModuleNotFoundError: No module named 'fused_layer_norm_cuda'", "knowledge/framework/apex-extension-not-built.md"),
    # An option the job turned on that needs another it did not: "CP on deepseek_v32 requires 'npu_dsa'
    # converter" (hicann/torchtitan-npu docs/feature_guides/parallelism/custom_cp.md).
    _rule(r"(?i)\brequires\b|\bonly supports?\b|\bis only supported\b|\bonly available\b", "user/configuration",
          "CP on deepseek_v32 requires 'npu_dsa' converter", "hicann/torchtitan-npu docs/feature_guides/parallelism/custom_cp.md"),
    # NCCL refusing how it was called is the caller's code (a duplicate GPU, a mismatched collective).
    _rule(r"(?i)invalid usage|ncclInvalidUsage", "user/script_bug",
          "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.", "knowledge/cuda/nccl-invalid-usage.md"),
    # A path that is not what the job said it is: "IsADirectoryError: [Errno 21] Is a directory:
    # '/work2/11095/jwan4/PanguWeather/v2.0'" (rcc-uchicago/pedramh-profiling e3sm_train_3166999.e).
    _rule(r"(?i)divisible|must be|invalid (value|argument|config)|\bnan\b|loss scale|not found|no such file|"
          r"(is|not) a directory|could not find|cannot find|can't find",
          "user/configuration",
          "OSError: libhccl.so: cannot open shared object file: No such file or directory",
          "knowledge/ascend/cann-env-not-sourced.md"),
    # Not when the line names a device or link fault first and CANN's generic "EE9999: Inner
    # Error!" only follows it ("RuntimeError: SUSPECT MEM ERROR, EE9999: Inner Error!", torch_npu's
    # NPUQueue.cpp), nor the driver's own "[driver error:internal error]" (hicann/runtime aclError.md).
    _rule(r"(?i)^(?!.*(?:suspect (?:mem|remote)|link error|op retry failed|driver error|driver module))"
          r".*(?:internal error|inner error|INTERNAL ASSERT|please report (a|this) bug)", "framework/framework_bug",
          "RuntimeError: The Inner error is reported as above.",
          "knowledge/ascend/ascend-torch-npu-async-inner-error.md"),
    _rule(r"(?i)\becc\b|\bxid\b|aicore|\bhbm\b|uncorrectable|fallen off the bus", "hardware/accelerator",
          "[Error]: The aicore execution is abnormal.",
          "knowledge/ascend/npu-aicore-exception.md"),
    _rule(r"(?i)\broce\b|infiniband|\bcqe\b|link (is )?(down|flap)|network is unreachable|no route to host",
          "hardware/network",
          "[PID: 3448331] 2025-12-04-21:59:08.232.310 Execution Error ROCE CQE(EI0013): An error CQE occurred during "
          "operator execution.",
          "knowledge/ascend/cann-ei-hccl-error-family.md"),
    _rule(r"(?i)\bnfs\b|stale file handle|i/o error|lustre|gpfs", "hardware/storage",
          "Mar  3 02:14:55 gpu-node-17 kernel: nfs: server nas01 not responding, still trying",
          "knowledge/platform/nfs-server-not-responding.md"),
    # A native crash is most often binaries that do not belong together, rarely the framework's
    # own bug: TensorFlow's hwloc clashing with Open MPI's (horovod/horovod troubleshooting docs),
    # Horovod built with another compiler (horovod/horovod#1136).
    _rule(r"(?i)segmentation fault|\bSIGSEGV\b", "user/software_incompatibility",
          "Fatal Python error: Segmentation fault", "knowledge/framework/torch-worker-segfault-sigsegv.md"),
    # Python's own exceptions on the root line are raised by the job's code or by its inputs.
    _rule(r"^\s*(\[\w+\]:\s*|\d+:\s*)?(KeyError|AttributeError|TypeError|ValueError|IndexError|NameError|ZeroDivisionError|UnboundLocalError)\b",
          "user/configuration", "[rank3]: KeyError: 'input_ids'", "knowledge/framework/python-exception-in-training-code.md"),
)


def first_rule(text: str) -> WordingRule | None:
    """The first rule whose wording the text carries."""
    return next((r for r in WORDING_RULES if r.regex.search(text)), None)
