"""The corpus generator: labels point at real lines, checks catch bad labels, output is deterministic,
the catalogue quotes real lines, and the real layouts (pasted excerpts, restarts, per-node files
with rank prefixes) are labeled from the bytes written."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import time
from pathlib import Path

import pytest

from agent.schema import SUBCATEGORIES, Label
from l4synth import FAULTS, check_corpus, corpus, corpus_summary, generate_corpus, generate_demo
from l4synth.fault_types import NO_REAL_LINE
from l4synth.restarts import Restarts
from l4synth.verify import check_case

CASES = 14
SEED = 3
_PREFIX = re.compile(r"^(?:\[(?:default|rank)(\d+)\]:| {0,4}(\d+): )")
_STAMP = re.compile(r"^\[?\s*(\d{4}-\d\d-\d\d[ T_-]\d\d:\d\d|\d+\.\d{6}\]|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d)")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth") / "corpus"
    generate_corpus(out, cases=CASES, seed=SEED, preset="small", workers=2)
    return out


def _tasks(kind: str) -> dict[str, corpus.CaseTask]:
    """The small corpus' cases whose layout name starts with ``kind``, by case id."""
    return {t.dir.removeprefix("cases/"): t for t in corpus.plan(CASES, SEED, "small")
            if t.kind == "case" and t.layout_name.startswith(kind)}


def _read(path: Path) -> list[str]:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8").splitlines()


def _files(logs: Path) -> list[Path]:
    return sorted(p for p in logs.rglob("*") if p.is_file())


def _strip(line: str) -> str:
    return _PREFIX.sub("", line, count=1)


def _logical(lines: list[str], lineno: int) -> str:
    """A physical line joined with its continuation when a terminal may have wrapped it (a full-width line)."""
    width = max(map(len, lines))
    parts = [lines[lineno - 1]]
    while len(parts[-1]) == width and lineno < len(lines):
        lineno += 1
        parts.append(lines[lineno - 1])
    return "".join(parts)


def _readings(logs: Path, node: str, lineno: int) -> set[str]:
    """A node's line as read, and joined with its continuation when it may be hard-wrapped."""
    for p in _files(logs):
        stem = re.sub(r"\.(log|txt|out)(\.gz)?$", "", p.name)
        if node in (stem, f"{p.parent.name}/{stem}"):
            lines = _read(p)
            return {lines[lineno - 1], _logical(lines, lineno)}
    return {_line_of(logs, node, lineno)}


def _line_of(logs: Path, node: str, lineno: int) -> str:
    """Find a node's line the way a reader of the contract would, without the generator's help."""
    files = _files(logs)
    for p in files:
        stem = re.sub(r"\.(log|txt|out)(\.gz)?$", "", p.name)
        if node in (stem, f"{p.parent.name}/{stem}"):
            return _read(p)[lineno - 1]
    # A virtual node of a combined console log: the line must carry that rank's prefix.
    assert len(files) == 1, f"no file for node {node}"
    line = _read(files[0])[lineno - 1]
    m = _PREFIX.match(line)
    assert m and f"rank{m.group(1) or m.group(2)}" == node, (node, line)
    return line


def _mask(text: str) -> str:
    return re.sub(r"\S*\d\S*", "#", _strip(text))


def test_catalogue_covers_the_taxonomy() -> None:
    assert len(FAULTS) >= 30
    assert len({f.id for f in FAULTS}) == len(FAULTS)
    covered = {(f.category, f.subcategory) for f in FAULTS}
    expected = {(c, s) for c, subs in SUBCATEGORIES.items() if c != "unknown" for s in subs}
    assert expected <= covered
    assert {s for f in FAULTS for s in f.stacks} == {"cuda", "ascend"}
    assert any(f.node_local for f in FAULTS) and any(not f.node_local for f in FAULTS)
    assert {f.stage for f in FAULTS} >= {"init", "model_loading", "data_loading", "training", "checkpoint"}
    assert {f.outcome for f in FAULTS} == {"crash", "hang", "slowdown", "silent"}


