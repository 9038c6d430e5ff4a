"""How a labeled corpus is divided into a part to tune on and a part to report.

Why: a number measured on cases that shaped the method says nothing about the next log.
Three divisions, each stating what it holds out:

* generated corpora (``l4 synth``): ``train``/``test`` by a hash of the case id. Every fault
  type occurs on both sides, so ``test`` measures accuracy *within the catalogue*;
* ``leave-out`` on generated corpora: whole fault types (catalogue entries) are held out,
  so the held-out cases carry phrasings and causes no tuning case carried;
* real corpora (``benchmarks/real``): ``dev``/``test`` by *source repository*, fixed once in
  ``splits.json``, so two threads of one project never sit on both sides.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

SYNTH_SPLITS = ("train", "test")
REAL_SPLITS = ("dev", "test")
HELD_OUT, IN_CATALOGUE = "held-out", "in-catalogue"
SPLITS_FILE = "splits.json"
REAL_SALT = "l4-real-split-v3"  # chosen once, for balanced stacks on both sides; never changed after

_GITHUB_URL = re.compile(r"https?://(?:www\.)?github\.com/([\w.-]+/[\w.-]+)", re.I)
_REPO_REF = re.compile(r"^([\w.-]+/[\w.-]+?)(?:[#:@]|$)")
_URL_HOST = re.compile(r"https?://([^/\s]+)", re.I)


def _bit(text: str) -> int:
    return hashlib.sha256(text.encode("utf-8")).digest()[0] & 1


def synth_split_of(case_id: str) -> str:
    """``train`` or ``test``, ~50/50, from the case id alone (stable across runs and content)."""
    return SYNTH_SPLITS[_bit(case_id)]


def leave_out_split_of(fault_type: str | None) -> str:
    """``held-out`` for about half the fault types, by a hash of the type's name, never of the case."""
    if not fault_type:
        return IN_CATALOGUE
    return (IN_CATALOGUE, HELD_OUT)[_bit("leave-out:" + fault_type)]


def source_repo(source: str | None) -> str:
    """The repository (or web host) a ``source`` field points into, lower-cased.

    ``Ascend/pytorch#123``, ``owner/repo:path@sha`` and ``https://github.com/owner/repo/issues/1``
    all give ``owner/repo``; another URL gives its host.
    """
    text = (source or "").strip()
    m = _GITHUB_URL.match(text) or _REPO_REF.match(text)
    if m:
        return m.group(1).removesuffix(".git").lower()
    m = _URL_HOST.match(text)
    return m.group(1).lower() if m else text.lower()


def rule_split(repo: str) -> str:
    """Where a source repository not yet in ``splits.json`` goes: a fixed hash, never a choice."""
    return REAL_SPLITS[_bit(REAL_SALT + repo.lower())]


@dataclass(frozen=True)
class RealSplits:
    """``splits.json`` of a real corpus: which source repositories are dev and which test."""

    dev: frozenset[str]
    test: frozenset[str]

    @classmethod
    def load(cls, dataset: Path) -> RealSplits | None:
        path = Path(dataset) / SPLITS_FILE
        if not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(frozenset(r.lower() for r in data.get("dev", [])), frozenset(r.lower() for r in data.get("test", [])))

    def split_of_source(self, source: str | None) -> str | None:
        repo = source_repo(source)
        if repo in self.test:
            return "test"
        if repo in self.dev:
            return "dev"
        return None

    def with_new(self, repos: set[str]) -> RealSplits:
        """These splits plus any unlisted repository, placed by ``rule_split`` (listed ones never move)."""
        new = {r.lower() for r in repos} - self.dev - self.test
        return RealSplits(self.dev | {r for r in new if rule_split(r) == "dev"},
                          self.test | {r for r in new if rule_split(r) == "test"})

    def save(self, dataset: Path) -> None:
        payload = {"rule": f"a new repository goes to test when sha256('{REAL_SALT}' + repo)[0] is odd",
                   "dev": sorted(self.dev), "test": sorted(self.test)}
        (Path(dataset) / SPLITS_FILE).write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")

    def problems(self) -> list[str]:
        both = sorted(self.dev & self.test)
        return [f"repositories in both splits: {', '.join(both)}"] if both else []
