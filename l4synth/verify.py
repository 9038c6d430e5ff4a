"""Re-read a corpus from disk, independently of how it was generated, and check its labels.

Reading follows the dataset contract only: log files found recursively (``.log``,
``.txt``, ``.out``, optionally ``.gz``), node name = file stem (parent-qualified when
stems clash); a job's only file, when it is a combined console log, is split by rank
prefix, while per-node files whose lines carry rank prefixes stay one node each (the rank
is a process of the file's node). A label is right when every line it lists exists on that
node and matches the event's text modulo variable fields and a launcher prefix, and when no
other line of the case matches an event's text: an event type is listed completely or not
at all. A pasted excerpt may be hard-wrapped at a terminal's width: a line as long as the
file's longest continues on the next, and the event is its first physical line.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from agent.schema import Label

_LOG_SUFFIXES = (".log", ".txt", ".out")
_PREFIX = re.compile(r"^(?:\[(?:default|rank)(\d+)\]:| {0,4}(\d+): )")
_GLOG = re.compile(r"\[[IWEF]\d{4} ")
# Any token with a digit is a variable field (numbers, IPs, hex, hostnames, paths with ids).
_VAR = re.compile(r"[^\s\[\](){}<>,;='\"|]*\d[^\s\[\](){}<>,;='\"|]*")


def mask(text: str) -> str:
    return _VAR.sub("<*>", text)


def log_files(logs: Path) -> dict[str, Path]:
    """Node name -> file, per the contract's naming rule."""
    files = sorted(p for p in logs.rglob("*") if p.is_file() and _stem(p) is not None)
    stems = Counter(_stem(p) for p in files)
    out: dict[str, Path] = {}
    for p in files:
        stem = _stem(p)
        assert stem is not None
        out[f"{p.parent.name}/{stem}" if stems[stem] > 1 else stem] = p
    return out


def _stem(p: Path) -> str | None:
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    for suf in _LOG_SUFFIXES:
        if name.endswith(suf):
            return name[: -len(suf)]
    return None


def read_lines(path: Path) -> list[str]:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace").split("\n")[:-1] if data.endswith(b"\n") else \
        data.decode("utf-8", errors="replace").split("\n")


def _is_console(lines: list[str]) -> bool:
    """A combined console log: a good share of lines carry a launcher rank prefix, from several ranks.

    PyTorch's own C++ lines (``[rank3]:[E0512 10:31:02...``) look like prefixes, so they do not count.
    """
    sample = [ln for ln in lines[:20000] if ln]
    ranks: set[str] = set()
    hits = 0
    for ln in sample:
        m = _PREFIX.match(ln)
        if m and not _GLOG.match(ln, m.end()):
            hits += 1
            ranks.add(m.group(1) or m.group(2))
    return len(ranks) >= 2 and hits >= 0.2 * len(sample)


_WRAP_MAX_PARTS = 12


def _strip(text: str) -> str:
    """A line without its launcher rank prefix (a prefix is never part of the message)."""
    return _PREFIX.sub("", text, count=1)


def iter_job(logs: Path) -> Iterator[tuple[str, int, str, str | None]]:
    """(node, 1-based line number, text, text joined with its wrapped continuation or None)
    for every line of a job; a console's virtual nodes get their lines without the prefix."""
    files = log_files(logs)
    for name, path in files.items():
        lines = read_lines(path)
        split = len(files) == 1 and _is_console(lines)
        width = max(map(len, lines), default=0)
        for i, ln in enumerate(lines):
            joined = None
            if width and len(ln) == width and i + 1 < len(lines):  # maybe a hard-wrapped line: join it
                parts = [ln]
                for nxt in lines[i + 1 : i + _WRAP_MAX_PARTS]:
                    parts.append(nxt)
                    if len(nxt) != width:
                        break
                joined = "".join(parts)
            m = _PREFIX.match(ln) if split else None
            if m:
                yield f"rank{m.group(1) or m.group(2)}", i + 1, ln[m.end():], joined
            else:
                yield name, i + 1, ln, joined


def _needle(masked: str) -> str:
    return max(masked.split("<*>"), key=len)


