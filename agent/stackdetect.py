"""Which accelerator stack a job runs: Ascend (CANN/HCCL/torch_npu) or CUDA (NCCL/NVIDIA).

Why: advice for the wrong stack is worse than none (HCCL steps on an NVIDIA job send an
SRE after a library the job never loaded). Each stack's runtime prints its own library
names, so counting the lines that name one is enough; a job that names neither, or both
about equally, is ``unknown`` and keeps docs of both stacks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Each marker is a name only that stack's software prints (real examples in tests/test_stackdetect.py).
# MindSpore is no marker: it trains on GPUs too (VitalyyBezuglyj/mindspore-resnet, a GPU run), so its name
# says which framework runs, not which accelerator (``frameworks`` reads that).
ASCEND = re.compile(
    r"torch_npu|\bHCCL\b|\bhccl\b|\bCANN\b|\bNPU\b|\bnpu\b|Ascend|ascend|\bE[EHIJKLZ]\d{4}\b|aclnn|aclrt|"
    r"\bERR\d{5}\b|MindSpeed|ProcessGroupHCCL|\bplog\b|\bTBE\b"
)
CUDA = re.compile(r"\bNCCL\b|\bnccl\b|\bCUDA\b|\bcuda\b|\bNVRM\b|\bXid\b|cudnn|cuDNN|cublas|CUBLAS|nvidia|NVIDIA")
DOMINANCE = 2.0  # one stack must be named this many times as often as the other
# Names only a running stack prints (its libraries, error codes, the driver). A single line that
# merely mentions a device ("device_target: 'Ascend, GPU or CPU'" in a GPU job's printed config
# help, VitalyyBezuglyj/mindspore-resnet scripts/train/log) decides nothing; two such lines, or
# one of these, do. (A single "CUDA" in a job's lines is evidence enough the other way: the name
# appears in paths and messages of GPU jobs far more than in anyone's config help.)
ASCEND_STRONG = re.compile(r"torch_npu|\bHCCL\b|\bhccl\b|\bCANN\b|\bE[EHIJKLZ]\d{4}\b|aclnn|aclrt|\bERR\d{5}\b|MindSpeed|\bTBE\b|\bplog\b")


# Lines that name CUDA without running it: a traceback's file paths (".../torch/cuda/__init__.py")
# and the messages that say CUDA is absent, which an NPU or CPU host prints when code asks for it
# ("AssertionError: Torch not compiled with CUDA enabled", Ascend/pytorch#10).
_FRAME_LINE = re.compile(r'^\s*File "')
_NO_CUDA = re.compile(r"not compiled with CUDA|cuda\.is_available\(\) is False|No CUDA GPUs are available")


def detect(texts: Iterable[str]) -> str:
    """``ascend``, ``cuda`` or ``unknown`` for the job whose lines (or samples) these are."""
    ascend = cuda = ascend_strong = 0
    for text in texts:
        if ASCEND.search(text):
            ascend += 1
            ascend_strong += bool(ASCEND_STRONG.search(text))
        cuda += bool(CUDA.search(text)) and not _FRAME_LINE.match(text) and not _NO_CUDA.search(text)
    if ascend > DOMINANCE * cuda and (ascend_strong or ascend >= 2):
        return "ascend"
    if cuda > DOMINANCE * ascend:
        return "cuda"
    return "unknown"


# Training frameworks a job runs instead of PyTorch: a doc written for one of them explains
# another framework's message only by coincidence of wording (a MindSpore GeneratorDataset
# doc is no reading of a numpy ABI error in a PyTorch job). Doc component -> the name the
# framework's own lines print ("[mindspore/ccsrc/...]", "paddle.distributed.launch",
# "mxnet.base.MXNetError", "tensorflow/core/...").
FRAMEWORK_COMPONENTS = {
    "mindspore": "mindspore", "minddata": "mindspore", "mindrecord": "mindspore", "mindformers": "mindspore",
    "paddlepaddle": "paddle", "paddle": "paddle", "paddle.distributed.launch": "paddle",
    "mxnet": "mxnet", "tensorflow": "tensorflow",
}
_FRAMEWORK_NAMES = re.compile(r"(?i)(mindspore|paddle|mxnet|tensorflow)|(\btorch\b|torch[._/]|pytorch)")


def frameworks(texts: Iterable[str]) -> frozenset[str]:
    """The training frameworks the job's lines name (PyTorch as ``torch``)."""
    return frozenset((m.group(1) or "torch").lower() for text in texts for m in _FRAMEWORK_NAMES.finditer(text))


