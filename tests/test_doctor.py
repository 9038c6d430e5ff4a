"""`l4 doctor` finds damaged state under L4_HOME and moves it aside, never deleting it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from agent.cli import app
from agent.doctor import examine


def _damage(home: Path) -> None:
    (home / "config.toml").write_text("model = \n")
    (home / "normal" / "s").mkdir(parents=True)
    (home / "normal" / "s" / "miner.bin").write_bytes(b"not a pickle")
    (home / "normal" / "s" / "jobs.json").write_text("[]")
    (home / "library").mkdir()
    (home / "library" / "p1.json").write_text('{"schema": "l4-user-pattern/1", ')
    (home / "cache" / "diagnoses").mkdir(parents=True)
    (home / "cache" / "diagnoses" / "k.json").write_text('{"diagnosis": {"job": 1')
    store = home / "cache" / "kb-0123" / "chroma"
    store.mkdir(parents=True)
    (store / "chroma.sqlite3").write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    (home / "cache" / "kb-0123" / "ready-onnx.json").write_text("{}")


def test_damaged_state_is_moved_aside_and_named() -> None:
    home = Path(os.environ["L4_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    _damage(home)
    report = CliRunner().invoke(app, ["doctor", "--check"])
    assert report.exit_code == 1 and "moves it aside" in report.stdout
    assert (home / "config.toml").exists()  # --check moves nothing
    findings = examine()
    repaired = {f.what.split(":")[0] for f in findings if f.state == "repaired"}
    assert repaired == {"config.toml", "normal/s", "library/p1.json", "cache/diagnoses/k.json", "cache/kb-0123"}
    quarantine = next((home / "quarantine").iterdir())
    assert (quarantine / "normal" / "s" / "miner.bin").read_bytes() == b"not a pickle"  # kept, not deleted
    assert not (home / "config.toml").exists()
    again = CliRunner().invoke(app, ["doctor"])
    assert again.exit_code == 0 and "repaired" not in again.stdout


def test_a_pattern_that_is_not_one_is_moved_and_a_file_home_is_a_problem(tmp_path: Path, monkeypatch) -> None:
    home = Path(os.environ["L4_HOME"])
    (home / "library").mkdir(parents=True, exist_ok=True)
    (home / "library" / "ok.json").write_text(json.dumps({"x": 1}))  # readable JSON but not a pattern: damaged
    assert any(f.state == "repaired" and "ok.json" in f.what for f in examine())
    monkeypatch.setenv("L4_HOME", str(tmp_path / "file"))
    (tmp_path / "file").write_text("x")
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 1 and "is not a folder" in " ".join(result.stdout.split())