def test_layout_and_labels(small: Path) -> None:
    cases = sorted((small / "cases").iterdir())
    assert [c.name for c in cases] == [f"c{i:04d}" for i in range(1, CASES + 1)]
    stacks = set()
    for case in cases:
        label = Label.model_validate(json.loads((case / "label.json").read_text()))
        stacks.add(label.stack)
        assert label.fault_type and label.fault_events
        pasted = case.name in _tasks("excerpt")
        assert (label.stage in ("training", "checkpoint")) >= bool(label.iterations)
        assert (label.stage in ("training", "checkpoint")) == bool(label.iterations) or pasted
        for ev in label.fault_events:
            for node, nums in ev.lines.items():
                for n in nums:
                    assert _mask(ev.text) in set(map(_mask, _readings(case / "logs", node, n))), (case.name, node, n)
    assert stacks == {"cuda", "ascend"}


def test_layouts_are_varied(small: Path) -> None:
    names = [p.name for c in (small / "cases").iterdir() for p in _files(c / "logs")]
    assert all(re.search(r"\.(log|txt|out)(\.gz)?$", n) for n in names)
    consoles = [c for c in (small / "cases").iterdir() if len(_files(c / "logs")) == 1]
    assert consoles, "expected at least one combined console log"
    nested = [c for c in (small / "cases").iterdir() if any(p.parent != c / "logs" for p in _files(c / "logs"))]
    assert nested, "expected a per-host directory layout"


def test_check_corpus_passes_and_catches_a_shifted_line(small: Path, tmp_path: Path) -> None:
    assert check_corpus(small) == []
    bad = tmp_path / "bad"
    shutil.copytree(small, bad)
    case = bad / "cases" / "c0001"
    raw = json.loads((case / "label.json").read_text())
    ev = raw["fault_events"][0]
    node = next(iter(ev["lines"]))
    ev["lines"][node][0] += 1
    (case / "label.json").write_text(json.dumps(raw))
    problems = check_corpus(bad)
    assert any(p.startswith("c0001:") for p in problems)


