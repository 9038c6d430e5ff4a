"""Write a simulated job to disk in one of the real-world layouts, and its label.

Layouts (chosen per setting): one file per host; one file per rank in per-host
directories (``worker-3/rank_2.log``: every name repeats across hosts, so node names
become ``worker-3/rank_2``); one flat file per rank (``rank_12.log``); or, for small
jobs, one combined console log whose lines carry the launcher's rank prefix
(``[default3]:``, ``[rank3]:`` or ``srun -l``'s ``3: ``), whose virtual nodes are
``rank<N>`` and whose unprefixed launcher lines belong to the node named after the file.
Line numbers in labels are computed here, from exactly the bytes written.
"""

from __future__ import annotations

import gzip
import heapq
import json
import random
from collections.abc import Iterator
from pathlib import Path

from agent.schema import FaultEvent, Label
from l4synth.catalogue import FaultType
from l4synth.job import Result, Stream
from l4synth.stacks import Setting

_CONSOLE_PREFIX = {"default": "[default{r}]:", "rank": "[rank{r}]:", "srun": "{r}: "}


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


Events = dict[str, dict[str, list[int]]]  # event id -> node -> 1-based line numbers


def write_job(logs: Path, setting: Setting, result: Result, rng: random.Random) -> tuple[Events, dict[str, str]]:
    """Write all files of a job under ``logs``; return where each event landed and one raw line of it."""
    ext = rng.choice((".log", ".log", ".log", ".log", ".out", ".txt"))
    gz_share = rng.choice((0.0, 0.0, 0.2, 0.35))
    events: Events = {}
    texts: dict[str, str] = {}

    def note(stream: Stream, name: str, lineno_of: dict[int, int] | None, lines: list[str]) -> None:
        for eid, idxs in stream.events.items():
            nums = [lineno_of[i] if lineno_of is not None else i + 1 for i in idxs]
            events.setdefault(eid, {}).setdefault(name, []).extend(nums)
            texts.setdefault(eid, lines[nums[0] - 1])

    if setting.layout == "console":
        lines, origin = _console(result, setting.console_prefix)
        stem = rng.choice(("console", "train", "stdout"))
        _write(logs / f"{stem}{ext}", lines, gz=rng.random() < gz_share / 2)
        per_stream: list[dict[int, int]] = [{} for _ in range(len(result.streams) + 1)]
        for n, (si, i) in enumerate(origin, start=1):
            per_stream[si][i] = n
        for si, st in enumerate(result.streams):
            note(st, f"rank{st.node.ranks[0]}", per_stream[si], lines)
        assert result.console is not None
        note(result.console, stem, per_stream[-1], lines)
    else:
        for st in result.streams:
            name = node_name(setting, st)
            _write(logs / f"{name}{ext}", st.lines, gz=rng.random() < gz_share)
            note(st, name, None, st.lines)
    for nodes in events.values():
        for nums in nodes.values():
            nums.sort()
    return events, texts


def node_name(setting: Setting, st: Stream) -> str:
    """The node name of a stream's file per the dataset contract (file stem, parent-qualified on clashes)."""
    n = st.node
    if setting.layout == "node":
        return n.host
    if setting.layout == "rank_dirs":
        return f"{n.host}/rank_{n.devs[0]}"
    if setting.layout == "rank_flat":
        return f"rank_{n.ranks[0]}"
    return f"rank{n.ranks[0]}"


def build_label(setting: Setting, fault: FaultType, result: Result, events: Events,
                texts: dict[str, str]) -> dict[str, object]:
    """The label.json payload, validated by the shared ``Label`` model."""
    faulty = sorted({node_name(setting, result.streams[i]) for i in result.faulty})
    fmt = dict(result.vars)
    label = Label(
        schema="l4-label/1",
        setting=setting.name,
        stack=setting.stack,
        category=fault.category,
        subcategory=fault.subcategory,
        symptom=fault.symptom,
        faulty_nodes=faulty,
        stage=fault.stage,
        iterations=result.iterations,
        fault_events=[FaultEvent(id=eid, text=texts[eid], lines=events[eid])
                      for eid in sorted(events, key=lambda e: int(e[1:]))],
        root_cause=fault.root_cause.format(**fmt),
        remediation=fault.remediation.format(**fmt),
        fault_type=fault.id,
    )
    return label.model_dump(by_alias=True)


def write_label(case_dir: Path, payload: dict[str, object]) -> None:
    (case_dir / "label.json").write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n", encoding="utf-8")
