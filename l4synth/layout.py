"""Write a simulated job to disk in one of the real-world layouts, and its label.

Layouts (chosen per setting, ``stacks.LAYOUTS``): one file per host; one file per rank in
per-host directories (``worker-3/rank_2.log``: every name repeats across hosts, so node names
become ``worker-3/rank_2``); one flat file per rank (``rank_12.log``); for small jobs, one
combined console log whose lines carry the launcher's rank prefix (``[default3]:``,
``[rank3]:`` or ``srun -l``'s ``3: ``), whose virtual nodes are ``rank<N>`` and whose
unprefixed launcher lines belong to the node named after the file; one file per host whose
worker lines carry those prefixes (torchrun ``--tee`` or ``srun -l`` writing per node: the file
is the node, the rank a process on it); or a pasted excerpt (``excerpt.py``), one
``console.log`` whose node is ``console``.
Line numbers, faulty nodes and hosts in labels are computed here, from exactly the bytes written.
"""

from __future__ import annotations

import gzip
import heapq
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent.schema import FaultEvent, Label
from l4synth import excerpt
from l4synth.catalogue import FaultType
from l4synth.job import Result, Stream
from l4synth.stacks import Setting

_CONSOLE_PREFIX = {"default": "[default{r}]:", "rank": "[rank{r}]:", "srun": "{r}: "}
EXCERPT_NODE = "console"

Events = dict[str, dict[str, list[int]]]  # event id -> node -> 1-based line numbers


@dataclass
class Written:
    """Where a job's fault events landed in the files written, and what the files name."""

    events: Events = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)  # event id -> one raw line of it
    faulty_text: list[str] = field(default_factory=list)  # the written lines of the faulty nodes' files
    pasted: list[str] | None = None  # an excerpt's lines