def check_case(case_dir: Path) -> list[str]:
    """Problems with one case's label (empty when it is right)."""
    where = case_dir.name
    try:
        raw = json.loads((case_dir / "label.json").read_text(encoding="utf-8"))
        label = Label.model_validate(raw)
    except (OSError, ValueError, ValidationError) as exc:
        return [f"{where}: label.json unreadable or invalid: {exc}"]
    problems: list[str] = []
    listed: dict[tuple[str, int], str] = {}
    wanted: dict[str, tuple[str, str]] = {}  # event id -> (masked text, needle)
    for ev in label.fault_events:
        text = _strip(ev.text)
        wanted[ev.id] = (mask(text), _needle(mask(text)))
        if not ev.lines or not any(ev.lines.values()):
            problems.append(f"{where}: event {ev.id} lists no lines")
        for node, nums in ev.lines.items():
            for n in nums:
                listed[(node, n)] = ev.id
    seen_nodes: set[str] = set()
    found: set[tuple[str, int]] = set()
    unseen_hosts = set(label.hosts)
    lines = 0
    for node, n, raw, joined in iter_job(case_dir / "logs"):
        lines += 1
        seen_nodes.add(node)
        unseen_hosts = {h for h in unseen_hosts if h not in raw}
        texts = [mask(_strip(t)) for t in (raw, joined) if t is not None]
        eid = listed.get((node, n))
        if eid is not None:
            found.add((node, n))
            if wanted[eid][0] not in texts:
                problems.append(f"{where}: {node}:{n} does not match event {eid}: {raw[:120]!r}")
            continue
        for other, (masked, needle) in wanted.items():
            if any(needle in t for t in (raw, joined) if t) and masked in texts:
                problems.append(f"{where}: {node}:{n} matches event {other} but is not listed")
    for node, n in sorted(set(listed) - found):
        problems.append(f"{where}: event {listed[(node, n)]} lists {node}:{n}, which does not exist")
    for node in label.faulty_nodes:
        if node not in seen_nodes:
            problems.append(f"{where}: faulty node {node} is not a node of the job")
    for host in sorted(unseen_hosts):
        problems.append(f"{where}: host {host!r} does not occur in the logs")
    pasted = len(log_files(case_dir / "logs")) == 1 and lines < 200  # an excerpt need not show the iteration
    if label.stage in ("training", "checkpoint") and not label.iterations and not pasted:
        problems.append(f"{where}: a {label.stage}-stage fault without iterations")
    if label.stage not in ("training", "checkpoint") and label.iterations:
        problems.append(f"{where}: iterations given for a {label.stage}-stage fault")
    return problems


def summary(dataset: Path) -> dict[str, object]:
    dataset = Path(dataset)
    counts: dict[str, Counter[str]] = {k: Counter() for k in
                                        ("category", "subcategory", "symptom", "stack", "fault_type", "stage")}
    with_normal = without_normal = 0
    nodes_per_case: list[int] = []
    lines_per_node: list[int] = []
    total_lines = 0
    n_bytes = sum(p.stat().st_size for p in dataset.rglob("*") if p.is_file())
    normal_settings = {p.name for p in (dataset / "normal").iterdir() if p.is_dir() and any(p.iterdir())} \
        if (dataset / "normal").is_dir() else set()
    cases = sorted(p for p in (dataset / "cases").iterdir() if p.is_dir()) if (dataset / "cases").is_dir() else []
    settings: set[str] = set()
    for case in cases:
        label = json.loads((case / "label.json").read_text(encoding="utf-8"))
        settings.add(label["setting"])
        for key, c in counts.items():
            c[str(label.get(key))] += 1
        if label["setting"] in normal_settings:
            with_normal += 1
        else:
            without_normal += 1
    jobs = cases + [j for s in sorted((dataset / "normal").iterdir()) for j in sorted(s.iterdir())] \
        if (dataset / "normal").is_dir() else cases
    for job in jobs:
        per: Counter[str] = Counter()
        files = log_files(job / "logs")
        for name, path in files.items():
            lines = read_lines(path)
            if len(files) == 1 and _is_console(lines):
                for ln in lines:
                    m = _PREFIX.match(ln)
                    per[f"rank{m.group(1) or m.group(2)}" if m else name] += 1
            else:
                per[name] += len(lines)
        if job in cases:
            nodes_per_case.append(len(per))
        lines_per_node += list(per.values())
        total_lines += sum(per.values())

    def mmm(xs: list[int]) -> dict[str, float]:
        return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)} if xs else {}

    manifest = dataset / "synth.json"  # the generator names each case's layout there
    layouts = json.loads(manifest.read_text(encoding="utf-8")).get("layouts", {}) if manifest.is_file() else {}
    return {
        "cases": len(cases),
        "normal_jobs": len(jobs) - len(cases),
        "settings": len(settings),
        **{k: dict(sorted(c.items())) for k, c in counts.items()},
        **({"layout": dict(sorted(Counter(layouts.values()).items()))} if layouts else {}),
        "cases_with_normal_jobs": with_normal,
        "cases_without_normal_jobs": without_normal,
        "nodes_per_case": mmm(nodes_per_case),
        "lines_total": total_lines,
        "lines_per_node": mmm(lines_per_node),
        "bytes_on_disk": n_bytes,
    }
