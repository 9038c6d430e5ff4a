"""The "all files" directory: 40 jobs' node files in one tree (373 files, ~1.2M lines), as an SRE
collects them when a cluster has a bad week. Generates it and checks that `l4 parse` reads it.

    python benchmarks/probe/bigdir.py [DIR] [--lines-per-file 3200]

Prints files, nodes, lines and the wall time; exits 1 when parse fails or misses files.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JOBS = 40
FILES = 373  # the size of the real collection this stands in for


def generate(root: Path, lines_per_file: int, seed: int = 11) -> int:
    """Write the tree; returns the number of files. Jobs have 8 to 11 nodes; names repeat across jobs."""
    rng = random.Random(seed)
    sizes = [8] * JOBS
    for _ in range(FILES - sum(sizes)):
        sizes[rng.randrange(JOBS)] += 1
    count = 0
    for j, nodes in enumerate(sizes):
        job = root / f"job-{j:02d}"
        job.mkdir(parents=True, exist_ok=True)
        bad = rng.randrange(nodes)
        for k in range(nodes):
            out = []
            for i in range(lines_per_file - 1):
                t = 36000 + i
                out.append(f"2024-05-{1 + j % 28:02d} {t // 3600 % 24:02d}:{t // 60 % 60:02d}:{t % 60:02d} INFO "
                           f"[train] iteration {i} | loss {2.5 - i * 1e-4:.4f} | grad norm {rng.random():.3f} | node worker-{k}")
            out.append("ERROR RuntimeError: CUDA error: an illegal memory access was encountered" if k == bad
                       else "ERROR [Rank 1] Watchdog caught collective operation timeout")
            (job / f"worker-{k}.log").write_text("\n".join(out) + "\n")
            count += 1
    return count


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?", type=Path)
    ap.add_argument("--lines-per-file", type=int, default=3200)
    args = ap.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="l4-bigdir-"))
    files = generate(root, args.lines_per_file)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "agent", "parse", str(root), "-f", "json"], capture_output=True, text=True)
    secs = time.perf_counter() - t
    if p.returncode or "Traceback" in p.stderr:
        print(p.stderr[-2000:])
        return 1
    summary = json.loads(p.stdout)
    print(f"{files} files -> parse: {summary['files']} files, {summary['nodes']} nodes, {summary['lines']:,} lines in {secs:.1f} s")
    return 0 if summary["files"] == files == summary["nodes"] and summary["lines"] == files * args.lines_per_file else 1


if __name__ == "__main__":
    sys.exit(main())
