"""A failed job offered as normal is refused unless forced (probe S07: it poisoned the pool)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.errors import NotNormalError
from agent.pools import add_normal_job, load_profile

INFO = "2024-05-12 10:{:02d}:{:02d} INFO iteration {} | loss 2.5"


def _job(root: Path, name: str, lines: int = 120, tail: list[str] | None = None) -> Path:
    job = root / name
    job.mkdir()
    for k in range(2):
        body = [INFO.format(i // 60, i % 60, i) for i in range(lines)] + (tail or [])
        (job / f"worker-{k}.log").write_text("\n".join(body) + "\n")
    return job


@pytest.mark.parametrize("tail, why", [
    (["2024-05-12 10:05:00 ERROR RuntimeError: CUDA error: an illegal memory access was encountered"], "ends on an error"),
    (["Traceback (most recent call last):", '  File "train.py", line 3, in <module>', "ValueError: bad"], "traceback"),
])
def test_a_failed_job_is_refused_and_force_adds_it(tmp_path: Path, tail: list[str], why: str) -> None:
    bad = _job(tmp_path, "bad", tail=tail)
    with pytest.raises(NotNormalError, match=why):
        add_normal_job("s", bad)
    assert load_profile("s") is None  # nothing written
    assert len(add_normal_job("s", bad, force=True).jobs) == 1


def test_an_early_end_against_the_pool_is_refused(tmp_path: Path) -> None:
    add_normal_job("s", _job(tmp_path, "ok1"))
    with pytest.raises(NotNormalError, match="ends early"):
        add_normal_job("s", _job(tmp_path, "short", lines=20))
    assert len(add_normal_job("s", _job(tmp_path, "ok2")).jobs) == 2


def test_the_cli_refuses_in_one_line_and_accepts_force(tmp_path: Path) -> None:
    bad = _job(tmp_path, "bad", tail=["2024-05-12 10:05:00 ERROR boom"])
    refused = CliRunner().invoke(app, ["normal", "add", str(bad), "--setting", "s"])
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    message = " ".join(refused.stderr.split())
    assert "does not look like a successful job" in message and "--force" in message
    forced = CliRunner().invoke(app, ["normal", "add", str(bad), "--setting", "s", "--force"])
    assert forced.exit_code == 0
