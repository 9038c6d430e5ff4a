"""Combined console logs: how launchers mark the rank or host of each line.

One file for a whole job (torchrun, mpirun, srun -l, pdsh) carries each line's origin as a
prefix; ingest splits such a file into virtual nodes. Each style is a fact about a launcher,
with a real example where it is not self-evident.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

CONSOLE_SNIFF_LINES = 2000

# --- launcher rank prefixes ------------------------------------------------------------

_TORCHRUN_PREFIX = re.compile(r"\[(?:default|rank)(\d+)\]:[ ]?")
_MPI_PREFIX = re.compile(r"\[\d+,(\d+)\]<std(?:out|err)>:[ ]?")
_SRUN_PREFIX = re.compile(r" {0,3}(\d{1,5}): ")
# pdsh (DeepSpeed's multi-node runner) prefixes each line with the host it came from:
# "104.171.201.172: [2023-04-16 02:38:19,113] [INFO] [launch.py:247:main] dist_world_size=16"
# (huggingface/accelerate#1317). Cluster host names carry a digit; words such as "INFO:" do not.
_PDSH_PREFIX = re.compile(r"(\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z][\w.-]{0,62}\d[\w.-]{0,62}): ")


@dataclass(frozen=True)
class ConsoleFormat:
    """How a combined console file marks the rank of each line."""

    name: str
    pattern: re.Pattern[str]


CONSOLE_FORMATS = (
    ConsoleFormat("torchrun", _TORCHRUN_PREFIX),
    ConsoleFormat("mpirun", _MPI_PREFIX),
    ConsoleFormat("srun", _SRUN_PREFIX),
    ConsoleFormat("pdsh", _PDSH_PREFIX),
)
# Bracketed rank prefixes cannot be mistaken for text, so a console accepts them in any style.
BRACKETED_PREFIX = re.compile(rf"{_TORCHRUN_PREFIX.pattern}|{_MPI_PREFIX.pattern}")
# srun's "3: " is easier to confuse with ordinary text, so each rank must recur too.
_CONSOLE_MIN_SHARE = {"torchrun": 0.1, "mpirun": 0.1, "srun": 0.3, "pdsh": 0.3}  # launcher preambles can dominate short logs
_CONSOLE_MIN_PER_RANK = {"torchrun": 1, "mpirun": 1, "srun": 3, "pdsh": 3}


TAIL_SNIFF_BYTES = 256 * 1024


# Terminal colour codes are presentation, not content: Ray colours its worker prefix
# ("\x1b[36m(RayTrainWorker pid=176642, ip=172.16.9.30)\x1b[0m", NovaSky-AI/SkyRL#1960) and pod
# logs keep a program's coloured "[rank19]:" lines. They are removed before anything reads a line.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def without_ansi(line: str) -> str:
    return ANSI_ESCAPE.sub("", line) if "\x1b" in line else line


def prefix_match(line: str, fmt: ConsoleFormat | None) -> re.Match[str] | None:
    """The launcher prefix a console line starts with: its own style, or any bracketed one
    (launchers mix torchrun's [defaultN]: with the program's [rankN]:, and srun -l wraps both)."""
    return (fmt.pattern.match(line) if fmt is not None else None) or BRACKETED_PREFIX.match(line)


def prefix_rank(m: re.Match[str]) -> str:
    """The rank (or pdsh host) a prefix match names."""
    return next(g for g in m.groups() if g is not None)


def tail_bracketed_ranks(path: Path) -> set[str]:
    """Ranks named by bracketed prefixes at the end of a plain file. PyTorch 2 prefixes only
    its crash reports with "[rankN]:", so a long console shows them in its last lines alone
    (Chevolier/LLaMA-Factory train.out: 7,000 plain lines, then eight ranks' tracebacks)."""
    if path.name.endswith(".gz"):
        return set()
    try:
        with path.open("rb") as fh:
            fh.seek(max(0, path.stat().st_size - TAIL_SNIFF_BYTES))
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        return set()
    ranks: set[str] = set()
    for line in tail.split("\n"):
        m = BRACKETED_PREFIX.match(without_ansi(line))
        if m:
            ranks.add(prefix_rank(m))
    return ranks


def head_ranks(lines: Iterable[str], fmt: ConsoleFormat) -> set[str]:
    """The ranks a console file's first lines name."""
    ranks: set[str] = set()
    for n, line in enumerate(lines):
        m = prefix_match(without_ansi(line), fmt)
        if m:
            ranks.add(prefix_rank(m))
        if n >= CONSOLE_SNIFF_LINES:
            break
    return ranks


def files_are_nodes(spans: list[tuple[float, float] | None], rank_sets: list[set[str]]) -> bool:
    """Whether several rank-prefixed files of one job are one node each rather than restarts.

    Per-node files (torchrun --tee or srun -l writing one file per host) are written at the
    same time, or hold disjoint global ranks; a restarted job's consoles (slurm-101.out, then
    slurm-117.out) follow one another and each holds the whole job's ranks. Unknown: restarts,
    which splits as before.
    """
    known = sorted(s for s in spans if s is not None)
    if len(known) >= 2:
        overlapping = sum(1 for a, b in pairwise(known) if b[0] < a[1])
        return overlapping * 2 > len(known) - 1
    named = [r for r in rank_sets if r]
    return len(named) >= 2 and all(not (a & b) for i, a in enumerate(named) for b in named[i + 1 :])


def _one_task_srun(fmt: ConsoleFormat, ranks: Counter[str], total: int) -> bool:
    """``srun -l`` with one task prefixes nearly every line with "0: " (a one-node Slurm job's
    output.err, kerimoglutolga/open_clip-mixtera): one rank, but no ordinary text looks so."""
    return fmt.name == "srun" and set(ranks) == {"0"} and ranks["0"] >= 20 and ranks["0"] / total >= 0.5


def detect_console(lines: Iterable[str]) -> ConsoleFormat | None:
    """The launcher prefix style of a file's first lines, if it is a combined console."""
    counts = {fmt.name: 0 for fmt in CONSOLE_FORMATS}
    ranks: dict[str, Counter[str]] = {fmt.name: Counter() for fmt in CONSOLE_FORMATS}
    # srun prefixes only what its tasks print: the batch script's own preamble (module loads, an
    # environment dump, the command echoed) comes before the first task line and says nothing
    # about the rest, so srun's share counts from its first prefixed line. (Bracketed prefixes
    # need no such care: their share is small already, and PyTorch 2 prints them only in crash
    # reports, which must not turn a node's own file into a console.)
    first_seen: dict[str, int] = {}
    total = 0
    for raw in lines:
        line = without_ansi(raw)
        total += 1
        for fmt in CONSOLE_FORMATS:
            m = fmt.pattern.match(line)
            if m:
                counts[fmt.name] += 1
                ranks[fmt.name][m.group(1)] += 1
                first_seen.setdefault(fmt.name, total)
                break
        if total >= CONSOLE_SNIFF_LINES:
            break
    if not total:
        return None

    def since_first(name: str) -> int:
        return total - first_seen.get(name, 1) + 1 if name == "srun" else total

    qualified = [
        fmt for fmt in CONSOLE_FORMATS
        if (len([r for r, n in ranks[fmt.name].items() if n >= _CONSOLE_MIN_PER_RANK[fmt.name]]) >= 2
            and counts[fmt.name] / since_first(fmt.name) >= _CONSOLE_MIN_SHARE[fmt.name])
        or _one_task_srun(fmt, ranks[fmt.name], since_first(fmt.name))
    ]
    if len(qualified) <= 1:
        return qualified[0] if qualified else None
    # Several styles in one console (srun -l around torchrun's [defaultN]:): split on each.
    return ConsoleFormat("+".join(f.name for f in qualified), re.compile("|".join(f.pattern.pattern for f in qualified)))
