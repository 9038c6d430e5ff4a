"""How one case's output is scored against its label: events by line, nodes and hosts by rank.

An output event *matches* a labeled fault event when its occurrences include one of that
fault event's labeled ``(node, line)`` pairs. Real labels key a console's lines by the
console file (its lines may belong to many virtual ``rankN`` nodes), so every output
occurrence counts under its own node and under the node of the file it came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..aliases import same_name
from ..schema import Diagnosis, Label

ITERATION_CANDIDATES = 3  # a consumer reads the first three reported iterations

Occurrences = dict[str, np.ndarray]  # node -> sorted line numbers of one event


@dataclass
class OutputEvent:
    """An event as scored: a template (id for baselines, text for l4) and where it occurs."""

    template: int | str
    occurrences: Occurrences


@dataclass
class EventScore:
    precision: float
    recall: float
    f1: float
    output: int  # events output
    output_matched: int
    labeled: int  # labeled fault events
    labeled_matched: int


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def labeled_events(label: Label) -> list[Occurrences]:
    return [{node: np.unique(np.asarray(lines, dtype=np.int64)) for node, lines in fe.lines.items() if lines}
            for fe in label.fault_events]


def diagnosis_events(diagnosis: Diagnosis) -> list[OutputEvent]:
    events: list[OutputEvent] = []
    for ev in diagnosis.events:
        per_node: dict[str, list[int]] = {}
        for occ in ev.occurrences:
            per_node.setdefault(occ.node, []).append(occ.line)
        occurrences = {n: np.unique(np.asarray(v, dtype=np.int64)) for n, v in per_node.items()}
        events.append(OutputEvent(ev.template, occurrences))
    return events


def with_file_nodes(events: Sequence[OutputEvent], file_of: Mapping[str, str]) -> list[OutputEvent]:
    """The same events, each occurrence also counted under its file's node name."""
    if all(file_of.get(n, n) == n for n in file_of):
        return list(events)
    out: list[OutputEvent] = []
    for ev in events:
        occ: dict[str, list[np.ndarray]] = {}
        for node, lines in ev.occurrences.items():
            occ.setdefault(node, []).append(lines)
            file_node = file_of.get(node, node)
            if file_node != node:
                occ.setdefault(file_node, []).append(lines)
        out.append(OutputEvent(ev.template, {n: np.unique(np.concatenate(v)) for n, v in occ.items()}))
    return out


def score_events(output: Sequence[OutputEvent], labeled: Sequence[Occurrences]) -> EventScore | None:
    """Per-case P/R/F1; None when the label has no fault events.

    Precision = matched output events / output events (0 when nothing is output), recall =
    matched labeled events / labeled events.
    """
    if not labeled:
        return None
    # node -> (labeled lines, index of their fault event), so each output event costs one
    # np.isin per labeled node it touches, however many nodes it spans.
    index: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for node in {n for ev in labeled for n in ev}:
        lines = [ev[node] for ev in labeled if node in ev]
        owners = [np.full(len(ev[node]), j) for j, ev in enumerate(labeled) if node in ev]
        index[node] = (np.concatenate(lines), np.concatenate(owners))
    matched_labeled: set[int] = set()
    matched_out = 0
    for ev in output:
        hit: set[int] = set()
        for node in ev.occurrences.keys() & index.keys():
            node_lines, node_owners = index[node]
            hit.update(node_owners[np.isin(node_lines, ev.occurrences[node])].tolist())
        if hit:
            matched_out += 1
            matched_labeled |= hit
    precision = matched_out / len(output) if output else 0.0
    recall = len(matched_labeled) / len(labeled)
    return EventScore(precision, recall, f1(precision, recall), len(output), matched_out, len(labeled),
                      len(matched_labeled))


def first_rank(ranked: Sequence[str], faulty: Iterable[str]) -> int | None:
    """1-based rank of the best-placed labeled faulty node in ``ranked``; None when absent."""
    wanted = set(faulty)
    return next((i for i, node in enumerate(ranked, 1) if node in wanted), None)


def host_rank(ranked: Sequence[tuple[str, Sequence[str]]], label: Label) -> int | None:
    """1-based rank of the first output node whose name or an alias is one of the label's
    ``hosts`` (the names the log text gives the faulty node); None when absent.

    Only ``hosts`` count here, never a file's own name: a console named ``console`` is not
    a machine anyone can drain. Names compare without case and spaces (``Rank 12`` = ``rank12``).
    """
    for i, (node, aliases) in enumerate(ranked, 1):
        if any(same_name(name, host) for name in (node, *aliases) for host in label.hosts):
            return i
    return None


def iteration_hit(predicted: Sequence[int], labeled: Sequence[int]) -> bool | None:
    """One of the first three predicted within max(2, 1% of labeled[0]); None when unlabeled."""
    if not labeled:
        return None
    target = labeled[0]
    tolerance = max(2.0, 0.01 * abs(target))
    return any(abs(it - target) <= tolerance for it in predicted[:ITERATION_CANDIDATES])
