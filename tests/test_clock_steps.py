"""Backward clock steps (probe I19c): warned with node and line, and the node's order kept."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from agent.extract import clock
from agent.pipeline import analyze
from tests.minedjobs import mine

T0 = dt.datetime(2024, 5, 12, 10, 0, 0)
IMA = "ERROR RuntimeError: CUDA error: an illegal memory access was encountered"
WATCHDOG = ("ERROR [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE) "
            "ran for 600000 milliseconds before timing out.")


def _stamp(seconds: float) -> str:
    return f"{T0 + dt.timedelta(seconds=seconds):%Y-%m-%d %H:%M:%S}"


def _job(back: int) -> dict[str, list[str]]:
    """The probe's job: worker-2's clock steps back ``back`` seconds after its 100th line."""
    nodes = {}
    for k in range(4):
        shift = [back if (k == 2 and i >= 100) else 0 for i in range(200)]
        lines = [f"{_stamp(i - shift[i])} INFO [train] iteration {1000 + i} | loss {2.5 - i * 0.001:.4f} | node worker-{k}"
                 for i in range(200)]
        lines.append(f"{_stamp(200 - back)} {IMA}" if k == 2 else f"{_stamp(260)} {WATCHDOG}")
        nodes[f"worker-{k}"] = lines
    return nodes


@pytest.mark.parametrize("back", [300, 3600])
def test_a_backward_step_is_warned_and_undone(tmp_path: Path, back: int) -> None:
    mined = mine(tmp_path, _job(back))
    times, warnings = clock.unstep_times(mined)
    assert list(times) == ["worker-2"]
    assert len(warnings) == 1 and "worker-2, line 101 of worker-2.log" in warnings[0]
    ts = times["worker-2"]
    assert np.all(np.diff(ts) >= 0)  # order holds
    assert ts[-1] - ts[0] == pytest.approx(200 - 1 + 1, abs=2)  # one second per line again


def test_small_jitter_and_late_flushed_blocks_keep_their_times(tmp_path: Path) -> None:
    jitter = [f"{_stamp(i - (20 if i % 7 == 0 else 0))} INFO iteration {i} | loss 2.5" for i in range(100)]
    late = [f"{_stamp(i)} INFO iteration {i} | loss 2.5" for i in range(100)]
    late[50:55] = [f"{_stamp(i - 400)} INFO buffered line {i}" for i in range(50, 55)]  # flushed late, then back
    mined = mine(tmp_path, {"a": jitter, "b": late})
    times, warnings = clock.unstep_times(mined)
    assert times == {}
    assert len(warnings) == 1 and warnings[0].startswith("b, line 51 of b.log: time goes back")


@pytest.mark.parametrize("back", [300, 3600])
def test_the_root_event_survives_a_clock_step(tmp_path: Path, back: int) -> None:
    logs = tmp_path / "job"
    logs.mkdir()
    for node, lines in _job(back).items():
        (logs / f"{node}.log").write_text("\n".join(lines) + "\n")
    analysis = analyze(logs, workers=1, use_pool=False)
    d = analysis.diagnosis
    assert (d.category, d.subcategory) == ("framework", "framework_bug")  # the illegal memory access, not a teardown line
    assert d.faulty_nodes[0].node == "worker-2"
    assert any("clock steps back" in w for w in analysis.warnings)


def test_a_date_inside_a_message_is_not_a_time(tmp_path: Path) -> None:
    # rcc-uchicago/pedramh-profiling e3sm_train_3180828.o: a weather model prints the simulated period.
    lines = [f"{_stamp(i)} INFO iteration {i} | loss 2.5" for i in range(50)]
    lines[20:22] = ["Start date: 2045-01-01_00:00:00", "End date: 2050-01-01_00:00:00"]
    mined = mine(tmp_path, {"worker-1": lines})
    times, warnings = clock.far_dates(mined)
    ts = times["worker-1"]
    assert np.nanmax(ts) - np.nanmin(ts) < 3600  # the job's own hour, not 2050
    assert len(warnings) == 1 and "2 line(s) begin with a date far from the rest" in warnings[0]
    other = tmp_path / "b"
    other.mkdir()
    assert clock.far_dates(mine(other, {"w": [f"{_stamp(i)} INFO ok {i}" for i in range(5)]})) == ({}, [])
