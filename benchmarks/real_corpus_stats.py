"""Counts of the real-failure corpus by stack, category, length and layout (for its README).

Run: python benchmarks/real_corpus_stats.py [benchmarks/real]

Layout, as l4 reads the job: ``multi-file`` (several log files), ``multi-rank console`` (one
file that l4 splits into 2+ rank nodes, or whose lines name 2+ hosts), ``console`` (one file,
one stream). Length: ``long`` is 200 lines or more in the whole job.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from agent.aliases import names_in
from agent.ingest import open_job, read_lines
from agent.splits import RealSplits

LONG_LINES = 200


def layout_of(logs: Path) -> tuple[str, int]:
    job = open_job(logs)
    nodes: set[str] = set()
    hosts: set[str] = set()
    lines = 0
    for source in job.sources:
        for line in read_lines(source, []):
            lines += 1
            nodes.add(line.node)
            hosts.update(name for kind, name in names_in(line.text) if kind == "host")
    if len(job.sources) > 1:
        return "multi-file", lines
    if len(nodes) > 1 or len(hosts) > 1:
        return "multi-rank console", lines
    return "console", lines


def main(root: str = "benchmarks/real") -> None:
    dataset = Path(root)
    splits = RealSplits.load(dataset)
    counts: dict[str, Counter[str]] = {k: Counter() for k in ("stack", "category", "length", "layout", "split")}
    for label_path in sorted(dataset.glob("cases/*/label.json")):
        label = json.loads(label_path.read_text(encoding="utf-8"))
        layout, lines = layout_of(label_path.parent / "logs")
        counts["stack"][label["stack"]] += 1
        counts["category"][f"{label['category']}/{label['subcategory']}"] += 1
        counts["length"]["long (200+ lines)" if lines >= LONG_LINES else "short"] += 1
        counts["layout"][layout] += 1
        counts["split"][(splits.split_of_source(label.get("source")) if splits else None) or "none"] += 1
    total = sum(counts["stack"].values())
    print(f"{total} cases")
    for key, counter in counts.items():
        print(f"\n| {key} | cases |\n|---|---|")
        for value, n in counter.most_common():
            print(f"| {value} | {n} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
