"""Masks as named data and the per-line scan: raw lines -> one ``NodeScan`` per node.

The bottom half of mining (``mining`` re-exports all of it): ``scan_lines`` is the reference
way to reduce lines, one Python step per line; ``fastscan`` computes the same tables a chunk
at a time and is checked against it. Both sit below ``mining`` so neither imports it.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field

from .records import LogLine


@dataclass(frozen=True)
class Mask:
    """A named masking rule: ``pattern`` is replaced by ``<NAME>``.

    ``keep`` is the number of leading groups kept verbatim (a keyword such as ``rank=``),
    the value is the group after them, or the whole match when there are none.
    """

    name: str
    pattern: str
    keep: int = 0
    # Literals of which every match holds one: a line holding none is skipped without running
    # the regex (an ``in`` test is ~50x cheaper than a regex scan of the line). Empty: always run.
    needs: tuple[str, ...] = ()

    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern)


# Order matters: wider shapes first, so an IP is not eaten as numbers.
MASKS: tuple[Mask, ...] = (
    Mask("TS", r"\d{4}[-/]\d{2}[-/]\d{2}[T \-_]\d{2}:\d{2}:\d{2}(?:[.,:]\d+)*(?:Z|[+-]\d{2}:?\d{2})?", needs=(":",)),
    Mask("TS", r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} \d{2}:\d{2}:\d{2}(?:\.\d+)?", needs=(":",)),
    # glog, also as PyTorch's C++ log prints it: "[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607]"
    # (hiyouga/LlamaFactory#7396); the rank prefix stays for the RANK mask.
    Mask("TS", r"^((?:\[rank\d+\]:)?\[?)([DIWEF]\d{3,4} \d{2}:\d{2}:\d{2}\.\d+)", keep=1),
    Mask("TS", r"^\[ *\d+\.\d+\]"),
    Mask("IP", r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b", needs=(".",)),
    Mask("PCI", r"\b[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?\b", needs=(":",)),
    Mask("PATH", r"(?<![\w.:/<>-])(?:~|\.{1,2})?/(?:[\w.@+=,-]+/)*[\w.@+=,-]+/?", needs=("/",)),
    Mask("HEX", r"\b0x[0-9a-fA-F]+\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,}\b"),
    # Host names: dash-separated words whose last part ends in digits (worker-3, gpu-a17), the
    # whole name, so that hosts of two naming schemes both mask to <NODE>: AWS's
    # "ip-10-0-12-20" (digit parts), a rack-and-node "hpc-h100-r1n01" (letter-digit runs), and
    # Ascend's "ascend-910b-17".
    Mask("NODE", r"\b[a-zA-Z][a-zA-Z0-9]*(?:-[a-zA-Z0-9]+)*-[a-zA-Z]{0,3}\d+(?:[a-zA-Z]{1,2}\d+)*[a-z]?\b"
         r"|\b\d{1,3}(?:-\d{1,3}){3}\b", needs=("-",)),
    Mask("RANK", r"\b((?:[Rr]ank|RANK)(?:_?[Ii][Dd])?|local_rank|LOCAL_RANK)(\s*[=:_\[]?\s*)(\d+)", keep=2,
         needs=("ank", "ANK")),
    # Also tqdm's count before "[elapsed<remaining, rate]" when the rate is in steps (not
    # examples/s of a preprocessing bar), as HF Trainer prints its steps:
    #   "  2%|▏         | 775/33687 [36:09<24:45:22,  2.71s/it]" (chartwiz LLaVA train log)
    # and fairseq's JSON progress: '"num_updates": "14200"' (ropadet fairseq train log), and the
    # ticks of NVIDIA's StyleGAN/EDM loops: "tick 1938  kimg 96993.1   time 6d 23h 54m   sec/tick
    # 307.0" (Mattias421/tdmolflow slurm-3658512.out).
    # mmengine's (XTuner's) training lines: "01/29 21:35:34 - mmengine - INFO - Iter(train) [ 10/720]
    # lr: 9.0001e-05 ..." (InternLM/xtuner docs, Quickstart); its "Iter(val)" lines are not steps.
    # DeepSpeed's pipeline engine counts "steps" before its loss: print(f'steps: {self.global_steps} '
    # f'loss: ...' f'iter time (s): ...') in microsoft/DeepSpeed deepspeed/runtime/pipe/engine.py
    # train_batch, as a Megatron-DeepSpeed MoE test script quotes its log: "steps: 200 loss: 5.5508 lm
    # loss: 5.5103 moe loss: 0.0405 iter time (s): 0.936 samples/sec: 136.706"; and Composer's console
    # logger its batches: "[epoch=0][batch=16/625]: wall_clock/train: 17.1607" (MosaicML's ResNet example README).
    Mask("ITER", r'((?<!/)\b(?:[Ii]teration|[Ii]ter|ITER(?:ATION)?|global_step|step|Step|tick|steps(?=: \d+ loss:))(?:\(train\))?'
         r'|(?<=\]\[)batch(?==\d+/\d+\]:)|\| (?=\d+/\d+ \[[\d:]+<[\d:?]+, *[\d.?]*(?:s/it|it/s))|"num_updates": ")'
         r"(\s*[=:]?\s*\[?\s*)(\d+)", keep=2,
         needs=("iter", "Iter", "ITER", "step", "Step", "/it", "it/s", "num_updates", "tick", "[batch=")),
    # Digit runs, also inside words (worker12 -> worker<NUM>), but not after a capital:
    # error codes such as EZ9999 / EI0002 / W1203 are constants worth keeping.
    Mask("NUM", r"(?<![A-Z\d])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"),
)

# A launcher's prefix on a line that stayed in its file's text (a per-node file, or a file
# with one rank's prefixed traceback, which no console split stripped) says who printed the
# line, not what it is: "[rank0]: PermissionError: [Errno 13] Permission denied: '/glade'"
# (rcc-uchicago/pedramh-profiling e3sm_train_3166315.e), "[1,3]<stderr>:", and Ray's
# "(MegatronPolicyWorker pid=1391870) " (NVIDIA-NeMo/RL#3155). Shapes are read after it.
# wandb's sweep agent relays a failed run's traceback under its own prefix
# ('wandb: ERROR   File "/cluster/home/.../bert.py", line 220, in train', vyjur/master-project
# output.err of Slurm job 21171137): the relayed frame is a frame.
# Open MPI's signal handler names host and pid the same way on each line of its report:
# "[nid006549:31808] Signal: Segmentation fault (11)" (eth-cscs/cscs-docs, OSU iallreduce on GH200).
LAUNCHER_PREFIX = re.compile(
    r"^\s*(?:\[(?:default|rank)(?:\d+|<RANK>|<NUM>)\]:|\[(?:\d+|<NUM>),(?:\d+|<NUM>)\]<std(?:out|err)>:|"
    r"\((?:[\w.]+ )?pid=(?:\d+|<NUM>)(?:, ip=[^)]*)?\) ?|wandb: ERROR(?= )|"
    r"\[(?=[\w.<>-]*[A-Za-z])[\w.<>-]+:(?:\d+|<NUM>)\](?= ))[ ]?"
)


def unprefixed(text: str) -> str:
    """The line without a launcher's prefix (``[rank3]:``, ``[1,3]<stdout>:``, Ray's ``(pid=..)``)."""
    m = LAUNCHER_PREFIX.match(text)
    return text[m.end():] if m else text


_ZERO_DIGITS = bytes.maketrans(b"123456789", b"000000000")


class Masker:
    """Applies ``MASKS``; stateless apart from compiled patterns, so safe in any process."""

    def __init__(self, masks: Iterable[Mask] = MASKS) -> None:
        self.masks = tuple(masks)
        self._compiled = [(m, m.compiled(), self._replacement(m)) for m in self.masks]

    @staticmethod
    def _replacement(mask: Mask) -> str:
        return "".join(f"\\{i}" for i in range(1, mask.keep + 1)) + f"<{mask.name}>"

    def mask(self, text: str) -> str:
        for mask, pattern, repl in self._compiled:
            if not mask.needs or any(n in text for n in mask.needs):
                text = pattern.sub(repl, text)
        return text

    def params(self, text: str) -> list[tuple[str, str]]:
        """Each masked value of a line, in mask order: ``[("RANK", "3"), ("IP", ...)]``."""
        found: list[tuple[str, str]] = []
        for mask, pattern, repl in self._compiled:
            if mask.needs and not any(n in text for n in mask.needs):
                continue
            for m in pattern.finditer(text):
                found.append((mask.name, m.group(mask.keep + 1) if mask.keep else m.group(0)))
            text = pattern.sub(repl, text)
        return found


_ITER_VALUE = re.compile(MASKS[[m.name for m in MASKS].index("ITER")].pattern)


def iteration_match(text: str) -> re.Match[str] | None:
    """The iteration a line reports. A progress bar redrawn with carriage returns keeps every
    redraw on one line, and the last is the one the terminal showed when the job stopped. Real
    line (tqdm, rcc-uchicago/pedramh-profiling e3sm_train_3166345.e): "...|  18/9125 [25:54<...]\\r
    Epoch [1/100], ...|  19/9125 [25:54<181:35:17, 71.79s/it]slurmstepd: error: ... DUE TO TIME LIMIT"."""
    if "\r" not in text:
        return _ITER_VALUE.search(text)
    matches = list(_ITER_VALUE.finditer(text))
    return matches[-1] if matches else None

