"""Ingest never serves a verdict silently: every file is read or named, compressions by their
bytes, binary by a share, and a file not read in full lowers the confidence (issue 11)."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.ingest import looks_binary, open_job

LINE = "2024-05-12 10:00:{:02d} INFO iteration {} | loss 2.5\n"
TEXT = "".join(LINE.format(i, i) for i in range(30)).encode()
IMA = b"2024-05-12 10:00:59 ERROR RuntimeError: CUDA error: an illegal memory access was encountered\n"


@pytest.mark.parametrize("name, data, warned", [
    ("w.log.gz", gzip.compress(TEXT), None),
    ("w.log.bz2", bz2.compress(TEXT), None),
    ("w.log.xz", lzma.compress(TEXT), None),
    ("w.log.gz", TEXT, "not compressed; read as plain text"),
    ("w.log.gz", bz2.compress(TEXT), "holds bzip2 data; read as bzip2"),
])
def test_compression_is_read_from_the_bytes(tmp_path: Path, name: str, data: bytes, warned: str | None) -> None:
    (tmp_path / name).write_bytes(data)
    job = open_job(tmp_path)
    lines = list(job.lines(job.sources[0]))
    assert len(lines) == 30 and lines[0].text.startswith("2024-05-12 10:00:00 INFO")
    assert job.sources[0].node == "w"
    assert (warned is None and not job.warnings) or any(warned in w for w in job.warnings if warned)


def test_random_bytes_are_binary_but_a_few_odd_bytes_are_not() -> None:
    assert looks_binary(os.urandom(8192))
    latin1 = TEXT + "Straße café µs\n".encode("latin-1")
    assert not looks_binary(latin1)
    assert not looks_binary(b"\x00" * 100 + TEXT)


def test_copytruncate_padding_longer_than_the_sniff_keeps_the_file(tmp_path: Path) -> None:
    (tmp_path / "w.log").write_bytes(b"\x00" * 200_000 + TEXT)
    job = open_job(tmp_path)
    assert [s.node for s in job.sources] == ["w"]
    assert any("NUL" in w for w in [*job.warnings, *_warnings_after_read(job)])


def _warnings_after_read(job) -> list[str]:
    for source in job.sources:
        list(job.lines(source))
    return job.warnings


def test_files_that_are_not_logs_are_named(tmp_path: Path) -> None:
    (tmp_path / "w.log").write_bytes(TEXT)
    (tmp_path / "core.1234").write_bytes(b"x")
    (tmp_path / "notes.md").write_text("x")
    job = open_job(tmp_path)
    assert any("2 file(s) not read" in w and "core.1234" in w and "notes.md" in w for w in job.warnings)


def _job(tmp_path: Path, skipped: bool) -> Path:
    job = tmp_path / ("skip" if skipped else "full")
    job.mkdir()
    for k in range(4):
        body = b"".join(LINE.format(i, 100 + i).encode() for i in range(40))
        body += IMA if k == 2 else b"2024-05-12 10:01:30 ERROR [Rank 1] Watchdog caught collective operation timeout\n"
        (job / f"worker-{k}.log").write_bytes(body)
    if skipped:
        (job / "worker-2.log").write_bytes(os.urandom(9000) + (job / "worker-2.log").read_bytes())
    return job


def test_a_skipped_node_lowers_the_confidence_and_json_and_ticket_say_why(tmp_path: Path) -> None:
    runner = CliRunner()
    full = json.loads(runner.invoke(app, ["diagnose", str(_job(tmp_path, False)), "-f", "json", "--no-cache"]).stdout)
    job = _job(tmp_path, True)
    first = runner.invoke(app, ["diagnose", str(job), "-f", "json"])
    again = runner.invoke(app, ["diagnose", str(job), "-f", "json"])  # a cache hit keeps them too
    ticket = runner.invoke(app, ["ticket", str(job)])
    for result in (first, again):
        d = json.loads(result.stdout)
        assert any("worker-2.log: binary content" in w for w in d["warnings"])
        assert any("confidence lowered" in w for w in d["warnings"])
        assert d["confidence"] < full["confidence"]
    assert full["warnings"] == []
    assert "worker-2.log: binary content" in ticket.stdout and "confidence lowered" in ticket.stdout


def test_zstd_is_read_when_zstandard_is_installed(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    (tmp_path / "w.log.zst").write_bytes(zstandard.ZstdCompressor().compress(TEXT))
    job = open_job(tmp_path)
    assert len(list(job.lines(job.sources[0]))) == 30 and not job.warnings
