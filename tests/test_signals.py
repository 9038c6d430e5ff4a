"""Signals during the parallel read, with a real `l4` process (probe X03, X05): Ctrl-C prints
one line and no worker traceback; SIGTERM to the parent leaves no worker behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.mining import PARALLEL_MIN_BYTES

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture(scope="module")
def big_job(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough short lines over four files that the pool starts and stays busy for seconds."""
    job = tmp_path_factory.mktemp("big")
    # Console files (srun -l "N: " prefixes) are read line by line, so the pool stays busy for
    # seconds even now that plain files are read a chunk at a time; a run that ends before the
    # signal dies in interpreter shutdown instead, silently, which is not what these tests test.
    line = "{3}: 2024-05-12 10:00:{0:02d} INFO iteration {1} | loss 2.5 | tokens {2} | node {3}\n"
    per_file = PARALLEL_MIN_BYTES  # 4 x 32 MB of console lines: about 5 s of reading here
    for k in range(4):
        block = "".join(line.format(i % 60, i, i * 7, i % 4) for i in range(2000))
        (job / f"worker-{k}.log").write_text(block * (per_file // len(block) + 1))
    return job


def _start(job: Path, home: Path) -> tuple[subprocess.Popen[str], list[int]]:
    env = {**os.environ, "L4_HOME": str(home)}
    # A shell starts a command with Ctrl-C at its default; an ignored SIGINT left in the test
    # process by earlier tests would be inherited and make the child deaf to it.
    proc = subprocess.Popen([sys.executable, "-m", "agent", "diagnose", str(job), "--no-cache"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 60
    kids: list[int] = []
    while len(kids) < 2 and time.time() < deadline and proc.poll() is None:
        kids = _children(proc.pid)
        time.sleep(0.05)
    assert len(kids) >= 2, "the worker pool never started"
    time.sleep(0.3)
    return proc, kids


def _gone(kids: list[int], within: float = 10) -> bool:
    deadline = time.time() + within
    while time.time() < deadline:
        if not any(_alive(k) for k in kids):
            return True
        time.sleep(0.1)
    for k in kids:
        if _alive(k):
            os.kill(k, signal.SIGKILL)
    return False


def test_sigterm_to_the_parent_ends_the_workers(big_job: Path, tmp_path: Path) -> None:
    proc, kids = _start(big_job, tmp_path)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (143, -15)
    assert _gone(kids), "workers outlived their parent"
    assert "Traceback" not in err


def test_ctrl_c_prints_one_line_and_no_worker_traceback(big_job: Path, tmp_path: Path) -> None:
    proc, kids = _start(big_job, tmp_path)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert err.strip() == "Interrupted."
    assert _gone(kids)


def _catches(pid: int, sig: int) -> bool:
    """Whether the process has a handler for ``sig`` (Linux: the SigCgt mask in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # no /proc: fall back to the sleep after the loop
    mask = next((line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), "0")
    return bool(int(mask, 16) >> (sig - 1) & 1)


def test_sigterm_outside_the_pool_unwinds_with_143(tmp_path: Path) -> None:
    """`kill PID` during a serial run exits 143 through the normal unwinding (no temp files left)."""
    env = {**os.environ, "L4_HOME": str(tmp_path / "home")}
    # Standard input left open keeps the run busy for as long as the test needs, on any machine.
    proc = subprocess.Popen([sys.executable, "-m", "agent", "diagnose", "-", "--workers", "1"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None
    proc.stdin.write("".join(f"2024-05-12 10:00:{i % 60:02d} INFO iteration {i} | loss 2.5\n" for i in range(1000)))
    proc.stdin.flush()
    # Signal only once l4 has its handler in place: on a loaded machine the imports alone can
    # take longer than a fixed sleep, and the default action would kill it with -15.
    deadline = time.monotonic() + 60
    while not _catches(proc.pid, signal.SIGTERM) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(1)
    assert proc.poll() is None, "finished before the signal"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "Traceback" not in err
    assert not list((tmp_path / "home").rglob("*.tmp"))
