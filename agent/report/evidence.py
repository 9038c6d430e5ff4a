"""The evidence section: each kept event's lines with ``node:line``, why it was chosen, and
a few lines around each, read back from the files (folded until asked for)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..schema import Diagnosis, EventOut, Occurrence
from .source import ReportSource

SHOWN_PER_EVENT = 5  # occurrences listed per event; the JSON output has them all
CONTEXT = 3  # lines either side


@dataclass
class ContextLine:
    line: int
    text: str
    target: bool


@dataclass
class Cited:
    node: str
    line: int
    text: str
    context: list[ContextLine] = field(default_factory=list)


@dataclass
class EvidenceItem:
    index: int
    role: str  # root | companion | event
    template: str
    score: float
    reasons: list[str]
    cited: list[Cited]
    more: int  # occurrences not listed
    nodes: int  # nodes that printed it


def build(d: Diagnosis, src: ReportSource | None) -> list[EvidenceItem]:
    """The events of the diagnosis, each with its first occurrences (one per node first)."""
    items = []
    for i, event in enumerate(d.events, 1):
        picked = _spread(event)
        items.append(EvidenceItem(
            index=i, role="root" if i == 1 else "companion" if _is_companion(src, event) else "event",
            template=event.template, score=event.score, reasons=list(event.reasons),
            cited=[Cited(o.node, o.line, o.text) for o in picked],
            more=len(event.occurrences) - len(picked) + (1 if event.occurrences_truncated else 0),
            nodes=len({o.node for o in event.occurrences}),
        ))
    return items


def _spread(event: EventOut) -> list[Occurrence]:
    """First occurrence on each node before a second one on any: the reader sees who printed it."""
    firsts: dict[str, Occurrence] = {}
    for o in event.occurrences:
        firsts.setdefault(o.node, o)
    picked = list(firsts.values())[:SHOWN_PER_EVENT]
    rest = [o for o in event.occurrences if o not in picked]
    return (picked + rest)[:SHOWN_PER_EVENT]


def _is_companion(src: ReportSource | None, event: EventOut) -> bool:
    if src is None:
        return False
    return any(e.role == "companion" and e.template == event.template for e in src.extraction.events)


def wanted(items: list[EvidenceItem], src: ReportSource) -> dict[str, set[int]]:
    """The lines the context blocks need, per node."""
    need: dict[str, set[int]] = {}
    for item in items:
        for c in item.cited:
            need.setdefault(c.node, set()).update(src.context(c.node, c.line, CONTEXT))
    return need


def attach_context(items: list[EvidenceItem], src: ReportSource, texts: dict[tuple[str, int], str]) -> None:
    """Fill each cited line's context from the texts read back."""
    for item in items:
        for c in item.cited:
            lines = sorted(src.context(c.node, c.line, CONTEXT))
            c.context = [ContextLine(n, texts.get((c.node, n), ""), n == c.line) for n in lines]