LEVEL_CODES = {None: 0, "DEBUG": 1, "INFO": 2, "WARNING": 3, "ERROR": 4, "CRITICAL": 5}
MAX_ITERATION = 2**31 - 1  # iterations are stored as int32
SAMPLES_PER_KEY = 3  # raw texts kept per message shape: enough to read parameters from


@dataclass
class NodeScan:
    """One node's lines reduced to compact arrays over its unique masked messages."""

    node: str
    keys: list[str] = field(default_factory=list)  # unique masked texts
    key_of_line: array = field(default_factory=lambda: array("i"))  # index into keys
    lineno: array = field(default_factory=lambda: array("i"))
    ts: array = field(default_factory=lambda: array("d"))  # NaN when unknown
    stamped: array = field(default_factory=lambda: array("b"))  # 1 when the line carried its own timestamp
    level: array = field(default_factory=lambda: array("b"))  # LEVEL_CODES
    iteration: array = field(default_factory=lambda: array("i"))  # -1 when the line names none
    samples: list[list[str]] = field(default_factory=list)  # first raw texts per key
    last_sample: list[str] = field(default_factory=list)  # last raw text per key

    def __len__(self) -> int:
        return len(self.lineno)


def scan_lines(lines: Iterable[LogLine], masker: Masker | None = None) -> list[NodeScan]:
    """Mask and de-duplicate lines, one ``NodeScan`` per node met (console files hold many)."""
    masker = masker or Masker()
    scans: dict[str, NodeScan] = {}
    caches: dict[str, dict[bytes, int]] = {}
    masked_index: dict[str, dict[str, int]] = {}
    nan = math.nan
    for line in lines:
        scan = scans.get(line.node)
        if scan is None:
            scan = scans[line.node] = NodeScan(line.node)
            caches[line.node] = {}
            masked_index[line.node] = {}
        text = line.text
        zero_key = text.encode().translate(_ZERO_DIGITS)  # bytes.translate is ~15x faster than str's
        cache = caches[line.node]
        idx = cache.get(zero_key)
        if idx is None:
            masked = masker.mask(text)
            index = masked_index[line.node]
            idx = index.get(masked)
            if idx is None:
                idx = index[masked] = len(scan.keys)
                scan.keys.append(masked)
                scan.samples.append([])
                scan.last_sample.append(text)
            cache[zero_key] = idx
        sample = scan.samples[idx]
        if len(sample) < SAMPLES_PER_KEY:
            sample.append(text)
        scan.last_sample[idx] = text
        scan.key_of_line.append(idx)
        scan.lineno.append(line.lineno)
        scan.ts.append(nan if line.ts is None else line.ts)
        scan.stamped.append(line.stamped)
        scan.level.append(LEVEL_CODES.get(line.level, 0))
        if "<ITER>" in scan.keys[idx]:
            m = iteration_match(text)
            value = int(m.group(3)) if m else -1
            scan.iteration.append(value if value <= MAX_ITERATION else -1)  # a step number past int32 is no iteration
        else:
            scan.iteration.append(-1)
    return list(scans.values())
