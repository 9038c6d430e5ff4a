"""Normal-job pools survive concurrent writers and damage (probe root causes 3 and 5)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from agent.errors import InputError
from agent.pools import add_normal_job, list_pools, load_profile, remove_normal


def make_job(root: Path, name: str) -> Path:
    logs = root / name / "logs"
    logs.mkdir(parents=True)
    lines = [f"2024-05-12 10:00:{i:02d} INFO iteration {i} loss 2.{i}" for i in range(20)]
    (logs / "worker-0.log").write_text("\n".join(lines) + "\n")
    return logs


def _add(home: str, setting: str, job: str) -> None:
    import os

    os.environ["L4_HOME"] = home
    add_normal_job(setting, Path(job), workers=1)


def test_two_concurrent_adds_keep_both_jobs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("L4_HOME", str(home))
    jobs = [make_job(tmp_path, f"n{i}") for i in range(4)]
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_add, args=(str(home), "s", str(job))) for job in jobs]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert all(p.exitcode == 0 for p in procs)
    profile = load_profile("s")
    assert profile is not None and sorted(Path(j.job) for j in profile.jobs) == sorted(j.resolve() for j in jobs)


def test_a_damaged_pool_names_its_folder_and_can_be_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("L4_HOME", str(tmp_path / "home"))
    add_normal_job("s", make_job(tmp_path, "n0"), workers=1)
    miner = tmp_path / "home" / "normal" / "s" / "miner.bin"
    miner.write_bytes(miner.read_bytes()[:10])
    with pytest.raises(InputError, match="damaged") as info:
        load_profile("s")
    assert str(tmp_path / "home" / "normal" / "s") in str(info.value)
    assert "damaged" in list_pools()[0][0]
    assert remove_normal("s") == 0
    assert load_profile("s") is None
