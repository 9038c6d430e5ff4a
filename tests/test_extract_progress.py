"""The progress timeline (``agent.extract.progress``): which lines are progress, and what
their stop says: hang, slowdown, silent and stalled nodes, the symptom."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from minedjobs import mine

from agent.extract import Weights
from agent.extract.progress import (
    Progress,
    Timeline,
    build_timeline,
    detect_slowdown,
    progress_templates,
    symptom_of,
)
from agent.extract.table import build_table
from agent.mining import MinedJob


def hms(seconds: int) -> str:
    return f"2024-10-02 {10 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def steps(last: int, every: int = 10) -> list[str]:
    return [f"{hms(s * every)} INFO iteration {s}/ 100 | loss 2.5 | lr 1e-4" for s in range(1, last + 1)]


def timeline_of(mined: MinedJob) -> Timeline:
    progress = progress_templates(mined)
    return build_timeline(mined, build_table(mined), progress)


@pytest.mark.parametrize(
    ("lines", "progress"),
    [
        (steps(5), ["iteration"]),
        (steps(2), []),  # fewer than three iteration lines on the node
        ([f"{hms(s)} INFO step {s} done" for s in range(1, 6)], ["step"]),  # no loss/lr hint: still progress
        ([f"{hms(s)} INFO step {s} done" for s in range(1, 6)] + steps(5), ["iteration"]),  # a hinted one wins
        ([f"{hms(s)} INFO step {6 - s} done" for s in range(1, 6)], []),  # counting down is not progress
    ],
)
def test_progress_templates(tmp_path: Path, lines: list[str], progress: list[str]) -> None:
    mined = mine(tmp_path, {"n0": lines, "n1": lines})
    found = sorted(mined.miner.template(t) for t in progress_templates(mined))
    assert [next(w for w in ("iteration", "step") if w in t) for t in found] == progress


@pytest.mark.parametrize(
    ("tails", "hang", "silent", "stalled"),
    [
        ({}, False, [], []),
        ({n: [f"{hms(3000)} ERROR Watchdog caught collective operation timeout"] for n in ("n0", "n1", "n2", "n3")},
         True, [], []),  # progress stopped at 200 s, the job went on until 3000 s
        ({n: [f"{hms(600)} ERROR Watchdog caught collective operation timeout"] for n in ("n0", "n1", "n2")},
         True, ["n3"], []),  # n3 stopped logging at 200 s, the others went on to 600 s
    ],
)
def test_timeline_facts(
    tmp_path: Path, tails: dict[str, list[str]], hang: bool, silent: list[str], stalled: list[str]
) -> None:
    mined = mine(tmp_path, {n: steps(20) + tails.get(n, []) for n in ("n0", "n1", "n2", "n3")})
    tl = timeline_of(mined)
    assert tl.has_training and tl.last_iteration == 20 and tl.step_seconds == 10.0
    assert (tl.hang, tl.silent_nodes, tl.stalled_nodes) == (hang, silent, stalled)


def test_a_node_whose_progress_stops_early_is_stalled(tmp_path: Path) -> None:
    late = [f"{hms(400)} INFO still alive"]
    mined = mine(tmp_path, {"n0": steps(20) + late, "n1": steps(20) + late, "n2": steps(20) + late, "n3": steps(8) + late})
    assert timeline_of(mined).stalled_nodes == ["n3"]


def test_without_progress_there_is_no_training(tmp_path: Path) -> None:
    mined = mine(tmp_path, {"n0": [f"{hms(1)} INFO building train dataset", f"{hms(9)} ERROR disk full"]})
    tl = timeline_of(mined)
    assert (tl.has_training, tl.last_iteration, tl.hang) == (False, -1, False)


def progress_at(rates: list[float]) -> dict[str, Progress]:
    ts = np.concatenate([[0.0], np.cumsum(rates)])
    its = np.arange(1, len(ts) + 1)
    return {"n0": Progress(its, its, ts)}


@pytest.mark.parametrize(
    ("rates", "expected"),
    [
        ([1.0] * 30, None),
        ([1.0] * 15 + [2.0] * 15, (2.0, 17)),  # iteration 17 is the first logged after a 2 s step
        ([1.0] * 5 + [2.0] * 5, None),  # too few iterations to call it lasting
        ([1.0] * 15 + [2.0] * 2 + [1.0] * 13, None),  # a blip, not a slowdown
        ([1.0] * 15 + [1.5] * 15, None),  # under the 1.6x ratio
    ],
)
def test_detect_slowdown(rates: list[float], expected: tuple[float, int] | None) -> None:
    assert detect_slowdown(progress_at(rates)) == expected


def test_the_slowdown_ratio_is_a_weight() -> None:
    rates = [1.0] * 15 + [1.5] * 15
    assert detect_slowdown(progress_at(rates), Weights(slowdown_ratio=1.4)) == (1.5, 17)


def _timeline(has_training: bool, hang: bool = False, slowdown: bool = False) -> Timeline:
    return Timeline(has_training, 1.0, 1, 1, 1.0, 2.0, 1.0, hang=hang, slowdown=slowdown)


@pytest.mark.parametrize(
    ("timeline", "fatal", "symptom"),
    [
        (_timeline(False), True, "launching_failure"),
        (_timeline(True), True, "training_crash"),
        (_timeline(True, slowdown=True), True, "abnormal_behavior"),
        (_timeline(True, hang=True), False, "abnormal_behavior"),  # a silence after a warning is a hang
        (_timeline(True, hang=True), True, "training_crash"),  # after a fatal error, peers waited for the watchdog
    ],
)
def test_symptom_of(timeline: Timeline, fatal: bool, symptom: str) -> None:
    assert symptom_of(timeline, fatal) == symptom


def test_a_single_progress_line_in_an_excerpt_is_never_an_event(tmp_path: Path) -> None:
    # Real lines (bigscience tr1-13B chronicles): one Megatron iteration line, then the crash.
    from agent.extract import extract
    from agent.extract.progress import progress_reports

    lines = [
        "iteration    43680/  311541 | consumed samples:     25709904 | elapsed time per iteration (ms): 25593.4 | "
        "learning rate: 9.135E-05 | global batch size:  1024 | lm loss: 2.512523E+00 | loss scale: 262144.0 | "
        "number of skipped iterations:   0 | number of nan iterations:   0 |",
        "RuntimeError: transform: failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ECC error encountered",
    ]
    mined = mine(tmp_path, {"console": lines})
    assert len(progress_reports(mined)) == 1
    root = extract(mined).events[0].template
    assert "uncorrectable ECC" in root


def test_megatrons_printed_step_time_shows_a_slowdown_its_unstamped_lines_cannot(tmp_path: Path) -> None:
    # Megatron's iteration lines carry no timestamp but print their own duration (bigscience tr1-13B:
    # "iteration 43680/ 311541 | consumed samples: 25709904 | elapsed time per iteration (ms): 25593.4 | ...").
    # A link or a GPU going bad shows as that duration doubling and staying so; the onset is the report.
    from agent.pipeline import Diagnoser

    row = ("[default7]: iteration {:>8}/  250000 | consumed samples: {:>12} | elapsed time per iteration (ms): {} | "
           "learning rate: 3.000000E-04 | global batch size:  1024 | lm loss: 2.087759E+00 | loss scale: 1.0 |")
    lines = [row.format(i, i * 1024, 2500.0 + (i % 7) * 10 if i < 1317 else 4600.0 + (i % 5) * 30) for i in range(1280, 1360)]
    logs = tmp_path / "job"
    logs.mkdir()
    (logs / "ascend-910b-41.log").write_text("\n".join(lines) + "\n")
    diagnosis = Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1)
    assert diagnosis.iterations[:1] == [1317]
    assert diagnosis.symptom == "abnormal_behavior"
    # The same run at an even pace has no slowdown to date.
    (logs / "ascend-910b-41.log").write_text("\n".join(row.format(i, i * 1024, 2500.0) for i in range(1280, 1360)) + "\n")
    assert Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1).symptom != "abnormal_behavior"
