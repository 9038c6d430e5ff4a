"""Rebuild the shipped prior of normal behaviour (``agent/_prior``) from healthy public logs.

The manifest ``agent/_prior/sources.json`` names every source: a file in a public Git
repository (``repo``, ``path``, ``commit``, optional ``lines`` [first, last]) or a log block
quoted on a public page (``url`` and ``where``: which block). The raw logs are not committed;
get them first, then build:

    # Git sources: from local clones (a folder holding owner+name/repo, owner/name or owner+name)
    python benchmarks/build_normal_prior.py collect --git-root /work/.mirror --logs /tmp/prior-logs
    # Page sources: copy the named block by hand into /tmp/prior-logs/<id>.log (collect lists them)
    python benchmarks/build_normal_prior.py build --logs /tmp/prior-logs

``build`` mines each source as one job with the project's miner over prior keys
(``agent.prior.PriorMiner``: the same masks, values made wildcards, one miner shared by all
sources so a message gets one template), counts in how many sources each template occurs,
and writes ``agent/_prior/healthy_templates.jsonl``: templates printed by at least
``--min-sources`` sources that say something (``lexicon.informative_words``) and do not read
as a fault (``lexicon.is_fault_indicating``; the extractor checks that again at run time).
``--exclude-repo`` leaves out a repository's sources (to measure without them).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.extract.lexicon import informative_words, is_fault_indicating  # noqa: E402
from agent.mining import mine_job  # noqa: E402
from agent.prior import PRIOR_DIR, SCHEMA, SOURCES_FILE, TEMPLATES_FILE, PriorMiner  # noqa: E402
from agent.splits import source_repo  # noqa: E402

MIN_SOURCES = 2  # a shape one healthy run prints is that run's, not normal behaviour
MIN_WORDS = 2  # "<*> <*> INFO <*>" says nothing: it would match any line of that length


MANIFEST = PRIOR_DIR / SOURCES_FILE


def _manifest(path: Path = MANIFEST) -> list[dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data.get("schema") == SCHEMA, f"{SOURCES_FILE}: expected schema {SCHEMA}"
    return data["sources"]


def _git_dir(root: Path, repo: str) -> Path | None:
    owner, name = repo.split("/", 1)
    for candidate in (root / f"{owner}+{name}" / "repo", root / owner / name / ".git", root / owner / name, root / f"{owner}+{name}"):
        if candidate.is_dir():
            return candidate
    return None


def collect(git_root: Path, logs: Path, manifest: Path = MANIFEST) -> int:
    """Write each Git source's lines to ``logs/<id>.log``; list the page sources to copy by hand."""
    logs.mkdir(parents=True, exist_ok=True)
    missing = 0
    sources = _manifest(manifest)
    for source in sources:
        target = logs / f"{source['id']}.log"
        if "repo" not in source:
            if not target.is_file():
                missing += 1
                print(f"copy by hand: {source['url']} ({source['where']}) -> {target}")
            continue
        git = _git_dir(git_root, source["repo"])
        if git is None:
            missing += 1
            print(f"no clone of {source['repo']} under {git_root}: git clone https://github.com/{source['repo']}")
            continue
        shown = subprocess.run(["git", "--git-dir", str(git), "show", f"{source['commit']}:{source['path']}"],
                               capture_output=True, check=False)
        if shown.returncode != 0:
            missing += 1
            print(f"{source['id']}: {shown.stderr.decode(errors='replace').strip()}")
            continue
        lines = shown.stdout.decode("utf-8", errors="replace").splitlines(keepends=True)
        first, last = source.get("lines") or (1, len(lines))
        target.write_text("".join(lines[first - 1 : last]), encoding="utf-8")
    print(f"{len(sources) - missing} sources in {logs}, {missing} missing")
    return 1 if missing else 0


def build(logs: Path, min_sources: int, exclude: set[str], out: Path, manifest: Path = MANIFEST) -> int:
    """Mine every collected source and write the templates enough of them print."""
    miner = PriorMiner()
    printed_by: dict[int, set[str]] = {}
    stack_of: dict[str, str] = {}
    sources = [s for s in _manifest(manifest) if source_repo(s.get("repo") or s["url"]) not in exclude]
    for source in sources:
        path = logs / f"{source['id']}.log"
        if not path.is_file():
            print(f"missing {path}: run `collect` first (or copy the page block)", file=sys.stderr)
            return 1
        with tempfile.TemporaryDirectory() as tmp:  # one source = one job; its own folder keeps its name
            job = Path(tmp) / source["id"]
            job.mkdir()
            (job / path.name).symlink_to(path.resolve())
            mined = mine_job(job, miner=miner, workers=1)
        stack_of[source["id"]] = source["stack"]
        for node in mined.nodes.values():
            for tid in set(node.template.tolist()):
                printed_by.setdefault(tid, set()).add(source["id"])
    rows = []
    for tid, ids in printed_by.items():
        text = miner.template(tid)
        if len(ids) < min_sources or informative_words(text) < MIN_WORDS or is_fault_indicating(text):
            continue
        stacks = sorted({stack_of[i] for i in ids})
        rows.append({"template": text, "sources": len(ids), "stacks": stacks})
    rows.sort(key=lambda r: (-r["sources"], r["template"]))
    out.mkdir(parents=True, exist_ok=True)
    with (out / TEMPLATES_FILE).open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    by_stack = Counter(s["stack"] for s in sources)
    size = (out / TEMPLATES_FILE).stat().st_size
    print(f"{len(sources)} sources ({', '.join(f'{k} {v}' for k, v in sorted(by_stack.items()))}); "
          f"{len(printed_by)} templates mined, {len(rows)} kept (>= {min_sources} sources); {size:,} bytes")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="extract the Git sources from local clones")
    c.add_argument("--git-root", type=Path, required=True)
    c.add_argument("--logs", type=Path, required=True)
    b = sub.add_parser("build", help="mine the collected sources into agent/_prior")
    b.add_argument("--logs", type=Path, required=True)
    b.add_argument("--min-sources", type=int, default=MIN_SOURCES)
    b.add_argument("--exclude-repo", action="append", default=[], help="leave out this repository's sources")
    b.add_argument("--out", type=Path, default=PRIOR_DIR, help="where to write the templates (default: agent/_prior)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help="the sources (default: agent/_prior/sources.json)")
    args = parser.parse_args()
    if args.command == "collect":
        return collect(args.git_root, args.logs, args.manifest)
    return build(args.logs, args.min_sources, {r.lower() for r in args.exclude_repo}, args.out, args.manifest)


if __name__ == "__main__":
    raise SystemExit(main())
