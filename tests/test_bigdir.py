"""The 'all files' directory (40 jobs, 373 node files, ~1.2M lines) parses: a slow suite."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks" / "probe"))
from bigdir import generate

from agent.cli import app


@pytest.mark.slow
def test_the_all_files_directory_parses(tmp_path: Path) -> None:
    files = generate(tmp_path, lines_per_file=3200)
    result = CliRunner().invoke(app, ["parse", str(tmp_path), "-f", "json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["files"] == summary["nodes"] == files == 373
    assert summary["lines"] == 373 * 3200  # 1,193,600
