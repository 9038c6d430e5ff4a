"""Dev numbers as if our knowledge had never read the case's own repository.

The knowledge docs were written while looking at dev failures, so the dev split flatters
them: a dev case often meets a doc written from its own thread. This script estimates the
number on logs nobody here read: for each source repository it hides every knowledge doc
that cites that repository, then diagnoses that repository's cases with the rest. Tune on
this, not on test.

Some docs written before the split existed cite repositories that are now on the test side
(about 95 cite NVIDIA/nccl, stas00/ml-engineering, NVIDIA/Megatron-LM and others), so the
plain test bench meets some docs drawn from its own repositories too; ``--split test`` reports
test with those hidden (once per change set, like the test bench).

    python benchmarks/knowledge_holdout.py benchmarks/real [--split dev|test] [--out holdout.json] [--advice]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs inside a copy of the package whose knowledge folder lacks the held-out docs.
_WORKER = r"""
import json, sys
from pathlib import Path
from agent.bench.cases import load_cases, select
from agent.bench.run import bench_case
from dataclasses import asdict
from agent.splits import source_repo
dataset, repo, split = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
cases = [c for c in select(dataset, load_cases(dataset), split) if source_repo(c.label.source) == repo]
rows = [asdict(bench_case(c, use_normal=False)) for c in cases]
if len(sys.argv) > 4:  # --advice: what a reader grades, beside the label's own fix
    from agent.pipeline import diagnose
    for row, c in zip(rows, cases):
        d = diagnose(c.job_dir, reasoner="offline", workers=1)
        row["advice"] = {"root_cause": d.root_cause, "remediation": d.remediation, "collect_next": d.collect_next,
                         "label_root_cause": c.label.root_cause, "label_fix": c.label.remediation}
print(json.dumps(rows))
"""


def _cites(doc_text: str, repo: str) -> bool:
    """Whether a doc's ``sources`` list names the repository (GitHub path or site)."""
    sources = doc_text.split("sources:", 1)[-1].split("\n---", 1)[0].lower()
    if "/" in repo:
        return f"github.com/{repo}/" in sources or f"github.com/{repo}\n" in sources
    return repo in sources


def _copy_without(repo: str, dest: Path) -> int:
    shutil.copytree(ROOT / "agent", dest / "agent", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "prompts", dest / "prompts")
    hidden = 0
    for doc in (ROOT / "knowledge").rglob("*"):
        if doc.is_dir():
            continue
        target = dest / "knowledge" / doc.relative_to(ROOT / "knowledge")
        target.parent.mkdir(parents=True, exist_ok=True)
        if doc.suffix == ".md" and doc.name != "README.md" and _cites(doc.read_text(encoding="utf-8"), repo):
            hidden += 1
            continue
        shutil.copy2(doc, target)
    return hidden


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--advice", action="store_true", help="also record each case's advice and the label's fix (for grading)")
    parser.add_argument("--split", choices=("dev", "test"), default="dev",
                        help="the split's cases (test: report once per change set, as the plain test bench)")
    args = parser.parse_args()
    dataset = args.dataset.resolve()
    repos = json.loads((dataset / "splits.json").read_text())[args.split]
    rows: list[dict] = []
    hidden_by_repo: dict[str, int] = {}
    for repo in repos:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / "tree"
            hidden_by_repo[repo] = _copy_without(repo.lower(), tree)
            env = {"PYTHONPATH": str(tree), "L4_HOME": str(Path(tmp) / "home"), "PATH": "/usr/bin:/bin"}
            done = subprocess.run([sys.executable, "-c", _WORKER, str(dataset), repo, args.split, *(["advice"] if args.advice else [])],
                                  cwd=tree, env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"{repo}: worker failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                continue
            rows.extend(json.loads(done.stdout))
    _summarise(rows, hidden_by_repo, args.split)
    if args.out:
        args.out.write_text(json.dumps({"hidden": hidden_by_repo, "cases": rows}, indent=1))
    return 0


def _summarise(rows: list[dict], hidden: dict[str, int], split: str = "dev") -> None:
    n = len(rows)
    tally: dict[str, float] = defaultdict(float)
    for r in rows:
        accept = set(r.get("accept") or [f"{r['category']}/{r['subcategory']}"])
        pred = f"{r.get('predicted_category')}/{r.get('predicted_subcategory')}"
        tally["category"] += any(a.split("/")[0] == r.get("predicted_category") for a in accept)
        tally["subcategory"] += pred in accept
        ev = (r.get("events") or {}).get("l4") or {}
        tally["precision"] += ev.get("precision", 0.0)  # means over cases, as l4 bench reports
        tally["recall"] += ev.get("recall", 0.0)
    print(f"{split} cases {n}, docs hidden per repository: {sum(hidden.values())} in all")
    if n:
        print(f"category {tally['category'] / n:.3f}  subcategory {tally['subcategory'] / n:.3f}  "
              f"event P {tally['precision'] / n:.3f}  R {tally['recall'] / n:.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
