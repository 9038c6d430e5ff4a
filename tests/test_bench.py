"""`l4 bench` scoring: exact numbers on a hand-built dataset, with a fake and the real analyze."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent import bench
from agent.bench import (
    ERROR_COUNT,
    ERROR_LEVEL,
    ERROR_TIME,
    GREP,
    L4,
    RARE_EVENT,
    SUMMARY_COLUMNS,
    OutputEvent,
    iteration_hit,
    load_cases,
    run_bench,
    score_events,
    split_of,
)
from agent.errors import DatasetError
from agent.mining import MinedJob, mine_job
from agent.schema import Diagnosis

T = "2024-05-01 10:00:"

# c1: worker-1 is faulty (NCCL warnings, lines 3-4, then a watchdog error, line 5), but
# worker-0 logs the first (harmless) error and worker-2 logs the most (cascade) errors.
C1_LOGS = {
    "worker-0.log": [f"{T}00 INFO start training", f"{T}01 INFO iteration 1 loss 2.5",
                     f"{T}02 ERROR failed to write metrics file, retrying", f"{T}05 INFO iteration 2 loss 2.4"],
    "worker-1.log": [f"{T}00 INFO start training", f"{T}01 INFO iteration 1 loss 2.5",
                     f"{T}10 WARNING NCCL WARN NET/IB : Got completion from peer 10.0.0.2 with error 12",
                     f"{T}11 WARNING NCCL WARN NET/IB : Got completion from peer 10.0.0.3 with error 12",
                     f"{T}12 ERROR watchdog caught collective operation timeout"],
    "worker-2.log": [f"{T}00 INFO start training", f"{T}01 INFO iteration 1 loss 2.5",
                     f"{T}20 ERROR NCCL communicator was aborted on rank 2",
                     f"{T}21 ERROR NCCL communicator was aborted on rank 2",
                     f"{T}22 ERROR NCCL communicator was aborted on rank 2"],
}
C2_LOGS = {"launcher.log": [f"{T}00 INFO launching 8 processes",
                            f"{T}01 ERROR invalid value for tensor_model_parallel_size: 3 does not divide 8"]}
C3_LOGS = {f"worker-{n}.log": [f"{T}00 INFO start training", f"{T}01 INFO iteration 99 loss 2.5"] for n in range(3)}
C3_LOGS["worker-2.log"].append(f"{T}02 ERROR Xid 79 GPU has fallen off the bus")


def _label(**kw: Any) -> dict[str, Any]:
    base = {"schema": "l4-label/1", "setting": "s-cuda", "stack": "cuda", "category": "hardware",
            "subcategory": "network", "symptom": "training_crash", "faulty_nodes": [], "stage": "training",
            "iterations": [], "fault_events": [], "root_cause": "x", "remediation": "y"}
    base.update(kw)
    return base


LABELS = {
    "c1": _label(faulty_nodes=["worker-1"], iterations=[1520], fault_events=[
        {"id": "e1", "text": "NCCL WARN", "lines": {"worker-1": [3, 4]}},
        {"id": "e2", "text": "watchdog", "lines": {"worker-1": [5]}}]),
    "c2": _label(setting="s-npu", stack="ascend", category="user", subcategory="configuration",
                 symptom="launching_failure", stage="init",
                 fault_events=[{"id": "e1", "text": "invalid value", "lines": {"launcher": [2]}}]),
    "c3": _label(subcategory="accelerator", faulty_nodes=["worker-2"], iterations=[100],
                 fault_events=[{"id": "e1", "text": "Xid 79", "lines": {"worker-2": [3]}}]),
}


def _write_job(logs_dir: Path, files: dict[str, list[str]]) -> None:
    logs_dir.mkdir(parents=True)
    for name, lines in files.items():
        (logs_dir / name).write_text("\n".join(lines) + "\n")


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    for case_id, logs in (("c1", C1_LOGS), ("c2", C2_LOGS), ("c3", C3_LOGS)):
        _write_job(root / "cases" / case_id / "logs", logs)
        (root / "cases" / case_id / "label.json").write_text(json.dumps(LABELS[case_id]))
    _write_job(root / "normal" / "s-cuda" / "job-a" / "logs", {"worker-0.log": [f"{T}00 INFO start training"]})
    return root


def _event(template: str, *pairs: tuple[str, int]) -> dict[str, Any]:
    return {"template": template, "score": 1.0,
            "occurrences": [{"node": n, "line": ln, "text": template} for n, ln in pairs]}


def _nodes(*names: str) -> list[dict[str, Any]]:
    return [{"node": n, "score": 1.0, "reason": "r"} for n in names]


FAKE: dict[str, dict[str, Any]] = {
    # 3 events, 2 match (e1 via line 3 only, e2); ranks worker-1 second; 1535 within 1% of 1520.
    "c1": {"category": "hardware", "subcategory": "network", "stage": "training", "iterations": [1535],
           "faulty_nodes": _nodes("worker-0", "worker-1"),
           "events": [_event("nccl", ("worker-1", 3)), _event("noise", ("worker-0", 3)),
                      _event("watchdog", ("worker-1", 5), ("worker-2", 3))]},
    # 1 event, matches; wrong stage and subcategory; no labeled nodes or iterations.
    "c2": {"category": "user", "subcategory": "script_bug", "stage": "training",
           "events": [_event("invalid", ("launcher", 2))]},
    # nothing output; 103 is 3 away from 100 (tolerance 2): a miss.
    "c3": {"category": "hardware", "subcategory": "network", "stage": "training", "iterations": [103]},
}


@dataclass
class FakeAnalysis:
    """What bench reads of an ``Analysis``: the diagnosis and the mined job."""

    diagnosis: Diagnosis
    mined: MinedJob


def _fake_analyze(diagnoses: dict[str, dict[str, Any]], fail: tuple[str, ...] = ()) -> Callable[..., FakeAnalysis]:
    def fake(job_dir: Path, **kwargs: Any) -> FakeAnalysis:
        case_id = Path(job_dir).parent.name
        if case_id in fail:
            raise RuntimeError(f"boom in {case_id}")
        diagnosis = Diagnosis(job=str(job_dir), **diagnoses[case_id])
        return FakeAnalysis(diagnosis=diagnosis, mined=mine_job(job_dir, workers=1))

    return fake


# ------------------------------------------------------------------------------ dataset


def test_load_cases_reads_labels_and_normal_jobs(dataset: Path) -> None:
    cases = load_cases(dataset)
    assert [c.case_id for c in cases] == ["c1", "c2", "c3"]
    assert cases[0].job_dir == dataset / "cases" / "c1" / "logs"
    assert cases[0].normal_jobs == [dataset / "normal" / "s-cuda" / "job-a" / "logs"]
    assert cases[1].normal_jobs == []  # no normal jobs for s-npu
    assert cases[0].label.faulty_nodes == ["worker-1"]


@pytest.mark.parametrize(
    ("content", "problem"),
    [("{not json", "not readable JSON"),
     (json.dumps(_label(category="hardware", subcategory="script_bug")), "not under 'hardware'"),
     (json.dumps(_label(stage="warmup")), "stage"),
     (json.dumps({**_label(), "typo_field": 1}), "typo_field")],
)
def test_malformed_label_names_file_and_problem(dataset: Path, content: str, problem: str) -> None:
    path = dataset / "cases" / "c2" / "label.json"
    path.write_text(content)
    with pytest.raises(DatasetError) as info:
        load_cases(dataset)
    assert str(path) in str(info.value)
    assert problem in str(info.value)


def test_fields_another_tool_added_are_ignored_with_a_warning(dataset: Path) -> None:
    # Another author's labels carried a key of their own on every fault event; with a listener
    # the dataset still loads and the field is named once, without one it stays an error.
    label = LABELS["c1"] | {"fault_events": [{**e, "key": "nccl_ib"} for e in LABELS["c1"]["fault_events"]],
                            "generator": "gen.py"}
    (dataset / "cases" / "c1" / "label.json").write_text(json.dumps(label))
    heard: list[str] = []
    cases = load_cases(dataset, warn=heard.append)
    assert [e.id for e in cases[0].label.fault_events] == ["e1", "e2"]
    assert heard == ["label field 'fault_events[].key' is not in CONTRACTS.md: ignored (1 label(s))",
                     "label field 'generator' is not in CONTRACTS.md: ignored (1 label(s))"]
    with pytest.raises(DatasetError, match="generator"):
        load_cases(dataset)
    # A wrong value is never waved through, listener or not.
    (dataset / "cases" / "c1" / "label.json").write_text(json.dumps(label | {"stage": "warmup"}))
    with pytest.raises(DatasetError, match="stage"):
        load_cases(dataset, warn=heard.append)


def test_missing_label_and_empty_dataset(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no cases/"):
        load_cases(tmp_path)
    (tmp_path / "cases" / "x" / "logs").mkdir(parents=True)
    with pytest.raises(DatasetError, match=r"label\.json: missing"):
        load_cases(tmp_path)


def test_split_is_stable_and_balanced() -> None:
    ids = [f"case-{i:04d}" for i in range(1000)]
    splits = [split_of(i) for i in ids]
    assert splits == [split_of(i) for i in ids]
    assert set(splits) == {"train", "test"}
    assert 450 <= splits.count("test") <= 550
    assert split_of("case-0001") == split_of("case-0001")


# ------------------------------------------------------------------------------ scoring units


def test_iteration_tolerance_is_max_of_2_and_1_percent() -> None:
    assert iteration_hit([1535], [1520]) is True  # 15 <= 15.2
    assert iteration_hit([1536], [1520]) is False  # 16 > 15.2
    assert iteration_hit([102], [100]) is True  # 1% is 1, so 2 applies
    assert iteration_hit([103], [100]) is False
    assert iteration_hit([0, 0, 1520], [1520]) is True  # the first three count
    assert iteration_hit([0, 0, 0, 1520], [1520]) is False  # the fourth does not
    assert iteration_hit([], [1520]) is False
    assert iteration_hit([5], []) is None


def test_score_events_counts_output_and_labeled_matches() -> None:
    import numpy as np

    labeled = [{"a": np.array([3, 4])}, {"a": np.array([5])}, {"b": np.array([1])}]
    out = [OutputEvent("x", {"a": np.array([4, 9])}), OutputEvent("y", {"c": np.array([1])}),
           OutputEvent("z", {"a": np.array([5]), "b": np.array([1])})]
    s = score_events(out, labeled)
    assert s is not None
    assert (s.output_matched, s.labeled_matched) == (2, 3)
    assert s.precision == pytest.approx(2 / 3) and s.recall == 1.0 and s.f1 == pytest.approx(0.8)
    empty = score_events([], labeled)
    assert empty is not None and (empty.precision, empty.recall, empty.f1) == (0.0, 0.0, 0.0)
    assert score_events(out, []) is None


# ------------------------------------------------------------------------------ run_bench with a fake analyze


def test_scores_with_fake_analyze(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench.run, "analyze", _fake_analyze(FAKE))
    seen: list[tuple[int, int]] = []
    report = run_bench(dataset, workers=1, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    rows = {r.case_id: r for r in report.cases}
    assert [r.case_id for r in report.cases] == ["c1", "c2", "c3"]
    assert all(r.error is None and r.seconds is not None for r in report.cases)

    c1 = rows["c1"].events[L4]
    assert c1 is not None and c1.precision == pytest.approx(2 / 3) and c1.recall == 1.0
    assert c1.f1 == pytest.approx(0.8)
    assert rows["c1"].node_rank[L4] == 2 and rows["c3"].node_rank[L4] is None
    assert rows["c2"].node_rank == {}  # no labeled faulty nodes: not node-scored
    assert (rows["c1"].iteration_hit, rows["c2"].iteration_hit, rows["c3"].iteration_hit) == (True, None, False)

    o = report.overall
    ev = o.events[L4]
    assert ev.n == 3
    assert ev.precision == pytest.approx(5 / 9)  # (2/3 + 1 + 0) / 3
    assert ev.recall == pytest.approx(2 / 3)  # (1 + 1 + 0) / 3
    assert ev.f1 == pytest.approx(20 / 33)  # harmonic mean of the two means
    assert ev.mean_case_f1 == pytest.approx(0.6)  # (0.8 + 1 + 0) / 3
    top = o.nodes[L4].top
    assert o.nodes[L4].n == 2
    assert [top[k].value for k in (1, 3, 5, 8)] == [0.0, 0.5, 0.5, 0.5]
    assert (o.stage.hits, o.stage.n) == (2, 3)
    assert (o.category[L4].hits, o.category[L4].n) == (3, 3)
    assert (o.subcategory[L4].hits, o.subcategory[L4].n) == (1, 3)
    assert (o.iteration.hits, o.iteration.n) == (1, 2)
    assert o.cases == 3 and o.errors == 0

    by_stack = report.groups["stack"]
    assert set(by_stack) == {"cuda", "ascend"}
    assert by_stack["ascend"].events[L4].f1 == 1.0 and by_stack["cuda"].cases == 2
    assert set(report.groups["category"]) == {"hardware", "user"}
    assert set(report.groups["symptom"]) == {"training_crash", "launching_failure"}

    json.dumps(report.to_json_dict())  # serialisable
    md = report.to_markdown()
    assert "| event F1 |" in md and "Error_time" in md and "## By stack" in md and "| c3 |" in md
    assert all(len(row) == len(SUMMARY_COLUMNS) for row in report.summary_rows())


def test_baselines_on_known_answer(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mined = mine_job(dataset / "cases" / "c1" / "logs", workers=1)
    # worker-0 errs first (harmless), worker-2 errs most (cascade); worker-1 is the faulty one.
    assert bench.error_time_ranking(mined) == ["worker-0", "worker-1", "worker-2"]
    assert bench.error_count_ranking(mined) == ["worker-2", "worker-0", "worker-1"]

    monkeypatch.setattr(bench.run, "analyze", _fake_analyze(FAKE))
    rows = {r.case_id: r for r in run_bench(dataset, workers=1).cases}
    # grep + signatures takes the most specific match, whatever the line's role: the
    # "communicator was aborted" wrapper on worker-2 outranks worker-1's IB completion error.
    assert rows["c1"].node_rank == {L4: 2, GREP: 2, ERROR_TIME: 2, ERROR_COUNT: 3}
    assert rows["c1"].grep_category == "user"
    assert rows["c3"].node_rank[ERROR_TIME] == 1 and rows["c3"].node_rank[ERROR_COUNT] == 1

    # error-level filter on c1: 3 error templates (metrics, watchdog, aborted); only
    # watchdog is a fault event (e2); the NCCL warnings (e1) are missed.
    el = rows["c1"].events[ERROR_LEVEL]
    assert el is not None and (el.output, el.output_matched, el.labeled_matched) == (3, 1, 1)
    assert el.precision == pytest.approx(1 / 3) and el.recall == 0.5
    # rare-event filter on c1: template counts are start 3, iteration 3, aborted 3,
    # metrics 1, NCCL 2, watchdog 1; the lowest-quartile count is 1 -> metrics and watchdog.
    re_ = rows["c1"].events[RARE_EVENT]
    assert re_ is not None and (re_.output, re_.output_matched, re_.labeled_matched) == (2, 1, 1)
    assert re_.precision == 0.5 and re_.recall == 0.5
    # c2: the only error line is the fault, and it is also the rarest.
    assert rows["c2"].events[ERROR_LEVEL] is not None and rows["c2"].events[ERROR_LEVEL].f1 == 1.0  # type: ignore[union-attr]


def test_failing_case_becomes_error_row(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench.run, "analyze", _fake_analyze(FAKE, fail=("c2",)))
    report = run_bench(dataset, workers=1)
    rows = {r.case_id: r for r in report.cases}
    assert rows["c2"].error is not None and "boom in c2" in rows["c2"].error
    assert rows["c1"].error is None and rows["c3"].error is None
    o = report.overall
    assert (o.cases, o.errors) == (3, 1)
    assert o.events[L4].n == 2 and o.events[L4].precision == pytest.approx(1 / 3)  # (2/3 + 0) / 2
    assert (o.stage.hits, o.stage.n) == (2, 2)
    assert "boom in c2" in report.to_markdown()


def test_split_and_limit_select_cases(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench.run, "analyze", _fake_analyze(FAKE))
    for split in ("train", "test"):
        report = run_bench(dataset, split=split, workers=1)
        assert [r.case_id for r in report.cases] == [c for c in ("c1", "c2", "c3") if split_of(c) == split]
    assert [r.case_id for r in run_bench(dataset, limit=2, workers=1).cases] == ["c1", "c2"]


# ------------------------------------------------------------------------------ the real pipeline


def test_real_analyze_end_to_end(dataset: Path) -> None:
    report = run_bench(dataset, workers=1)
    assert [r.error for r in report.cases] == [None, None, None]
    rows = {r.case_id: r for r in report.cases}
    # The baselines depend only on the mined job, whatever the extractor outputs.
    assert rows["c1"].node_rank[ERROR_TIME] == 2 and rows["c1"].node_rank[ERROR_COUNT] == 3
    assert rows["c1"].lines == 14
    assert report.overall.events[L4].n == 3
    json.dumps(report.to_json_dict())
    assert report.to_markdown().startswith("# l4 bench")


def test_process_pool_matches_in_process(dataset: Path) -> None:
    one = run_bench(dataset, workers=1, use_normal=False)
    two = run_bench(dataset, workers=2, use_normal=False)
    assert [r.case_id for r in two.cases] == ["c1", "c2", "c3"]
    untimed = {"seconds": None, "grep_seconds": None}
    strip = [{**r.__dict__, **untimed} for r in one.cases]
    assert strip == [{**r.__dict__, **untimed} for r in two.cases]