def framework_fits(doc_components: Iterable[str], job_frameworks: frozenset[str]) -> bool:
    """Whether a doc may advise the job by wording alone: not a doc for a framework when the
    job's lines name frameworks and not that one. A one-line excerpt that names none keeps
    every doc ("Unexpected error. MindRecordOp init failed, illegal column list", MindSpore's
    Pangu-alpha README)."""
    needed = {FRAMEWORK_COMPONENTS[c.lower()] for c in doc_components if c.lower() in FRAMEWORK_COMPONENTS}
    return not needed or not job_frameworks or bool(needed & job_frameworks)


def fits(doc_stack: str, job_stack: str) -> bool:
    """Whether a doc for ``doc_stack`` may advise a job on ``job_stack``."""
    return job_stack == "unknown" or doc_stack in ("any", job_stack)


# Software only one stack ships: a step that names one is for that stack's jobs. An Ascend
# job has no apex/flash-attn CUDA wheels to rebuild, a CUDA job no HCCL variables to set.
CUDA_ONLY_STEP = re.compile(
    r"nvidia-smi|\bdcgmi\b|\bnvcc\b|CUDA_VISIBLE_DEVICES|\bNCCL_[A-Z_]+|\bapex\b|flash[-_]attn|[Tt]ransformer[- ]?[Ee]ngine|"
    r"\bcuDNN\b|\bcudnn\b|\bCUDA (?:toolkit|extension|wheel)s?\b|\bXid\b"
)
ASCEND_ONLY_STEP = re.compile(r"npu-smi|\bHCCL_[A-Z_]+|ASCEND_[A-Z_]+|set_env\.sh|\bCANN\b|torch_npu|\bmsprof\b|\bplog\b")


def for_stack(step: str, job_stack: str, log_text: str) -> str:
    """The step cut before its first clause for the other stack ("...; on Ascend
    HCCL_EXEC_TIMEOUT." on a CUDA job), or "" when it opens with one."""
    if not foreign_step(step, job_stack, log_text):
        return step
    kept: list[str] = []
    for clause in re.split(r"(?<=;) ", step):
        if foreign_step(clause, job_stack, log_text):
            break  # later clauses lean on this one ("...; reinstall them")
        kept.append(clause)
    if not kept:
        return ""
    text = " ".join(kept).rstrip(" ;")
    return text if text.endswith(".") else text + "."


def foreign_step(step: str, job_stack: str, log_text: str) -> bool:
    """Whether a remediation step is for the other stack: it names software only that stack
    ships, none of this stack's, and the job's own lines do not name it (a job that imports
    flash_attn on an NPU may well be told about flash_attn)."""
    if job_stack not in ("ascend", "cuda"):
        return False
    other, own = (CUDA_ONLY_STEP, ASCEND_ONLY_STEP) if job_stack == "ascend" else (ASCEND_ONLY_STEP, CUDA_ONLY_STEP)
    if own.search(step):
        return False  # a step for both stacks ("nvidia-smi or npu-smi") keeps its half for this one
    named = {_plain(m.group(0)) for m in other.finditer(step)}
    if not named:
        return False
    seen = _plain(log_text)
    return not any(n in seen for n in named)


def _plain(text: str) -> str:
    return re.sub(r"[-_ ]", "", text.lower())  # flash-attn is flash_attn
