"""The shipped prior of normal behaviour: message shapes that healthy public training runs print.

Why: the cross-job filter (``extract.crossjob``) compares a failed job with successful runs
of the same setting, and an SRE who pastes one console has none. Then every message is new
and l4 leans on levels and words alone. The prior is the templates that healthy runs of both
stacks print (MLPerf result logs, DeepSpeed and Megatron-style consoles, torch_npu and
MindSpore runs; the list is ``_prior/sources.json``), each with how many of those sources
print it. In cold start a failed job's message that enough healthy sources print is demoted
(``crossjob.judge``), unless the line reads as a fault by itself (``lexicon.is_fault_indicating``
or a knowledge signature): healthy runs print rare errors too.

Matching is not the job's own miner: host names, paths and numbers differ between clusters,
so a prior key is the masked line with every token that holds a mask or a digit made a
wildcard (``prior_key``). The prior was mined over such keys with the project's miner
(``benchmarks/build_normal_prior.py``); here its finished templates are learned into a
Drain of their own that never merges two of them (similarity 1.0) and is only matched
(Drain's match: the same number of tokens, every constant token equal). The prior vouches
only for the words healthy runs printed: a word of failure standing where they printed
varying words is not vouched for (healthy MLPerf runs end with "comm ... - Init COMPLETE"
and "- Abort COMPLETE", so the template reads "- <*> COMPLETE", and an aborted communicator
of a failed run must stay evidence). A job's event is known when every sample line of it
matches.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .extract.lexicon import ERROR_WORDS
from .mining import Masker, MinedJob, Miner

log = logging.getLogger(__name__)

PRIOR_DIR = Path(__file__).resolve().parent / "_prior"
TEMPLATES_FILE = "healthy_templates.jsonl"
SOURCES_FILE = "sources.json"
SCHEMA = "l4-normal-prior/1"
WILDCARD = "<*>"
SAMPLES_CHECKED = 9  # sample lines of an event checked against the prior (3 per node, 3 nodes)

_VALUE = re.compile(r"<[A-Z]+>|\d")  # a mask (<NUM>, <PATH>, <NODE> ...) or a digit: a value, not a word


def _headless(key: str) -> str:
    """A prior key without its leading value tokens: a log header (time, pid, rank, the glog
    ``file:line]`` tag) says nothing about the message, and loggers differ in how many they print.
    torch 2.4's torchrun logs "W0104 13:46:27.896000 80302 torch/distributed/run.py:792] Setting
    OMP_NUM_THREADS environment variable ..." (KellerJordan/modded-nanogpt#61), older ones the
    bare message (mlcommons/training_results_v1.1 logs)."""
    tokens = key.split()
    start = next((i for i, token in enumerate(tokens) if token != WILDCARD), len(tokens))
    return " ".join(tokens[start:]) or key


def prior_key(masked: str) -> str:
    """A masked line with every value-bearing token a wildcard. Azure's MLPerf v2.0 BERT log
    prints "ip-0A23040D:3917:3917 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v5
    symbol." (mlcommons/training_results_v2.0), masked ``ip<NUM>A23040D:<NUM>:<NUM> [<NUM>] ...
    ncclNetPlugin_v<NUM> symbol.``, keyed ``<*> <*> NCCL INFO NET/Plugin: Failed to find <*>
    symbol.``: the same key as any other cluster's host, process and plugin version."""
    return " ".join(WILDCARD if _VALUE.search(token) else token for token in masked.split())


class PriorMiner(Miner):
    """The project's miner over prior keys: how the prior is learned from healthy logs."""

    def classify(self, masked: str) -> int:
        return super().classify(prior_key(masked))


@dataclass(frozen=True)
class PriorTemplate:
    text: str
    sources: int  # healthy sources that print it
    stacks: tuple[str, ...]


@dataclass
class HealthyPrior:
    """The prior's templates and where they came from; ``sources_of`` matches a masked line."""

    templates: list[PriorTemplate]
    sources: list[dict[str, object]] = field(default_factory=list)
    _matcher: Miner | None = field(default=None, repr=False)
    _by_cluster: dict[int, PriorTemplate] = field(default_factory=dict, repr=False)

    def _match(self) -> Miner:
        if self._matcher is None:
            matcher = Miner(similarity=1.0)
            for template in self.templates:
                self._by_cluster[matcher.learn(_headless(template.text))] = template
            self._matcher = matcher
        return self._matcher

    def sources_of(self, masked: str) -> int:
        """How many healthy sources print this masked line's shape (0: unknown to the prior)."""
        key = _headless(prior_key(masked))
        cluster = self._match().match(key)
        template = self._by_cluster.get(cluster) if cluster is not None else None
        if template is None:
            return 0
        slots = zip(_headless(template.text).split(), key.split(), strict=False)
        if any(known == WILDCARD and ERROR_WORDS.search(word) for known, word in slots):
            return 0  # a word of failure where healthy runs printed varying words
        return template.sources

    def stacks(self) -> dict[str, int]:
        """Sources per stack, for ``l4 doctor``."""
        counts: dict[str, int] = {}
        for source in self.sources:
            stack = str(source.get("stack", "unknown"))
            counts[stack] = counts.get(stack, 0) + 1
        return counts


def read_prior(folder: Path = PRIOR_DIR) -> HealthyPrior:
    """The prior in ``folder``; raises ``ValueError`` (or ``OSError``) saying what is wrong."""
    templates: list[PriorTemplate] = []
    lines = (folder / TEMPLATES_FILE).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            templates.append(PriorTemplate(str(row["template"]), int(row["sources"]), tuple(row.get("stacks", ()))))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{folder / TEMPLATES_FILE}:{number}: not a prior template ({exc})") from None
    manifest = json.loads((folder / SOURCES_FILE).read_text(encoding="utf-8"))
    if not isinstance(manifest, dict) or manifest.get("schema") != SCHEMA or not isinstance(manifest.get("sources"), list):
        raise ValueError(f"{folder / SOURCES_FILE}: not an {SCHEMA} manifest")
    return HealthyPrior(templates=templates, sources=manifest["sources"])


_LOADED: list[HealthyPrior | None] = []  # loaded once per process


def load_prior() -> HealthyPrior | None:
    """The prior shipped with l4, or None (with a logged warning) when it cannot be read."""
    if not _LOADED:
        try:
            _LOADED.append(read_prior())
        except (OSError, ValueError) as exc:
            log.warning("shipped prior of healthy runs not used: %s (reinstall l4-agent)", exc)
            _LOADED.append(None)
    return _LOADED[0]


def _samples(mined: MinedJob, tid: int) -> Iterable[str]:
    taken = 0
    for log_ in mined.nodes.values():
        for text in log_.samples.get(tid, ()):
            yield text
            taken += 1
            if taken >= SAMPLES_CHECKED:
                return


def known_events(prior: HealthyPrior, mined: MinedJob, tids: Iterable[int] | None = None) -> dict[int, int]:
    """Each of the job's templates whose every sample line the prior knows, with the fewest
    healthy sources among its lines (an event mixing a known and an unknown shape is unknown)."""
    masker = Masker()
    wanted = set(tids) if tids is not None else {t for log_ in mined.nodes.values() for t in log_.samples}
    known: dict[int, int] = {}
    for tid in wanted:
        counts = [prior.sources_of(masker.mask(text)) for text in _samples(mined, tid)]
        if counts and min(counts) > 0:
            known[tid] = min(counts)
    return known