def _write(path: Path, lines: list[str], gz: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if gz:
        path.with_name(path.name + ".gz").write_bytes(gzip.compress(data, compresslevel=3, mtime=0))
    else:
        path.write_bytes(data)


def _keyed(si: int, times: list[float]) -> Iterator[tuple[float, int, int]]:
    return ((t, si, i) for i, t in enumerate(times))


def _console(result: Result, prefix: str) -> tuple[list[str], list[tuple[int, int]]]:
    """Merge rank streams and the launcher stream by time; return lines and (stream, index) per line."""
    assert result.console is not None
    fmt = _CONSOLE_PREFIX[prefix]
    sources: list[Stream] = [*result.streams, result.console]
    merged = heapq.merge(*(_keyed(si, st.times) for si, st in enumerate(sources)))
    lines: list[str] = []
    origin: list[tuple[int, int]] = []
    n_ranks = len(result.streams)
    for _, si, i in merged:
        text = sources[si].lines[i]
        lines.append(fmt.format(r=sources[si].node.ranks[0]) + text if si < n_ranks else text)
        origin.append((si, i))
    return lines, origin


def _prefixed(st: Stream, setting: Setting, world: int) -> list[str]:
    """A host's lines as torchrun --tee (local rank) or srun -l (global task id) writes them per node.

    real: ``[default7]:`` before each worker line of a node's file (CONTRACTS.md); srun -l pads
    task ids to one width, `` 2: [rank2]:   File ...`` (NVIDIA-BioNeMo/bionemo-recipes#784).
    """
    width = len(str(max(world - 1, 0)))
    out = []
    for text, rank in zip(st.lines, st.origin, strict=True):
        if rank is None:
            out.append(text)
        elif setting.console_prefix == "default":
            out.append(f"[default{rank % setting.per_host}]:{text}")
        elif setting.console_prefix == "rank":
            out.append(f"[rank{rank}]:{text}")
        else:
            out.append(f"{rank:>{width}}: {text}")
    return out


def _by_line(lines: list[str]) -> Callable[[int, int], str]:
    """The written line at a 1-based line number (whatever the stream index)."""
    return lambda index, lineno: lines[lineno - 1]


def write_job(logs: Path, setting: Setting, result: Result, rng: random.Random) -> Written:
    """Write all files of a job under ``logs``; return where each event landed and what names the faulty nodes."""
    ext = rng.choice((".log", ".log", ".log", ".log", ".out", ".txt"))
    gz_share = rng.choice((0.0, 0.0, 0.2, 0.35))
    out = Written()
    faulty = set(result.faulty)

    def note(stream: Stream, name: str, lineno_of: dict[int, int] | None, text_of: Callable[[int, int], str]) -> None:
        """Record where ``stream``'s event lines landed; ``text_of(index, lineno)`` is one such line as written."""
        for eid, idxs in stream.events.items():
            kept = [i for i in idxs if lineno_of is None or i in lineno_of]
            if not kept:
                continue
            nums = [lineno_of[i] if lineno_of is not None else i + 1 for i in kept]
            out.events.setdefault(eid, {}).setdefault(name, []).extend(nums)
            out.texts.setdefault(eid, text_of(kept[0], nums[0]))

    if setting.layout == "excerpt":
        cut = excerpt.cut(result, rng)
        _write(logs / "console.log", cut.lines, gz=False)
        note(result.streams[cut.source], EXCERPT_NODE, cut.line_of, lambda i, n: cut.logical[i])
        out.pasted = cut.lines
        out.faulty_text = cut.lines if faulty else []
    elif setting.layout == "console":
        lines, origin = _console(result, setting.console_prefix)
        stem = rng.choice(("console", "train", "stdout"))
        _write(logs / f"{stem}{ext}", lines, gz=rng.random() < gz_share / 2)
        per_stream: list[dict[int, int]] = [{} for _ in range(len(result.streams) + 1)]
        for n, (si, i) in enumerate(origin, start=1):
            per_stream[si][i] = n
        for si, st in enumerate(result.streams):
            note(st, f"rank{st.node.ranks[0]}", per_stream[si], _by_line(lines))
        assert result.console is not None
        note(result.console, stem, per_stream[-1], _by_line(lines))
        out.faulty_text = lines if faulty else []
    else:
        world = sum(len(st.node.ranks) for st in result.streams)
        for si, st in enumerate(result.streams):
            name = node_name(setting, st)
            written = _prefixed(st, setting, world) if setting.layout == "node_prefixed" else st.lines
            _write(logs / f"{name}{ext}", written, gz=rng.random() < gz_share)
            note(st, name, None, _by_line(written))
            if si in faulty:
                out.faulty_text += written
    for nodes in out.events.values():
        for nums in nodes.values():
            nums.sort()
    return out


def node_name(setting: Setting, st: Stream) -> str:
    """The node name of a stream's file per the dataset contract (file stem, parent-qualified on clashes)."""
    n = st.node
    if setting.layout == "excerpt":
        return EXCERPT_NODE
    if setting.host_files:
        return n.host
    if setting.layout == "rank_dirs":
        return f"{n.host}/rank_{n.devs[0]}"
    if setting.layout == "rank_flat":
        return f"rank_{n.ranks[0]}"
    return f"rank{n.ranks[0]}"


def hosts_named(result: Result, lines: list[str]) -> list[str]:
    """The faulty nodes' host names and IPs that the written lines spell out (exact substrings)."""
    names = {n for i in result.faulty for n in (result.streams[i].node.host, result.streams[i].node.ip)}
    if not names:
        return []
    # A name counts only as a whole token: worker-1 is not named by worker-12, 10.0.0.1 not by 10.0.0.15.
    pattern = re.compile(r"(?<![\w.-])(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True))
                         + r")(?![\w-]|\.\d)")
    found: set[str] = set()
    for line in lines:
        found.update(m.group(1) for m in pattern.finditer(line))
        if found == names:
            break
    return sorted(found)


def shows_iteration(lines: list[str], iterations: list[int]) -> bool:
    """Whether an excerpt prints a number within the bench's tolerance of the failing iteration."""
    numbers = {int(m) for line in lines for m in re.findall(r"(?<![\d.])(\d{1,9})(?![\d.])", line)}
    return any(abs(n - it) <= max(2.0, 0.01 * it) for it in iterations for n in numbers)


def build_label(setting: Setting, fault: FaultType, result: Result, written: Written) -> dict[str, object]:
    """The label.json payload, validated by the shared ``Label`` model."""
    faulty = sorted({node_name(setting, result.streams[i]) for i in result.faulty})
    fmt = dict(result.vars)
    iterations = result.iterations
    if written.pasted is not None and not shows_iteration(written.pasted, iterations):
        iterations = []  # nothing pasted says which iteration failed
    label = Label(
        schema="l4-label/1",
        setting=setting.name,
        stack=setting.stack,
        category=fault.category,
        subcategory=fault.subcategory,
        symptom=fault.symptom,
        faulty_nodes=faulty,
        stage=fault.stage,
        iterations=iterations,
        fault_events=[FaultEvent(id=eid, text=written.texts[eid], lines=written.events[eid])
                      for eid in sorted(written.events, key=lambda e: int(e[1:]))],
        root_cause=fault.root_cause.format(**fmt),
        remediation=fault.remediation.format(**fmt),
        fault_type=fault.id,
        hosts=hosts_named(result, written.faulty_text),
    )
    return label.model_dump(by_alias=True)


def write_label(case_dir: Path, payload: dict[str, object]) -> None:
    (case_dir / "label.json").write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n", encoding="utf-8")
