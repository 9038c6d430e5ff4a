"""Baselines scored beside l4 on the same cases, from the very ``MinedJob`` l4 produced.

* nodes: **Error_time** (earliest first ERROR/CRITICAL line) and **Error_count** (most
  ERROR/CRITICAL lines), the two heuristics of the L4 paper's RQ5;
* events: an **error-level filter** and a **rare-event filter**, the two signals the paper
  shows fall short (§4.1, Fig. 4a/4b). Its RQ4 baselines (LogAnomaly, LogRobust,
  NeuralLog) are supervised models we do not reimplement;
* everything: **grep + signatures**, the naive tool an SRE could write in an afternoon:
  every line is matched against l4's own knowledge signatures and the most specific match
  decides. If l4 cannot beat it, extraction and reasoning add nothing over our docs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..ingest import read_lines
from ..library import FaultLibrary, Pattern
from ..mining import LEVEL_CODES, MinedJob
from .metrics import Occurrences, OutputEvent

ERROR_MIN = LEVEL_CODES["ERROR"]  # ERROR (4) and CRITICAL (5) count as error lines
GREP_MAX_EVENTS = 5  # as many events as l4 reports at most
GREP_PER_LINE_MAX = 200_000  # beyond this many lines, grep one sample per (node, template) to stay fast


def error_time_ranking(mined: MinedJob) -> list[str]:
    """Error_time: nodes by the timestamp of their first ERROR/CRITICAL line, earliest first.

    The first error line with a known timestamp is used. Nodes with error lines but no
    timestamp on any of them come next, then nodes without error lines; ties by name.
    """
    keys: list[tuple[int, float, str]] = []
    for name, log in mined.nodes.items():
        ts = log.ts[log.level >= ERROR_MIN]
        known = ts[~np.isnan(ts)]
        if len(known):
            keys.append((0, float(known[0]), name))
        else:
            keys.append((1 if len(ts) else 2, 0.0, name))
    return [name for *_, name in sorted(keys)]


def error_count_ranking(mined: MinedJob) -> list[str]:
    """Error_count: nodes by their number of ERROR/CRITICAL lines, most first; ties by name."""
    counts = {name: int(np.count_nonzero(log.level >= ERROR_MIN)) for name, log in mined.nodes.items()}
    return sorted(counts, key=lambda name: (-counts[name], name))


def _events_of_templates(mined: MinedJob, templates: np.ndarray) -> list[OutputEvent]:
    """Every occurrence of each given template, grouped per node, from the NodeLog arrays."""
    per_template: dict[int, Occurrences] = {int(t): {} for t in templates}
    for name, log in mined.nodes.items():
        selected = np.isin(log.template, templates)
        if not selected.any():
            continue
        tids, lines = log.template[selected], log.lineno[selected].astype(np.int64)
        order = np.argsort(tids, kind="stable")  # keeps line order inside each template
        tids, lines = tids[order], lines[order]
        starts = np.flatnonzero(np.r_[True, tids[1:] != tids[:-1]])
        for tid, chunk in zip(tids[starts].tolist(), np.split(lines, starts[1:]), strict=True):
            per_template[tid][name] = chunk
    return [OutputEvent(tid, occ) for tid, occ in per_template.items()]


def _template_counts(mined: MinedJob) -> tuple[np.ndarray, np.ndarray]:
    """(template ids, line counts in the whole job), ids ascending."""
    ids: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    for log in mined.nodes.values():
        i, c = np.unique(log.template, return_counts=True)
        ids.append(i)
        counts.append(c)
    if not ids:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    all_ids, inverse = np.unique(np.concatenate(ids), return_inverse=True)
    return all_ids, np.bincount(inverse, weights=np.concatenate(counts)).astype(np.int64)


def error_level_events(mined: MinedJob) -> list[OutputEvent]:
    """Error-level filter: every template with at least one ERROR/CRITICAL line, all its occurrences."""
    err = [np.unique(log.template[log.level >= ERROR_MIN]) for log in mined.nodes.values()]
    templates = np.unique(np.concatenate(err)) if err else np.empty(0, np.int64)
    return _events_of_templates(mined, templates)


def rare_event_events(mined: MinedJob) -> list[OutputEvent]:
    """Rare-event filter: the templates in the lowest quartile of template counts.

    Exact rule: count each template's lines over the whole job (all nodes); let q be the
    25th percentile of those per-template counts, taken as an observed count
    (``np.percentile(..., 25, method="lower")``); every template whose count is <= q is
    an output event, with all its occurrences. Ties at q are all kept, so the share can
    exceed a quarter (e.g. when many templates occur once).
    """
    ids, counts = _template_counts(mined)
    if not len(ids):
        return []
    q = np.percentile(counts, 25, method="lower")
    return _events_of_templates(mined, ids[counts <= q])


# ------------------------------------------------------------------ grep + signatures


@dataclass
class GrepVerdict:
    """What grep + signatures says about one job."""

    category: str = "unknown"
    subcategory: str = "unknown"
    events: list[OutputEvent] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _best(patterns: list[Pattern], text: str, cache: dict[str, Pattern | None]) -> Pattern | None:
    """The most specific doc signature that matches ``text`` (ties: the first doc loaded)."""
    if text in cache:
        return cache[text]
    lowered = text.lower()
    best: Pattern | None = None
    for p in patterns:
        if (best is None or p.specificity > best.specificity) and p.search(text, lowered):
            best = p
    cache[text] = best
    return best


def grep_signatures(mined: MinedJob, library: FaultLibrary) -> GrepVerdict:
    """Match every line against the doc signatures; the most specific match decides.

    Events are the matched lines grouped by doc, most specific doc first (ties: earliest
    line); the category is that of the first; nodes are ordered as their lines appear in
    the ranked groups. Jobs over ``GREP_PER_LINE_MAX`` lines are matched one raw sample per
    (node, template) instead of per line (the same message shape, the same answer).
    """
    t0 = time.perf_counter()
    patterns = [p for p in library.patterns if p.source == "doc"]
    cache: dict[str, Pattern | None] = {}
    hits: dict[str, dict[str, list[int]]] = {}  # doc id -> node -> lines
    rank_key: dict[str, tuple[int, int]] = {}  # doc id -> (-specificity, first position)
    docs: dict[str, Pattern] = {}
    position = 0

    def record(p: Pattern, node: str, lines: list[int]) -> None:
        hits.setdefault(p.id, {}).setdefault(node, []).extend(lines)
        key = (-p.specificity, position)
        if p.id not in rank_key or key < rank_key[p.id]:
            rank_key[p.id], docs[p.id] = key, p

    if mined.line_count() <= GREP_PER_LINE_MAX:
        for source in mined.job.sources:
            for line in read_lines(source, []):
                position += 1
                p = _best(patterns, line.text, cache)
                if p is not None:
                    record(p, line.node, [line.lineno])
    else:
        for name, log in mined.nodes.items():
            for tid in np.unique(log.template).tolist():
                position += 1
                p = _best(patterns, (log.samples.get(tid) or [""])[0], cache)
                if p is not None:
                    record(p, name, log.lineno[log.template == tid].tolist())
    ranked = sorted(hits, key=lambda doc: rank_key[doc])
    verdict = GrepVerdict()
    if ranked:
        verdict.category, verdict.subcategory = docs[ranked[0]].category, docs[ranked[0]].subcategory
    for doc in ranked[:GREP_MAX_EVENTS]:
        occ: Occurrences = {n: np.unique(np.asarray(v, dtype=np.int64)) for n, v in hits[doc].items()}
        verdict.events.append(OutputEvent(doc, occ))
        for node in sorted(occ, key=lambda n: int(occ[n][0])):
            if node not in verdict.nodes:
                verdict.nodes.append(node)
    verdict.seconds = time.perf_counter() - t0
    return verdict
