"""The corpus generator: labels point at real lines, checks catch bad labels, output is deterministic."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import time
from pathlib import Path

import pytest

from agent.schema import SUBCATEGORIES, Label
from l4synth import FAULTS, check_corpus, corpus_summary, generate_corpus, generate_demo

CASES = 14
_PREFIX = re.compile(r"^(?:\[(?:default|rank)(\d+)\]:|(\d+): )")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth") / "corpus"
    generate_corpus(out, cases=CASES, seed=3, preset="small", workers=2)
    return out


def _read(path: Path) -> list[str]:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8").splitlines()


def _files(logs: Path) -> list[Path]:
    return sorted(p for p in logs.rglob("*") if p.is_file())


def _strip(line: str) -> str:
    return _PREFIX.sub("", line, count=1)


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
        assert (label.stage in ("training", "checkpoint")) == bool(label.iterations)
        for ev in label.fault_events:
            for node, nums in ev.lines.items():
                for n in nums:
                    assert _mask(_line_of(case / "logs", node, n)) == _mask(ev.text), (case.name, node, n)
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
    generate_corpus(again, cases=CASES, seed=3, preset="small", workers=1)
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
