"""The label checker catches the mistakes that would silently skew a real-log benchmark,
and the real corpus in the repo passes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.labelcheck import check_dataset, main
from agent.splits import RealSplits, leave_out_split_of, source_repo

REAL = Path(__file__).resolve().parent.parent / "benchmarks" / "real"

LOG = [
    "2024-05-01 10:00:00 INFO start",
    "[default0]:[rank0]: iteration 1 loss 2.5",
    "[default1]:[rank1]: gpu-7:11:12 [1] NCCL WARN NET/IB : Got completion from peer 10.0.0.2 with error 12",
    "[default1]:[rank1]: RuntimeError: NCCL communicator was aborted",
    "[default0]:[rank0]: waiting",
]


def good_label(**changes: object) -> dict[str, object]:
    label: dict[str, object] = {
        "schema": "l4-label/1", "setting": "s", "stack": "cuda", "category": "hardware", "subcategory": "network",
        "accept": ["hardware/network"], "symptom": "training_crash", "faulty_nodes": ["rank1"], "hosts": ["gpu-7"],
        "stage": "training", "iterations": [1],
        "fault_events": [{"id": "e1", "text": "NCCL WARN NET/IB : Got completion", "lines": {"console": [3]}}],
        "root_cause": "An IB link failed.", "remediation": "Replace the cable.", "source": "owner/repo#1",
    }
    label.update(changes)
    return label


def write_case(root: Path, case_id: str, label: dict[str, object], lines: list[str] = LOG) -> None:
    case = root / "cases" / case_id
    (case / "logs").mkdir(parents=True)
    (case / "logs" / "console.log").write_text("\n".join(lines) + "\n")
    (case / "label.json").write_text(json.dumps(label))


def problems_of(tmp_path: Path, **changes: object) -> list[str]:
    write_case(tmp_path, "c1", good_label(**changes))
    return [p.what for p in check_dataset(tmp_path)[1]]


def test_a_good_case_passes(tmp_path: Path) -> None:
    assert problems_of(tmp_path) == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"fault_events": [{"id": "e1", "text": "NCCL WARN", "lines": {"console": [4]}}]}, "does not contain"),
        ({"fault_events": [{"id": "e1", "text": "NCCL WARN", "lines": {"console": [40]}}]}, "past the end"),
        ({"fault_events": [{"id": "e1", "text": "NCCL WARN", "lines": {"rank1": [3]}}]}, "no file named 'rank1'"),
        ({"hosts": ["gpu-8"]}, "does not occur"),
        ({"faulty_nodes": ["rank9"]}, "not a node l4 names"),
        ({"accept": ["user/configuration"]}, "accept must start with the primary"),
        ({"accept": ["hardware/network", "user/network"]}, "not under 'user'"),
        ({"source": ""}, "no source"),
        ({"fault_events": []}, "no fault events"),
    ],
)
def test_each_kind_of_mistake_is_reported(tmp_path: Path, changes: dict[str, object], expected: str) -> None:
    assert any(expected in p for p in problems_of(tmp_path, **changes))


def test_one_log_filed_twice_is_reported(tmp_path: Path) -> None:
    write_case(tmp_path, "c1", good_label())
    write_case(tmp_path, "c2", good_label(source="owner/repo#2"))
    write_case(tmp_path, "c3", good_label(source="owner/repo#1"), [*LOG[:3], "other", "lines"])
    found = [str(p) for p in check_dataset(tmp_path)[1]]
    assert any("same evidence lines as c2" in p for p in found)
    assert any("same source 'owner/repo#1' as c3" in p for p in found)


def test_a_standard_message_in_another_log_is_not_the_same_log(tmp_path: Path) -> None:
    # The evidence line is the same text, but the lines around it differ: two jobs with one fault.
    write_case(tmp_path, "c1", good_label())
    write_case(tmp_path, "c2", good_label(source="owner/repo#2"), [LOG[0], "elsewhere", *LOG[2:]])
    found = [str(p) for p in check_dataset(tmp_path)[1]]
    assert not any("same evidence lines" in p for p in found)


def test_a_repository_in_both_splits_or_in_neither_is_reported(tmp_path: Path) -> None:
    write_case(tmp_path, "c1", good_label())
    (tmp_path / "splits.json").write_text(json.dumps({"dev": ["other/repo"], "test": ["other/repo"]}))
    found = [str(p) for p in check_dataset(tmp_path)[1]]
    assert any("both splits: other/repo" in p for p in found)
    assert any("owner/repo' is in no split" in p for p in found)


@pytest.mark.parametrize(
    ("source", "repo"),
    [
        ("Ascend/pytorch#123", "ascend/pytorch"),
        ("NVIDIA/nccl#230 (comment)", "nvidia/nccl"),
        ("bigscience-workshop/bigscience:train/tr11/chronicles.md@9e64ede", "bigscience-workshop/bigscience"),
        ("https://github.com/huggingface/accelerate/issues/1192", "huggingface/accelerate"),
        ("https://discuss.mindspore.cn/t/topic/1156 (forum)", "discuss.mindspore.cn"),
    ],
)
def test_source_repository_of_a_source_field(source: str, repo: str) -> None:
    assert source_repo(source) == repo


def test_real_splits_place_sources_by_repository(tmp_path: Path) -> None:
    (tmp_path / "splits.json").write_text(json.dumps({"dev": ["A/b"], "test": ["c/d"]}))
    splits = RealSplits.load(tmp_path)
    assert splits is not None
    assert splits.split_of_source("a/B#1") == "dev" and splits.split_of_source("c/d:x.log@1") == "test"
    assert splits.split_of_source("e/f#1") is None


def test_leave_out_holds_out_whole_fault_types() -> None:
    sides = {leave_out_split_of(f"type-{i}") for i in range(40)}
    assert sides == {"in-catalogue", "held-out"}
    assert leave_out_split_of("type-7") == leave_out_split_of("type-7")


def test_the_real_corpus_passes_the_checker(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(REAL)]) == 0, capsys.readouterr().out


def test_new_repositories_are_placed_by_the_fixed_rule_and_listed_ones_never_move(tmp_path: Path) -> None:
    from agent.labelcheck import assign_new_sources
    from agent.splits import rule_split

    write_case(tmp_path, "c1", good_label(source="some/repo#1"))
    (tmp_path / "splits.json").write_text(json.dumps({"dev": ["owner/repo"], "test": []}))
    assign_new_sources(tmp_path)
    splits = RealSplits.load(tmp_path)
    assert splits is not None and "owner/repo" in splits.dev
    assert splits.split_of_source("some/repo#1") == rule_split("some/repo")


def test_bench_selects_a_real_split_by_source_repository(tmp_path: Path) -> None:
    from agent.bench.cases import load_cases, select

    write_case(tmp_path, "c1", good_label(source="a/dev-repo#1"))
    write_case(tmp_path, "c2", good_label(source="b/test-repo#2"), LOG[:4])
    (tmp_path / "splits.json").write_text(json.dumps({"dev": ["a/dev-repo"], "test": ["b/test-repo"]}))
    assert [c.case_id for c in select(tmp_path, load_cases(tmp_path), "test")] == ["c2"]
    assert [c.case_id for c in select(tmp_path, load_cases(tmp_path), "dev")] == ["c1"]
    with pytest.raises(Exception, match="leave-out"):
        select(tmp_path, load_cases(tmp_path), "leave-out")
