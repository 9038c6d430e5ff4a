"""The chunked scan must give exactly what the per-line scan gives, or step aside.

Every comparison is field by field against ``scan_lines(read_lines(source))``: keys, samples,
last texts, and each per-line array (timestamps bit for bit, NaN where unknown)."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from agent import fastscan
from agent.ingest import open_job, read_lines
from agent.mining import mine_job
from agent.scan import NodeScan, scan_lines

REAL = Path(__file__).resolve().parent.parent / "benchmarks" / "real" / "cases"


def assert_same(fast: list[NodeScan], ref: list[NodeScan]) -> None:
    assert len(fast) == len(ref)
    for a, b in zip(fast, ref, strict=True):
        assert a.node == b.node
        assert a.keys == b.keys
        assert a.samples == b.samples
        assert a.last_sample == b.last_sample
        for name in ("key_of_line", "lineno", "stamped", "level", "iteration"):
            assert np.array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name))), name
            assert getattr(a, name).typecode == getattr(b, name).typecode, name
        assert np.array_equal(np.asarray(a.ts), np.asarray(b.ts), equal_nan=True)


def compare(path: Path) -> list[NodeScan]:
    """Fast scan of every file of a job, each checked against the per-line scan."""
    scans: list[NodeScan] = []
    for source in open_job(path).sources:
        assert fastscan.eligible(source), source
        fast = fastscan.scan_file(source)
        assert_same(fast, scan_lines(read_lines(source, [])))
        scans += fast
    return scans


def write(tmp_path: Path, text: str | bytes, name: str = "worker-1.log") -> Path:
    path = tmp_path / name
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def test_every_shipped_real_file_scans_the_same():
    checked = 0
    for case in sorted(REAL.iterdir()):
        for source in open_job(case / "logs").sources:
            if not fastscan.eligible(source):
                continue  # console files: per-line by design
            try:
                fast = fastscan.scan_file(source)
            except fastscan.Unsupported:
                continue
            assert_same(fast, scan_lines(read_lines(source, [])))
            checked += 1
    assert checked >= 150  # nearly all of the ~175 one-node files take the fast path


def test_a_generated_job_scans_the_same_in_small_chunks(tmp_path, monkeypatch):
    from l4synth import generate_demo

    logs, _, _ = generate_demo(tmp_path / "demo")
    monkeypatch.setattr(fastscan, "CHUNK_BYTES", 4096)  # many chunks: carry-over, late new shapes, sample limits
    assert sum(len(s) for s in compare(logs)) > 10_000


EDGE_CASES = {
    "iso with zones": "2024-05-12T10:31:02.5+05:30 a 1\n2024-05-12 10:31:02,123 b\n2024-05-12T10:31:02-0700 c\n"
                      "2024-05-12T10:31:02Z d\n2024-05-12-10:45:12.123.456 e\n",
    "invalid dates inherit": "2024-05-12 10:31:02 ok\n2024-13-12 10:31:02 month 13\n0000-01-01 00:00:00 y0\nplain\n",
    "yearless after one year": "I0512 10:31:02.123456 glog first\n2023-12-31 23:59:59 iso\nI0101 00:00:01.5 glog\n"
                               "May 12 10:31:02 syslog\nMay 12 10:31:02 2021 syslog with year\nJan  3 01:02:03.25 x\n",
    "month first and month/day": "05/17/2024 01:30:26 - INFO - hf\n05/17/2024 01:30:27,250 - INFO - hf ms\n"
                                 "01/29 21:35:34 - mmengine - INFO - Iter(train) [ 10/720]\n[01/29 21:35:35.5 x\n"
                                 "13/40 10:00:00 not a date\n12/31/2024 23:59:59 end of year\n",
    "crlf and empty lines": "2024-05-12 10:31:02 a\r\n\r\n\n2024-05-12 10:31:03 a\r\r\nlast line without break",
    "levels": "[ERROR] x 1\nWARN y 2\nE0512 10:31:02.1 glog error\nerror: lowercase\nINFO:root:step 3\n",
    # as a console shows it once its "[rankN]:" prefixes are read as ranks
    "pytorch c++ log": "2024-03-20 23:00:00 launcher\n[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] x\n"
                       "[W1206 18:44:12.755262105 ProcessGroupNCCL.cpp:1664] y\n[E ProcessGroupNCCL.cpp:458] z\n",
    "iterations": " iteration 10/ 100 | loss 2.5\nstep=12 loss 1\nglobal_step: 7\nStep [  3] done\nrank 3 iter 99\n"
                  "step 2147483647 fits\nstep 2147483648 does not\nstep 12345678901 neither\n",
    "non-ascii before the digits": "é 2024-05-12 10:31:02 ü step 5\n日本 step 6 2024-05-12 10:31:03\n",
    "utf-8 bom": "\ufeff2024-05-12 10:31:02 first\n2024-05-12 10:31:03 second\n",
    "digit-only differences": "EZ9999 code 1\nEZ1001 code 2\n0000:3b:00.7 pci\n0000:3b:00.9 pci\nworker-12 up\n",
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases_scan_the_same(tmp_path, name):
    write(tmp_path, EDGE_CASES[name])
    assert compare(tmp_path)


def test_gzip_scans_the_same(tmp_path):
    write(tmp_path, "".join(f"2024-05-12 10:31:{i % 60:02d} step {i} loss 0.{i}\n" for i in range(3000)), "n1.log.gz")
    assert len(compare(tmp_path)[0]) == 3000


UNSUPPORTED = {
    "not utf-8": b"2024-05-12 10:31:02 ok\n\xff\xfe\xfa broken\n",
    "nul padding": b"\x00\x00\x002024-05-12 10:31:02 after copytruncate\nmore\n",
    "clipped line": ("x" * 20_000 + "\n").encode(),
    "two iso years and glog": b"2023-12-31 23:59:59 a\n2024-01-01 00:00:01 b\nI0101 00:00:02.1 c\n",
    "iteration past int64": b"step 1234567890123456789012 done\n",
    "arabic digits": "step ٣ done\n".encode(),
    "a literal replacement character": "2024-05-12 10:31:02 shown as \ufffd already\n".encode(),
    "a message glued after a progress bar": b"\r 12%|###7   | 1/8 [01:34<11:01, 94.51s/it]slurmstepd: error: *** JOB 1 "
                                            b"CANCELLED AT 2026-06-04T13:30:59 DUE TO TIME LIMIT ***\n",
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_what_it_does_not_model_goes_per_line_with_the_same_result(tmp_path, name):
    path = write(tmp_path, UNSUPPORTED[name], "w.log")
    (source,) = open_job(path).sources
    with pytest.raises(fastscan.Unsupported):
        fastscan.scan_file(source)
    warnings: list[str] = []
    scans, got = fastscan.scan_source(source)
    assert_same(scans, scan_lines(read_lines(source, warnings)))
    assert got == warnings  # the per-line path words the warnings, as before


def test_console_files_are_left_to_the_per_line_path(tmp_path):
    write(tmp_path, "".join(f"[default{r}]: step {i} loss 1.0\n" for i in range(50) for r in range(4)), "job.out")
    (source,) = open_job(tmp_path).sources
    assert not fastscan.eligible(source)
    assert len(fastscan.scan_source(source)[0]) == 4


def test_mining_a_job_uses_it_and_gives_the_same_templates(tmp_path, monkeypatch):
    for node in range(3):
        write(tmp_path, "".join(f"2024-05-12 10:31:{i % 60:02d} worker-{node} step {i} loss 0.{i}\n"
                                for i in range(500)), f"worker-{node}.log")
    fast = mine_job(tmp_path, workers=1)
    monkeypatch.setattr(fastscan, "eligible", lambda source: False)
    slow = mine_job(tmp_path, workers=1)
    assert fast.miner.templates() == slow.miner.templates()
    for name, log in slow.nodes.items():
        other = fast.nodes[name]
        for field in ("template", "lineno", "ts", "stamped", "level", "iteration"):
            assert np.array_equal(getattr(log, field), getattr(other, field), equal_nan=field == "ts"), field
        assert log.samples == other.samples and log.last_text == other.last_text


def test_a_file_gone_since_discovery_is_left_to_the_per_line_path(tmp_path):
    path = write(tmp_path, "2024-05-12 10:31:02 a\n")
    (source,) = open_job(path).sources
    path.unlink()  # rotated away between listing the job and reading it
    with pytest.raises(fastscan.Unsupported):
        fastscan.scan_file(source)
    scans, warnings = fastscan.scan_source(source)
    assert scans == [] and "read error" in warnings[0]


def test_a_fast_path_bug_costs_speed_not_the_result(tmp_path, monkeypatch):
    write(tmp_path, "2024-05-12 10:31:02 step 1\n2024-05-12 10:31:03 step 2\n")
    (source,) = open_job(tmp_path).sources

    def broken(*args):
        raise IndexError("a bug")

    monkeypatch.setattr(fastscan, "_timestamps", broken)
    scans, warnings = fastscan.scan_source(source)
    assert_same(scans, scan_lines(read_lines(source, [])))
    assert warnings == []
