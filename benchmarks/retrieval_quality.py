"""Retrieval quality of the knowledge base: BM25 alone, dense alone, RRF, and the hybrid.

Two hand-written query sets live beside this script (``queries/*.jsonl``, one
``{"query": ..., "expected": [doc ids]}`` a line):

- ``raw_lines.jsonl``: failure-indicating log lines in the formats of real CUDA/NCCL/
  PyTorch/Ascend/HCCL/kernel/scheduler logs, with hosts, numbers and wording varied (not
  the docs' own ``example`` lines);
- ``paraphrases.jsonl``: questions an SRE would type, with little word overlap.

A query counts as a hit at k when any expected doc is in the top k (several docs can be
right, e.g. an Xid doc and the CUDA error it causes). The store is built from scratch in
a temporary L4_HOME (so the build time is the cold one), then every query is timed warm.

Usage: python benchmarks/retrieval_quality.py [--embedder onnx|hash] [--k 3] [--misses] [--json]
Targets: raw lines recall@3 >= 0.95, paraphrases >= 0.80, warm hybrid query < 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.knowledge import SearchMode

HERE = Path(__file__).resolve().parent
SETS = {"raw_lines": HERE / "queries" / "raw_lines.jsonl", "paraphrases": HERE / "queries" / "paraphrases.jsonl"}
MODES: tuple[SearchMode, ...] = ("bm25", "dense", "rrf", "hybrid")


def load_set(path: Path) -> list[tuple[str, list[str]]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(str(r["query"]), [str(e) for e in r["expected"]]) for r in rows]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def cold_cli_seconds(home: str, embedder: str) -> float:
    """Wall time of a fresh process that opens the (already built) store and searches once."""
    code = (
        "from agent.knowledge import KnowledgeBase;"
        f"KnowledgeBase.open(embedder={embedder!r}).search('NCCL WARN NET/IB : Got completion from peer 10.0.0.2<3> with error 12')"
    )
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "L4_HOME": home})
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", default="onnx", choices=("onnx", "hash"))
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--misses", action="store_true", help="print the queries the hybrid misses")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--home", help="reuse this L4_HOME (and its store, if up to date) instead of a fresh one")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="l4-bench-") as tmp:
        home = args.home or tmp
        os.environ["L4_HOME"] = home
        from agent.knowledge import KnowledgeBase

        kb = KnowledgeBase.open(embedder=args.embedder)
        info = kb.build(force=not args.home)
        known = {d.id for d in kb.docs}
        results: dict[str, Any] = {
            "embedder": args.embedder,
            "docs": info.docs,
            "chunks": info.chunks,
            "build_seconds": round(info.seconds, 2),
        }
        kb.search("warm up the embedder and the collection")
        for name, path in SETS.items():
            queries = load_set(path)
            unknown = sorted({e for _, expected in queries for e in expected if e not in known})
            if unknown:
                print(f"{path.name}: expected ids not in the knowledge base: {unknown}", file=sys.stderr)
                return 2
            row: dict[str, Any] = {"queries": len(queries)}
            for mode in MODES:
                hits = 0
                latencies: list[float] = []
                for query, expected in queries:
                    t0 = time.perf_counter()
                    found = kb.search(query, top=args.k, mode=mode)
                    latencies.append((time.perf_counter() - t0) * 1000)
                    ok = any(h.id in expected for h in found)
                    hits += ok
                    if args.misses and mode == "hybrid" and not ok:
                        print(f"MISS [{name}] {query[:110]!r}\n   expected {expected} got {[h.id for h in found]}")
                row[f"recall@{args.k}_{mode}"] = round(hits / len(queries), 3)
                if mode == "hybrid":
                    row["hybrid_ms_median"] = round(statistics.median(latencies), 1)
                    row["hybrid_ms_p95"] = round(percentile(latencies, 0.95), 1)
            results[name] = row
        results["cold_process_search_seconds"] = round(cold_cli_seconds(home, args.embedder), 2)

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"embedder={results['embedder']} docs={results['docs']} chunks={results['chunks']} build={results['build_seconds']} s "
        f"fresh-process open+search={results['cold_process_search_seconds']} s"
    )
    print(f"{'set':<12} {'n':>4} " + " ".join(f"{m:>7}" for m in MODES) + "   hybrid ms (median / p95)")
    for name in SETS:
        row = results[name]
        cells = " ".join(f"{row[f'recall@{args.k}_{m}']:>7.3f}" for m in MODES)
        print(f"{name:<12} {row['queries']:>4} {cells}   {row['hybrid_ms_median']} / {row['hybrid_ms_p95']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
