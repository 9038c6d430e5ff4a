"""The diagnosis cache never serves a stale or degraded answer and never loses one:
probe root cause 2 (key, fallbacks, warnings, temp names, failed saves)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent import cache
from agent.cli import app
from agent.schema import Diagnosis

LOG = "2024-05-12 10:00:00 INFO iteration 1 loss 2.0\n2024-05-12 10:00:05 ERROR RuntimeError: CUDA error: an illegal memory access was encountered\n"


@pytest.fixture()
def job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("L4_HOME", str(tmp_path / "home"))
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "worker-0.log").write_text(LOG)
    return logs


def key(job: Path, setting: str | None = None) -> str:
    return cache.job_key(job, normal_jobs=None, setting=setting, reasoner="offline|top=10")


def test_the_key_changes_with_the_users_patterns_and_the_setting_pool(job: Path, tmp_path: Path) -> None:
    before = key(job, "s1")
    library = tmp_path / "home" / "library"
    library.mkdir(parents=True)
    (library / "p1.json").write_text("{}")
    assert key(job, "s1") != before
    pool = tmp_path / "home" / "normal" / "s1"
    pool.mkdir(parents=True)
    with_library = key(job, "s1")
    (pool / "jobs.json").write_text("[]")
    assert key(job, "s1") != with_library


def test_the_key_changes_when_a_file_is_replaced_in_place(job: Path) -> None:
    before = key(job)
    path = job / "worker-0.log"
    st = path.stat()
    path.write_text(LOG.replace("illegal", "ILLEGAL"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime: ctime still moves
    assert key(job) != before


def test_an_entry_keeps_its_warnings_and_a_hit_prints_them(job: Path) -> None:
    runner = CliRunner()
    (job / "empty.log").write_text("")  # an ingest warning: "empty file, skipped"
    first = runner.invoke(app, ["diagnose", str(job), "-f", "json"])
    assert first.exit_code == 0 and "empty file" in first.stderr
    second = runner.invoke(app, ["diagnose", str(job), "-f", "json"])
    assert "cached diagnosis" in second.stderr and "empty file" in second.stderr


def test_a_cache_that_cannot_be_written_costs_a_warning_not_the_answer(job: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "cache").write_text("a file where the cache folder should be")
    result = CliRunner().invoke(app, ["diagnose", str(job), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["events"]
    assert "not cached" in result.stderr


def test_entries_written_before_warnings_were_kept_still_load(job: Path, tmp_path: Path) -> None:
    folder = tmp_path / "home" / "cache" / "diagnoses"
    folder.mkdir(parents=True)
    (folder / "k.json").write_text(json.dumps(Diagnosis(job="j").to_json_dict()))
    entry = cache.load("k")
    assert entry is not None and entry.diagnosis.job == "j" and entry.warnings == []


def test_an_unwritable_l4_home_warns_and_still_diagnoses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home-is-a-file"
    home.write_text("not a folder")
    monkeypatch.setenv("L4_HOME", str(home))
    logs = tmp_path / "logs2"
    logs.mkdir()
    (logs / "worker-0.log").write_text(LOG)
    result = CliRunner().invoke(app, ["diagnose", str(logs), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["category"] != "unknown"
    assert "L4_HOME" in result.stderr and str(home) in result.stderr.replace("\n", "")
