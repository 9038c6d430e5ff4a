"""The shape of a fault type (``FaultType``, ``Line``) and the line groups several fault
types share (tracebacks, NCCL return-code chains). The fault types themselves are data in
``faults_hardware`` and ``faults_software``; ``catalogue`` puts them in order.

Every line a fault prints quotes a real public log line, with its variable parts turned into
placeholders, and names its source in a comment (``# real: ...``); what has no real line to
quote is said beside the lines and listed in ``NO_REAL_LINE``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    kind: str  # a renderer in job.py: app print stamp nccl cpp plog ecode npuerr pidstamp imp kernel launcher
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

    def event_ids(self) -> dict[tuple[bool, int], str]:
        """Label event ids in catalogue order: the hit node's event lines, then its peers'."""
        seq = [(False, i, ln) for i, ln in enumerate(self.lines)] + [(True, i, ln) for i, ln in enumerate(self.peer_lines)]
        out: dict[tuple[bool, int], str] = {}
        for peer, i, ln in seq:
            if ln.event:
                out[(peer, i)] = f"e{len(out) + 1}"
        return out

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


# real: Megatron-LM's pretrain -> train frames as NVIDIA/Megatron-LM#1872 prints them.
_TRAIN_TB = _tb(
    "/workspace/{script}|{n1}|<module>|pretrain(train_valid_test_datasets_provider, model_provider)",
    "/workspace/Megatron-LM/megatron/training/training.py|737|pretrain|iteration, num_floating_point_operations_so_far = train(",
    "/workspace/Megatron-LM/megatron/training/training.py|2405|train|train_step(forward_step_func,",
)
# real: the return-code chain under an IB completion error (NVIDIA/nccl#1405).
_NCCL_CHAIN = (
    Line("nccl", "NCCL INFO transport/net.cc:1302 -> 6", level="INFO", event=False),
    Line("nccl", "NCCL INFO proxy.cc:698 -> 6", level="INFO", event=False),
    Line("nccl", "NCCL INFO proxy.cc:878 -> 6 [Progress Thread]", level="INFO", event=False),
)
# real: torch_npu's distributed wrapper when HCCL init fails (verl-project/verl#3947).
_HCCL_INIT_FAILED = (
    Line("print", "RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:102 HCCL function "
         "error: hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 4",
         per_rank=True, event=False),
    Line("npuerr", "ERR02200 DIST call hccl api failed.", per_rank=True, event=False),
)
_CUDA = ("cuda",)
_NPU = ("ascend",)
_BOTH = ("cuda", "ascend")

# What of a fault type has no real line to quote (every event line itself quotes one); the
# comment beside the fault's lines says the same. Kept in sync by tests/test_synth.py.
NO_REAL_LINE: dict[str, str] = {
    "hbm-multibit-ecc": "the device-side HBM multi-bit ECC record (only msnpureport's device logs hold it); "
                        "the job sees torch_npu's UCE ERROR",
    "gpu-thermal-slowdown": "a training-log line for clock throttling; the nvidia-smi -q block is real, its "
                            "presence in the node log (a monitor dumping it) is assumed",
}
