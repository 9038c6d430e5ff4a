"""The shape of a fault type (``FaultType``, ``Line``) and the line groups several fault
types share (tracebacks, NCCL return-code chains). The fault types themselves are data in
``faults_hardware`` and ``faults_software``; ``catalogue`` puts them in order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    kind: str  # a renderer in job.py: app print stamp nccl cpp plog ecode npuerr kernel launcher
    text: str
    level: str = "ERROR"
    event: bool = True
    repeat: tuple[int, int] = (1, 1)
    per_rank: bool = False  # printed by every local rank of a hit node (else by the hit rank only)


@dataclass(frozen=True)
class FaultType:
    id: str
    category: str
    subcategory: str
    symptom: str
    stage: str
    stacks: tuple[str, ...]
    outcome: str  # crash | hang | slowdown | silent
    scope: str  # rank (one accelerator) | host (a whole machine) | some (one node, not its fault) | all
    lines: tuple[Line, ...]
    root_cause: str
    remediation: str
    peer_lines: tuple[Line, ...] = ()  # printed by the hit node's ring neighbours
    reaction: str = "watchdog"  # how peers notice: watchdog | remote | none
    frameworks: tuple[str, ...] = ()  # restrict to these frameworks (empty = any)
    env: tuple[tuple[str, str], ...] = ()  # environment the job was (mis)configured with, shown in its env dump

    @property
    def node_local(self) -> bool:
        return self.scope in ("rank", "host")

    @property
    def kernel_only_evidence(self) -> bool:
        """True when some event line comes from the kernel log (not printed into a rank's console)."""
        return any(line.kind == "kernel" and line.event for line in self.lines)


def _tb(*frames: str) -> tuple[Line, ...]:
    """A Python traceback (context lines, no timestamps)."""
    out = [Line("print", "Traceback (most recent call last):", event=False, per_rank=True)]
    for fr in frames:
        path, lineno, func, code = fr.split("|")
        out.append(Line("print", f'  File "{path}", line {lineno}, in {func}', event=False, per_rank=True))
        out.append(Line("print", f"    {code}", event=False, per_rank=True))
    return tuple(out)


_TRAIN_TB = _tb(
    "/workspace/{script}|{n1}|<module>|pretrain(train_valid_test_datasets_provider, model_provider)",
    "/workspace/Megatron-LM/megatron/training/training.py|306|pretrain|iteration, num_floating_point_operations_so_far = train(",
    "/workspace/Megatron-LM/megatron/training/training.py|1123|train|train_step(forward_step_func,",
)
_NCCL_CHAIN = (
    Line("nccl", "NCCL INFO transport/net.cc:1298 -> 6", level="INFO", event=False),
    Line("nccl", "NCCL INFO proxy.cc:694 -> 6", level="INFO", event=False),
)
_CUDA = ("cuda",)
_NPU = ("ascend",)
_BOTH = ("cuda", "ascend")
