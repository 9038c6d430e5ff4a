"""Routine work (``agent.extract.routine``): one definition, computed once per mined job."""

from __future__ import annotations

from pathlib import Path

from agent.extract.routine import routine_mask, routine_templates
from agent.mining import mine_job


def test_routine_work_is_read_once_per_job_and_excludes_errors(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "train.log").write_text(
        "".join(f"2024-05-01 10:00:{i:02d} INFO iteration {i} loss 2.{i:02d}\n" for i in range(20))
        + "2024-05-01 10:01:00 ERROR RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    mined = mine_job(logs, workers=1)
    first = routine_templates(mined)
    assert routine_templates(mined) is first  # the second reader gets the same set, not a recount
    log = next(iter(mined.nodes.values()))
    mask = routine_mask(log, first)
    assert mask[:20].all() and not mask[20]  # the error line is not routine work
