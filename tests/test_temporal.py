"""Time imputation for logs whose app lines carry no timestamp (Python's default format).

The shape is a real one: progress lines unstamped, a kernel line stamped on the failing
node, a launcher stamp at the start of one file and at the end of the others. One map
iteration -> time must serve every node, or each node gets its own clock and the skew
estimate invents offsets that hide the root event.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agent.extract import clock, progress
from agent.mining import MinedJob, mine_job

STEPS = 50


def write_job(root: Path, *, launcher_stamp_on_first: bool = True) -> Path:
    logs = root / "logs"
    logs.mkdir(parents=True)
    for n in range(4):
        lines = []
        if n == 0 and launcher_stamp_on_first:
            lines.append("[2024-10-02 22:13:37] [after model, optimizer, and learning rate scheduler are built]")
        lines.append("INFO:train.py:80:main:building dataloaders")
        lines += [f"INFO:train.py:214:main:step {s} | loss {5.0 - s / 100:.4f} | lr 3.0e-05 | 9600.0 ms/step" for s in range(1, STEPS + 1)]
        if n == 2:
            lines.append("Oct  2 22:55:00 node-2 kernel: NVRM: Xid (PCI:0000:48:00): 31, pid=38923, name=python, MMU Fault")
            lines.append("RuntimeError: CUDA error: an illegal memory access was encountered")
            lines.append("  time      : 2024-10-02_22:55:07")
        else:
            lines.append("[rank0]:[E1002 23:04:59.323821568 ProcessGroupNCCL.cpp:630] [Rank 0] Some NCCL operations have failed or timed out.")
            lines.append("  time      : 2024-10-02_23:05:01")
        (logs / f"node-{n}.log").write_text("\n".join(lines) + "\n")
    return logs


def step_times(mined: MinedJob, progress_tids: set[int]) -> dict[str, np.ndarray]:
    return {name: progress.node_progress(log, progress_tids, 0.0).ts for name, log in mined.nodes.items()}


def test_unstamped_progress_gets_one_clock_for_the_whole_job(tmp_path: Path) -> None:
    mined = mine_job(write_job(tmp_path), workers=1)
    mined = clock.with_times(mined, clock.impute_times(mined))
    progress_tids = progress.progress_templates(mined)
    assert progress_tids
    times = step_times(mined, progress_tids)
    first = times["node-0"]
    assert len(first) == STEPS
    for name, ts in times.items():
        assert np.allclose(ts, first), name  # iteration k is one moment on every node
    skew = clock.estimate_skew(mined, progress_tids)
    assert all(abs(v) < 1.0 for v in skew.values()), skew


def test_the_failing_nodes_kernel_stamp_follows_its_last_step(tmp_path: Path) -> None:
    mined = mine_job(write_job(tmp_path), workers=1)
    mined = clock.with_times(mined, clock.impute_times(mined))
    progress_tids = progress.progress_templates(mined)
    log = mined.nodes["node-2"]
    last_step = float(progress.node_progress(log, progress_tids, 0.0).ts[-1])
    xid = int(np.flatnonzero(log.lineno == STEPS + 2)[0])  # header line, STEPS progress lines, then the Xid
    peers_end = max(float(mined.nodes[n].ts[-1]) for n in ("node-0", "node-1", "node-3"))
    assert last_step <= float(log.ts[xid]) < peers_end


def test_a_lone_end_stamp_does_not_date_the_whole_file(tmp_path: Path) -> None:
    # Without the launcher's early stamp, every file's only stamps are at its end.
    mined = mine_job(write_job(tmp_path, launcher_stamp_on_first=False), workers=1)
    mined = clock.with_times(mined, clock.impute_times(mined))
    progress_tids = progress.progress_templates(mined)
    times = step_times(mined, progress_tids)
    for ts in times.values():
        assert np.all(np.diff(ts) > 0)  # progress advances instead of sitting on the end stamp
    assert all(abs(v) < 1.0 for v in clock.estimate_skew(mined, progress_tids).values())
