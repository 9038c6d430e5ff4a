"""HTML report size and cost at scale: the demo job, a 64-node and a 1,000-node job.

    python benchmarks/report_size.py [--hosts 8 64 1000] [--lines 3000]

Each job is generated (8 nodes: ``generate_demo``; more: ``generate_job`` with ``--lines``
per node file, 400 for 1,000 nodes to keep the disk small), diagnosed offline without
normal jobs, and rendered; the figures are the page's bytes and the render time beside
the diagnosis time of the same run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from agent.pipeline import analyze
from agent.report import render_html
from agent.synth import generate_demo, generate_job

BIG = 1000
BIG_LINES = 400


def measure(job: Path) -> tuple[int, int, float, float]:
    t0 = time.perf_counter()
    analysis = analyze(job, reasoner="offline")
    t1 = time.perf_counter()
    page = render_html(analysis.diagnosis, analysis, warnings=analysis.warnings)
    t2 = time.perf_counter()
    return len(analysis.mined.nodes), len(page.encode("utf-8")), t1 - t0, t2 - t1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, nargs="+", default=[8, 64, BIG])
    parser.add_argument("--lines", type=int, default=3000, help="lines per node file (jobs above 8 nodes)")
    opts = parser.parse_args()
    print("| job | nodes | page | diagnose | render | render / diagnose |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="l4-report-size-") as tmp:
        for hosts in opts.hosts:
            if hosts == 8:
                job, _, _ = generate_demo(Path(tmp) / "demo")
                name = "demo"
            else:
                lines = BIG_LINES if hosts >= BIG else opts.lines
                job = generate_job(Path(tmp) / f"j{hosts}", hosts=hosts, lines=lines)
                name = f"{hosts} nodes × ~{lines} lines"
            nodes, size, diagnose_s, render_s = measure(job)
            print(f"| {name} | {nodes} | {size / 1024:.0f} KB | {diagnose_s:.1f} s | {render_s:.2f} s | {render_s / diagnose_s:.2f} |")


if __name__ == "__main__":
    main()
