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
ASCEND = re.compile(
    r"torch_npu|\bHCCL\b|\bhccl\b|\bCANN\b|\bNPU\b|\bnpu\b|Ascend|ascend|\bE[EHIJKLZ]\d{4}\b|aclnn|aclrt|"
    r"\bERR\d{5}\b|mindspore|MindSpeed|ProcessGroupHCCL|\bplog\b"
)
CUDA = re.compile(r"\bNCCL\b|\bnccl\b|\bCUDA\b|\bcuda\b|\bNVRM\b|\bXid\b|cudnn|cuDNN|cublas|CUBLAS|nvidia|NVIDIA")
DOMINANCE = 2.0  # one stack must be named this many times as often as the other


def detect(texts: Iterable[str]) -> str:
    """``ascend``, ``cuda`` or ``unknown`` for the job whose lines (or samples) these are."""
    ascend = cuda = 0
    for text in texts:
        ascend += bool(ASCEND.search(text))
        cuda += bool(CUDA.search(text))
    if ascend > DOMINANCE * cuda:
        return "ascend"
    if cuda > DOMINANCE * ascend:
        return "cuda"
    return "unknown"


def fits(doc_stack: str, job_stack: str) -> bool:
    """Whether a doc for ``doc_stack`` may advise a job on ``job_stack``."""
    return job_stack == "unknown" or doc_stack in ("any", job_stack)
