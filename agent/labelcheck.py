"""Check a labeled corpus of real logs before anyone measures with it.

Why: a benchmark is only as honest as its labels. A line number that points at the wrong
line, a host that never occurs in the log, or one thread counted twice (or once in each
split) silently inflates or deflates every number measured on the corpus. This checker
finds those mistakes mechanically; the tests run it over ``benchmarks/real``.

Run it as ``python -m agent.labelcheck DATASET [--prefix P]``. Rules:

* the label parses and uses the vocabulary; ``accept`` holds the primary first;
* ``source`` is present (real corpora only);
* every labeled line of a fault event exists and contains the event's ``text``;
* every ``hosts`` entry occurs in the logs, and every faulty node is a node l4 can name;
* no two cases share a source or the same evidence lines, and no source repository sits in
  both splits.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from .ingest import LOG_SUFFIXES, node_name_for, open_job
from .schema import Label
from .splits import RealSplits, source_repo

MAX_CASE_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class Problem:
    case_id: str
    what: str

    def __str__(self) -> str:
        return f"{self.case_id}: {self.what}"


def _file_lines(logs: Path) -> dict[str, list[str]]:
    """File node name -> the file's physical lines (1-based index = list index + 1)."""
    files: dict[str, list[str]] = {}
    for path in sorted(p for p in logs.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", "replace")
        # Physical lines end at "\n" only, as l4 reads them: a progress bar's "\r" redraws
        # stay inside one line (str.splitlines would count each redraw as a line).
        files[node_name_for(path)] = [line.removesuffix("\r") for line in text.split("\n")]
    return files


def _node_names(logs: Path) -> set[str]:
    """Every node name l4 derives for the job: file nodes and the virtual ranks of consoles."""
    job = open_job(logs)
    names = {source.node for source in job.sources}
    for source in job.sources:
        if source.console is not None:
            names.update(line.node for line in job.lines(source))
    return names


def check_case(case_dir: Path, require_source: bool = True) -> tuple[Label | None, list[Problem], tuple[str, ...]]:
    """Problems of one case, its label when it parses, and its evidence key (see ``_evidence_key``)."""
    case_id = case_dir.name
    problems: list[Problem] = []

    def problem(what: str) -> None:
        problems.append(Problem(case_id, what))

    try:
        label = Label.model_validate(json.loads((case_dir / "label.json").read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None, [Problem(case_id, "no label.json")], ()
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return None, [Problem(case_id, f"label.json is not JSON ({exc})")], ()
    except ValidationError as exc:
        details = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'label'}: {e['msg']}" for e in exc.errors())
        return None, [Problem(case_id, f"invalid label: {details}")], ()

    if require_source and not (label.source or "").strip():
        problem("no source")
    if not label.root_cause.strip() or not label.remediation.strip():
        problem("root_cause and remediation must be written")
    logs = case_dir / "logs"
    if not logs.is_dir() or not any(p.is_file() for p in logs.rglob("*")):
        problem("no logs/ files")
        return label, problems, ()
    size = sum(p.stat().st_size for p in logs.rglob("*") if p.is_file())
    if size > MAX_CASE_BYTES:
        problem(f"logs hold {size} bytes, over {MAX_CASE_BYTES}")
    for path in logs.rglob("*"):
        if path.is_file() and not path.name.removesuffix(".gz").endswith(LOG_SUFFIXES):
            problem(f"{path.name}: l4 reads only {', '.join(LOG_SUFFIXES)} files")

    files = _file_lines(logs)
    if not label.fault_events:
        problem("no fault events")
    for event in label.fault_events:
        if not event.text.strip():
            problem(f"event {event.id}: empty text")
        for node, numbers in event.lines.items():
            lines = files.get(node)
            if lines is None:
                problem(f"event {event.id}: no file named {node!r} (files: {', '.join(sorted(files))})")
                continue
            if not numbers:
                problem(f"event {event.id}: no line numbers for {node!r}")
            for n in numbers:
                if not 1 <= n <= len(lines):
                    problem(f"event {event.id}: {node}:{n} is past the end ({len(lines)} lines)")
                elif event.text not in lines[n - 1]:
                    problem(f"event {event.id}: {node}:{n} does not contain {event.text!r}")
    everything = "\n".join("\n".join(lines) for lines in files.values())
    for host in label.hosts:
        if not host.strip() or host not in everything:
            problem(f"host {host!r} does not occur in the logs")
    if label.faulty_nodes:
        names = _node_names(logs)
        for node in label.faulty_nodes:
            if node not in names:
                problem(f"faulty node {node!r} is not a node l4 names (nodes: {', '.join(sorted(names)[:12])})")
    return label, problems, _evidence_key(files, label)


def _evidence_key(files: dict[str, list[str]], label: Label) -> tuple[str, ...]:
    """The labeled evidence lines' text with the lines beside them, to catch one log filed
    twice. A standard message alone ("CUDA error: uncorrectable ECC error encountered") is
    printed by every job with that fault; the same message between the same neighbours is
    the same log."""
    def at(lines: list[str], n: int) -> str:
        return lines[n - 1].strip() if 1 <= n <= len(lines) else ""

    texts = ["\n".join(at(files[node], k) for k in (n - 1, n, n + 1)) for e in label.fault_events
             for node, ns in e.lines.items() if node in files for n in ns if 1 <= n <= len(files[node])]
    return tuple(sorted(texts))


def check_dataset(dataset: Path, prefix: str = "", require_source: bool = True) -> tuple[int, list[Problem]]:
    """Check every case (whose id starts with ``prefix``); returns (cases checked, problems)."""
    cases = sorted(p for p in (dataset / "cases").iterdir() if p.is_dir() and p.name.startswith(prefix))
    problems: list[Problem] = []
    by_source: dict[str, list[str]] = defaultdict(list)
    by_evidence: dict[tuple[str, ...], list[str]] = defaultdict(list)
    labels: dict[str, Label] = {}
    for case_dir in cases:
        label, found, key = check_case(case_dir, require_source)
        problems.extend(found)
        if label is None:
            continue
        labels[case_dir.name] = label
        if label.source:
            by_source[label.source.strip().rstrip("/").lower()].append(case_dir.name)
        if key:
            by_evidence[key].append(case_dir.name)
    for source, ids in by_source.items():
        if len(ids) > 1:
            problems.append(Problem(ids[0], f"same source {source!r} as {', '.join(ids[1:])}"))
    for ids in by_evidence.values():
        if len(ids) > 1:
            problems.append(Problem(ids[0], f"same evidence lines as {', '.join(ids[1:])}"))
    splits = RealSplits.load(dataset)
    if splits is not None:
        problems.extend(Problem("splits.json", what) for what in splits.problems())
        for case_id, label in labels.items():
            if splits.split_of_source(label.source) is None:
                problems.append(Problem(case_id, f"source repository {source_repo(label.source)!r} is in no split"))
    return len(cases), problems


def assign_new_sources(dataset: Path) -> None:
    """Place every case's source repository that ``splits.json`` lacks, by the fixed rule."""
    repos = set()
    for label_path in (dataset / "cases").glob("*/label.json"):
        with contextlib.suppress(ValueError, OSError):
            repos.add(source_repo(json.loads(label_path.read_text(encoding="utf-8")).get("source")))
    current = RealSplits.load(dataset) or RealSplits(frozenset(), frozenset())
    current.with_new(repos - {""}).save(dataset)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent.labelcheck", description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--prefix", default="", help="check only cases whose id starts with this")
    parser.add_argument("--no-source", action="store_true", help="do not require `source` (generated corpora)")
    parser.add_argument("--assign", action="store_true",
                        help="add the source repositories of new cases to splits.json by its fixed rule")
    args = parser.parse_args(argv)
    if not (args.dataset / "cases").is_dir():
        print(f"error: {args.dataset}/cases is not a directory", file=sys.stderr)
        return 2
    if args.assign:
        assign_new_sources(args.dataset)
    n, problems = check_dataset(args.dataset, args.prefix, require_source=not args.no_source)
    for p in problems:
        print(p)
    print(f"{n} case(s) checked, {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
