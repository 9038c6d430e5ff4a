"""The labeled failure-corpus generator (``l4 synth``): realistic multi-node training logs.

It writes the dataset layout of CONTRACTS.md: failed jobs with ``label.json`` ground truth
under ``cases/`` and successful jobs of the same settings under ``normal/``. Modules:
``style`` (how a line looks), ``stacks`` (what healthy jobs print), ``catalogue`` (the
fault types, each line quoting a real public one), ``job`` (timeline, faults and
cascades), ``restarts`` (several attempts in one log), ``layout`` (files and labels),
``excerpt`` (what a person pastes), ``corpus`` (planning and parallel generation),
``verify`` (re-reading and checking).
"""

from __future__ import annotations

import filecmp
import tempfile
from collections.abc import Callable
from pathlib import Path

from l4synth import corpus, verify
from l4synth.catalogue import FAULTS, FaultType

__all__ = ["FAULTS", "FaultType", "check_corpus", "corpus_summary", "generate_corpus", "generate_demo", "generate_job"]


def generate_corpus(out_dir: Path, cases: int = 100, seed: int = 0, preset: str = "default",
                    workers: int | None = None, progress: Callable[[int, int], None] | None = None) -> dict:
    """Write a labeled corpus to ``out_dir`` (which must be new or empty) and return its summary."""
    corpus.generate(Path(out_dir), cases, seed, preset, workers, progress)
    return corpus_summary(Path(out_dir))


def check_corpus(dataset: Path) -> list[str]:
    """Re-verify every label against the files; returns the problems found (empty means OK)."""
    dataset = Path(dataset)
    cases_dir = dataset / "cases"
    if not cases_dir.is_dir():
        return [f"{dataset}: no cases/ directory"]
    problems: list[str] = []
    cases = sorted(p for p in cases_dir.iterdir() if p.is_dir())
    for case in cases:
        problems += verify.check_case(case)
    if cases:
        problems += _check_determinism(dataset, min(cases, key=_size))
    return problems


def _size(case: Path) -> int:
    return sum(p.stat().st_size for p in (case / "logs").rglob("*") if p.is_file())


def _check_determinism(dataset: Path, case: Path) -> list[str]:
    """Regenerate the smallest case from the corpus manifest and compare bytes."""
    rel = f"cases/{case.name}"
    with tempfile.TemporaryDirectory(prefix="l4-synth-check-") as tmp:
        if not corpus.regenerate_into(dataset, rel, Path(tmp)):
            return []
        fresh = Path(tmp) / rel
        a = sorted(p.relative_to(case) for p in case.rglob("*") if p.is_file())
        b = sorted(p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file())
        if a != b:
            return [f"{case.name}: regenerating from {corpus.MANIFEST} gives different files"]
        diff = [str(p) for p in a if not filecmp.cmp(case / p, fresh / p, shallow=False)]
        return [f"{case.name}: regenerating from {corpus.MANIFEST} changes {', '.join(diff)}"] if diff else []


def corpus_summary(dataset: Path) -> dict:
    """Counts per category/subcategory/symptom/stack/fault type/stage, and corpus size."""
    return verify.summary(Path(dataset))


def generate_demo(dest: Path, seed: int = 7) -> tuple[Path, list[Path], str]:
    """One failed job (a node-local hardware fault with peer cascades) and two normal jobs of its setting."""
    return corpus.demo(Path(dest), seed)


def generate_job(dest: Path, hosts: int, lines: int = 3000, fault: str = "nccl-ib-completion-error", seed: int = 0) -> Path:
    """One labeled failed job with ``hosts`` nodes (64, 1,000...) of about ``lines`` lines each; returns its logs folder."""
    return corpus.sized(Path(dest), hosts, lines, fault, seed)