def test_check_corpus_catches_a_missing_occurrence(small: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad2"
    shutil.copytree(small, bad)
    def repeated(event: dict) -> bool:
        return sum(len(v) for v in event["lines"].values()) > 1

    case = next(c for c in sorted((bad / "cases").iterdir())
                if any(repeated(e) for e in json.loads((c / "label.json").read_text())["fault_events"]))
    raw = json.loads((case / "label.json").read_text())
    ev = next(e for e in raw["fault_events"] if repeated(e))
    node = next(k for k, v in ev["lines"].items() if v)
    ev["lines"][node] = ev["lines"][node][1:]
    ev["lines"] = {k: v for k, v in ev["lines"].items() if v}
    (case / "label.json").write_text(json.dumps(raw))
    assert any("not listed" in p for p in check_corpus(bad))


def test_deterministic(small: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    generate_corpus(again, cases=CASES, seed=SEED, preset="small", workers=1)
    files = sorted(p.relative_to(small) for p in small.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    for rel in files[:: max(1, len(files) // 25)]:
        assert (small / rel).read_bytes() == (again / rel).read_bytes(), rel


def test_normal_jobs_and_summary(small: Path) -> None:
    summary = corpus_summary(small)
    assert summary["cases"] == CASES
    assert summary["cases_with_normal_jobs"] > summary["cases_without_normal_jobs"]
    assert summary["lines_per_node"]["max"] <= 2500
    assert len(summary["fault_type"]) >= 12
    for setting in (small / "normal").iterdir():
        jobs = sorted(setting.iterdir())
        assert 2 <= len(jobs) <= 3 and all(j.name.startswith("n") for j in jobs)
        assert not any((j / "label.json").exists() for j in jobs)


def test_refuses_non_empty_dir(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("keep me")
    with pytest.raises(ValueError, match="not empty"):
        generate_corpus(tmp_path, cases=1, preset="small")


def test_demo_is_fast_and_well_formed(tmp_path: Path) -> None:
    start = time.perf_counter()
    job, normals, setting = generate_demo(tmp_path / "demo")
    assert time.perf_counter() - start < 3.0
    files = _files(job)
    assert len(files) >= 8
    assert len(normals) == 2 and all(_files(n) for n in normals)
    assert all(setting == n.parent.parent.name for n in normals)
    label = Label.model_validate(json.loads((job.parent / "label.json").read_text()))
    assert label.category == "hardware" and len(label.faulty_nodes) == 1
    lengths = [len(_read(p)) for p in files]
    assert max(lengths) > 1500


def test_the_demo_runs_from_python_in_a_home_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from l4synth.demo import run_demo

    monkeypatch.setenv("L4_HOME", str(tmp_path / "mine"))
    notes: list[str] = []
    demo = run_demo(tmp_path / "demo", progress=notes.append)
    assert demo.label is not None and demo.analysis.diagnosis.faulty_nodes
    assert demo.analysis.diagnosis.faulty_nodes[0].node in demo.label["faulty_nodes"]
    assert [n[:3] for n in notes] == ["1/3", "2/3", "3/3"]
    assert not (tmp_path / "mine").exists()


# ------------------------------------------------------------------ real lines and real layouts


def test_catalogue_quotes_real_lines_with_their_sources() -> None:
    """Every fault type names the public source of its lines; what has no real line is listed by id."""
    import l4synth

    root = Path(l4synth.__file__).parent
    text = (root / "faults_hardware.py").read_text() + (root / "faults_software.py").read_text()
    ids = []
    for block in text.split("    FaultType(\n")[1:]:
        m = re.match(r'\s*"([\w-]+)"', block)
        assert m, block[:80]
        ids.append(m.group(1))
        assert "# real:" in block, f"{m.group(1)} names no real source"
    assert sorted(ids) == sorted(f.id for f in FAULTS)
    assert set(NO_REAL_LINE) <= set(ids)


def _run(dest: Path, setting: object, fault_id: str, seed: str, restarts: Restarts | None = None,
         hosts: int = 2, lines: int = 900) -> Path:
    from l4synth.job import Shape

    task = corpus.CaseTask("case", "cases/c0001", setting, fault_id,  # type: ignore[arg-type]
                           Shape(hosts, lines, 7200.0, max_lines=1900), seed, restarts)
    corpus.run_task(str(dest), task)
    return dest / "cases" / "c0001"


def _label(case: Path) -> dict:
    return json.loads((case / "label.json").read_text())


def test_excerpts_are_one_short_console_labeled_at_the_pasted_lines(small: Path) -> None:
    excerpts = _tasks("excerpt")
    assert excerpts, "the small preset should hold pasted excerpts"
    for cid in excerpts:
        case = small / "cases" / cid
        files = _files(case / "logs")
        assert [p.name for p in files] == ["console.log"], cid
        lines = _read(files[0])
        assert 10 <= len(lines) < 200, (cid, len(lines))
        label = _label(case)
        assert {n for ev in label["fault_events"] for n in ev["lines"]} == {"console"}
        assert set(label["faulty_nodes"]) <= {"console"}
        assert all(any(h in ln for ln in lines) for h in label["hosts"])


def test_an_untimed_excerpt_has_no_timestamps_and_a_wrapped_one_is_labeled_at_its_first_line(tmp_path: Path) -> None:
    import random
    from dataclasses import replace

    from l4synth.excerpt import WRAP_WIDTHS

    setting = replace(corpus._setting(random.Random("excerpt-test"), "cuda", "megatron", small=True,
                                      layout="excerpt"), stamps=False, app_style="bare", launcher_style="bare")
    wrapped = 0
    for k in range(10):
        case = _run(tmp_path / str(k), setting, "xid48-double-bit-ecc", f"excerpt-test:{k}")
        assert check_case(case) == [], k
        lines = _read(case / "logs" / "console.log")
        assert not [ln for ln in lines if _STAMP.match(ln)], k
        width = max(map(len, lines))
        if width in WRAP_WIDTHS and sum(len(ln) == width for ln in lines) >= 2:
            wrapped += 1
            for ev in _label(case)["fault_events"]:
                first = ev["lines"]["console"][0]
                if len(ev["text"]) > width:  # wrapped: its first physical line is labeled, the text is whole
                    assert len(lines[first - 1]) == width and _logical(lines, first) == ev["text"]
                else:
                    assert lines[first - 1] == ev["text"]
    assert wrapped, "some excerpt should be hard-wrapped at a terminal width"


def _first_with(lines: list[str], needle: str, start: int = 0) -> int:
    """1-based number of the first line at or after ``start`` that holds ``needle``."""
    return next(i for i, ln in enumerate(lines[start:], start + 1) if needle in ln)


def test_a_restarted_job_prints_its_start_up_again_and_labels_the_fault_in_every_attempt(tmp_path: Path) -> None:
    import random

    setting = corpus._setting(random.Random("restart-test"), "cuda", "megatron", small=True, layout="node")
    case = _run(tmp_path, setting, "nccl-ib-completion-error", "restart-test:agent", Restarts(2, "agent", True),
                hosts=4)
    assert check_case(case) == []
    files = {re.sub(r"\.(log|txt|out)(\.gz)?$", "", p.name): _read(p) for p in _files(case / "logs")}
    banners = [sum("-- arguments --" in ln for ln in lines) for lines in files.values()]
    assert max(banners) == 2, "rank 0 prints its arguments once per attempt"
    assert sum(any("Worker group FAILED" in ln for ln in lines) for lines in files.values()) == 4
    label = _label(case)
    (node,) = label["faulty_nodes"]
    restart_at = _first_with(files[node], "Worker group FAILED")
    nums = label["fault_events"][0]["lines"][node]
    assert min(nums) < restart_at < max(nums), "the fault recurs after the restart and both are labeled"
    assert sum("ChildFailedError" in ln for ln in files[node]) <= 2, "only the last attempt raises"


def test_a_requeued_job_that_fails_only_in_its_last_attempt_labels_only_that_attempt(tmp_path: Path) -> None:
    import random

    setting = corpus._setting(random.Random("restart-test"), "cuda", "megatron", small=True, layout="node")
    case = _run(tmp_path, setting, "xid79-fallen-off-bus", "restart-test:requeue", Restarts(2, "requeue", False))
    assert check_case(case) == []
    label = _label(case)
    (node,) = label["faulty_nodes"]
    lines = _read(next(p for p in _files(case / "logs") if p.name.startswith(node + ".")))
    second_start = _first_with(lines, "+ hostname:", _first_with(lines, "+ hostname:"))
    assert _first_with(lines, "Received Signals.SIGTERM") < second_start, "the first attempt was cancelled"
    assert all(n > second_start for ev in label["fault_events"] for n in ev["lines"][node])
    assert len(label["iterations"]) == 1


def test_per_node_files_carry_rank_prefixes_and_stay_one_node_each(small: Path) -> None:
    prefixed = _tasks("node_prefixed")
    assert prefixed, "the small preset should hold per-node files with rank prefixes"
    for cid, task in prefixed.items():
        case = small / "cases" / cid
        stems = {re.sub(r"\.(log|txt|out)(\.gz)?$", "", p.name): p for p in _files(case / "logs")}
        label = _label(case)
        assert {n for ev in label["fault_events"] for n in ev["lines"]} <= set(stems), cid
        assert set(label["faulty_nodes"]) <= set(stems)
        for path in stems.values():
            ranks = {int(m.group(1) or m.group(2)) for ln in _read(path) if (m := _PREFIX.match(ln))}
            assert len(ranks) >= 2, (cid, path.name)
            if task.setting.console_prefix == "default":  # torchrun --tee numbers a node's local processes
                assert ranks <= set(range(task.setting.per_host))
        assert check_case(case) == []


def test_a_fault_that_cuts_start_up_short_keeps_each_line_with_its_rank_prefix(tmp_path: Path) -> None:
    import random

    setting = corpus._setting(random.Random("prefix-test"), "cuda", "megatron", small=True, layout="node_prefixed")
    case = _run(tmp_path, setting, "tp-pp-not-dividing-world", "prefix-test:init", Restarts(2, "requeue", True))
    assert check_case(case) == []
    label = _label(case)
    for ev in label["fault_events"]:
        for node, nums in ev["lines"].items():
            lines = _read(next(p for p in _files(case / "logs") if p.name.startswith(node + ".")))
            assert all(_PREFIX.match(lines[n - 1]) for n in nums), "a worker's error carries its prefix"
