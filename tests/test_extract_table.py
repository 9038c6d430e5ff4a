"""The event table (``agent.extract.table``): per template and node, how often, where and
when (skew-corrected)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from agent.extract.table import EventStats, NodeEventStats, build_table
from agent.mining import mine_job


def test_build_table_counts_positions_levels_and_corrects_skew(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.log").write_text(
        "2024-10-02 10:00:01 INFO disk check ok\n2024-10-02 10:00:02 WARNING disk check ok\n"
        "2024-10-02 10:00:03 INFO disk check ok\n"
    )
    (logs / "b.log").write_text("2024-10-02 10:00:05 ERROR disk full on /dev/sda\n")
    mined = mine_job(logs, workers=1)
    table = build_table(mined, {"b": 2.0})
    check = next(s for s in table.events.values() if "check" in s.template)
    full = next(s for s in table.events.values() if "full" in s.template)
    a = check.per_node["a"]
    assert (a.count, a.first_pos, a.last_pos, a.last_ts - a.first_ts) == (3, 0, 2, 2.0)
    assert check.max_level == 3 and check.nodes == ["a"] and check.total == 3
    assert full.per_node["b"].first_ts == mined.nodes["b"].ts[0] - 2.0  # b's clock runs 2 s ahead
    assert table.node_names == ["a", "b"]
    assert table.node_last_ts["b"] == table.corrected("b", float(mined.nodes["b"].ts[0]))


def stats(times: list[float]) -> EventStats:
    out = EventStats(1, "x")
    for i, ts in enumerate(times):
        out.per_node[f"n{i}"] = NodeEventStats(1, 0, 0, ts, ts)
    return out


@pytest.mark.parametrize(
    ("times", "first_ts", "first_node"),
    [
        ([5.0, 3.0, 4.0], 3.0, "n1"),
        ([math.nan, 3.0], 3.0, "n1"),
        ([0.0, 10.0, 11.0, 12.0, 13.0], 10.0, "n0"),  # on many nodes, one early clock does not move the event
        ([math.nan], math.nan, "n0"),
    ],
)
def test_first_ts_and_first_node(times: list[float], first_ts: float, first_node: str) -> None:
    s = stats(times)
    assert (math.isnan(s.first_ts) and math.isnan(first_ts)) or s.first_ts == first_ts
    assert s.first_node() == first_node


def test_an_undated_line_may_have_been_printed_as_late_as_the_next_stamped_one(tmp_path: Path) -> None:
    # PBS's kill lands on tqdm's bar with no time of its own, an hour after the run's last
    # stamped line and just before torchrun's stamped SIGTERM (pedramh-profiling e3sm_sfno_train.o6141319).
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "job.log").write_text(
        "2024-05-14 12:10:00 INFO model built\n"
        "=>> PBS: job killed: walltime 3633 exceeded limit 3600\n"
        "2024-05-14 13:10:27 WARNING Received 15 death signal, shutting down workers\n"
        "tail without a time\n"
    )
    table = build_table(mine_job(logs, workers=1))
    kill = next(s for s in table.events.values() if "PBS" in s.template)
    built = next(s for s in table.events.values() if "built" in s.template)
    tail = next(s for s in table.events.values() if "tail" in s.template)
    assert kill.first_ts_latest - kill.first_ts == 3627.0  # borrowed 12:10:00, printed by 13:10:27
    assert built.first_ts_latest == built.first_ts  # a stamped line's time is known
    assert tail.first_ts_latest == tail.first_ts  # nothing stamped after it: no later bound known


def test_an_undated_last_line_may_have_been_printed_until_the_job_stopped(tmp_path: Path) -> None:
    # Rank 0's OOM has no time of its own, under a stamp printed when the data loaders were
    # built; its peers' watchdogs time out 35 minutes later (independent corpus E, e09).
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rank_0.log").write_text(
        "[after dataloaders are built] datetime: 2025-01-08 20:18:43\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.54 GiB.\n"
    )
    (logs / "rank_3.log").write_text(
        "[after dataloaders are built] datetime: 2025-01-08 20:18:43\n"
        "[rank3]:[E0108 20:53:27.818649 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout\n"
    )
    table = build_table(mine_job(logs, workers=1))
    oom = next(s for s in table.events.values() if "OutOfMemoryError" in s.template)
    assert oom.first_ts_latest - oom.first_ts == pytest.approx(34 * 60 + 44.82, abs=0.01)  # until the last stamp


def test_an_undated_line_the_job_stepped_past_was_not_printed_at_the_end(tmp_path: Path) -> None:
    # A thread's error under an unstamped bar that went on to step 2000 (sttn-convlstm console).
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "job.log").write_text(
        "2024-05-14 12:10:00 INFO model built\n"
        "OSError: handle is closed\n"
        "  10%|█         | 2000/20000 [21:46<3:16:01,  1.53it/s]\n"
    )
    (logs / "peer.log").write_text("2024-05-14 12:40:00 INFO still here\n")
    table = build_table(mine_job(logs, workers=1))
    closed = next(s for s in table.events.values() if "handle is closed" in s.template)
    assert closed.first_ts_latest == closed.first_ts
