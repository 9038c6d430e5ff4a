"""One test per reliability-probe row fixed here that has no better home (see benchmarks/probe)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.ingest import open_job


def test_a06_a_setting_name_that_climbs_out_is_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "w.log").write_text("2024-05-12 10:00:00 ERROR boom\n")
    for args in (["diagnose", str(tmp_path / "w.log"), "--setting", "../../etc"],
                 ["normal", "add", str(tmp_path / "w.log"), "--setting", "../evil", "--force"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output and "invalid setting name" in result.stderr
    assert not list(tmp_path.rglob("*.lock"))


def test_i08a_bytes_that_are_not_utf8_are_warned(tmp_path: Path) -> None:
    (tmp_path / "w.log").write_bytes("2024-05-12 10:00:00 ERROR Straße café µs\n".encode("latin-1"))
    job = open_job(tmp_path)
    lines = list(job.lines(job.sources[0]))
    assert "\ufffd" in lines[0].text
    assert any("not UTF-8" in w for w in job.warnings)


def test_standard_input_is_a_job_of_one_console(tmp_path: Path) -> None:
    lines = [f"[rank{r}]: 2024-05-12 11:00:{i:02d} INFO iteration {i} | loss 2.5" for i in range(40) for r in range(3)]
    lines.append("[rank1]: 2024-05-12 11:01:00 ERROR RuntimeError: CUDA error: an illegal memory access was encountered")
    data = ("\n".join(lines) + "\n").encode()
    runner = CliRunner()
    result = runner.invoke(app, ["diagnose", "-", "-f", "json"], input=data)
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["job"] == "-" and d["faulty_nodes"][0]["node"] == "rank1"
    assert d["events"][0]["occurrences"][0]["line"] == 121
    parsed = runner.invoke(app, ["parse", "-", "-f", "json"], input=data)
    assert json.loads(parsed.stdout)["nodes"] == 3
    asked = runner.invoke(app, ["ask", "-", "why?"], input=data)
    assert asked.exit_code == 2 and "save standard input to a file" in " ".join(asked.stderr.split())
    page = runner.invoke(app, ["diagnose", "-", "-f", "html", "--out", str(tmp_path / "r.html")], input=data)
    assert page.exit_code == 2 and "Traceback" not in page.output and not (tmp_path / "r.html").exists()


def test_s10_library_list_names_a_damaged_pattern() -> None:
    import os

    folder = Path(os.environ["L4_HOME"]) / "library"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "p1.json").write_text('{"schema": "l4-user-pattern/1", ')
    result = CliRunner().invoke(app, ["library", "list"])
    assert result.exit_code == 0
    assert "p1.json skipped" in " ".join(result.stderr.split()) and "l4 doctor" in result.stderr


def test_x07_a_killed_save_leaves_no_temp_behind(monkeypatch) -> None:
    import os
    import time

    from agent import cache
    from agent.schema import Diagnosis

    folder = Path(os.environ["L4_HOME"]) / "cache" / "diagnoses"
    folder.mkdir(parents=True)
    stale = folder / ".k0.abc.tmp"
    stale.write_text("{")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    fresh = folder / ".k1.abc.tmp"  # another process saving right now
    fresh.write_text("{")
    assert cache.save("k2", Diagnosis(job="j")) is None
    assert not stale.exists() and fresh.exists()

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cache.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cache.save("k3", Diagnosis(job="j"))
    assert sorted(p.name for p in folder.glob(".*.tmp")) == [".k1.abc.tmp"]
