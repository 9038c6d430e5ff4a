"""Iterations (``agent.extract.iterations``): the one in flight at a moment, the ones a
failure reports, and the paper's DTW comparison of iteration event sequences."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.extract.iterations import _dtw, abnormal_iterations, failure_iterations, iteration_at
from agent.extract.progress import Progress, Timeline, build_timeline, progress_templates
from agent.extract.table import build_table
from agent.mining import mine_job


def timeline(hang: bool = False, slowdown_iteration: int = -1) -> Timeline:
    its = np.array([10, 20, 30])
    prog = Progress(np.array([0, 1, 2]), its, np.array([100.0, 110.0, 120.0]))
    return Timeline(
        True, 120.0, 30, 10, 10.0, 500.0, 120.0, hang=hang, slowdown=slowdown_iteration >= 0,
        slowdown_iteration=slowdown_iteration, per_node={"n0": prog},
    )


@pytest.mark.parametrize(
    ("ts", "expected"),
    [
        (125.0, [36, 31]),  # 5 s after iteration 30 at 1 s per iteration: the 6th one in flight
        (119.0, [30, 21]),  # before the line of 30 was logged: 20 was the last
        (500.0, [40, 31]),  # never further than one logging interval ahead
        (float("nan"), [31]),  # no time: the one after the last logged
        (50.0, [10]),  # before any progress: the first logged
    ],
)
def test_iteration_at(ts: float, expected: list[int]) -> None:
    assert iteration_at(timeline(), "n0", ts) == expected


def test_no_training_no_iteration() -> None:
    assert iteration_at(Timeline(False, np.nan, -1, 1, np.nan, 1.0, 1.0), None, 1.0) == []


@pytest.mark.parametrize(
    ("tl", "stage", "ts", "expected"),
    [
        (timeline(), "training", 125.0, [36, 31]),
        (timeline(), "init", 125.0, []),  # iterations only mean something in training or a save
        (timeline(slowdown_iteration=20), "training", 125.0, [20, 36, 31]),
        (timeline(hang=True), "checkpoint", 400.0, [31]),  # a hang is dated by its last progress line
    ],
)
def test_failure_iterations(tl: Timeline, stage: str, ts: float, expected: list[int]) -> None:
    assert failure_iterations(tl, stage, "n0", ts) == expected


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [((1, 2, 3), (1, 2, 3), 0.0), ((), (1,), 1.0), ((1, 2, 3), (1, 3), 1 / 3), ((1, 1), (2, 2), 1.0)],
)
def test_dtw(a: tuple[int, ...], b: tuple[int, ...], distance: float) -> None:
    assert _dtw(a, b) == pytest.approx(distance)


def test_an_iteration_unlike_its_window_is_abnormal(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = []
    for s in range(1, 31):
        lines.append(f"2024-10-02 10:00:{s:02d} INFO iteration {s}/ 100 | loss 2.5 | lr 1e-4")
        lines.append(f"2024-10-02 10:00:{s:02d} INFO allreduce bucket done")
        if s == 20:
            lines.append("2024-10-02 10:00:20 WARNING NCCL retrying send on channel 3")
    (logs / "n0.log").write_text("\n".join(lines) + "\n")
    mined = mine_job(logs, workers=1)
    progress = progress_templates(mined)
    tl = build_timeline(mined, build_table(mined), progress)
    found = abnormal_iterations(mined, tl, progress)
    assert [(a.node, a.iteration) for a in found] == [("n0", 20)]
    assert [mined.miner.template(t) for t in found[0].extra_tids] == [
        next(mined.miner.template(t) for t in mined.miner.templates() if "retrying" in mined.miner.template(t))
    ]
