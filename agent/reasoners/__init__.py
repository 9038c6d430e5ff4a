"""Reasoners turn extracted evidence into a verdict: category, faulty node, remediation.

One protocol, several implementations chosen by configuration:

- ``offline`` (default without an endpoint): fault-library matches, then retrieved
  knowledge, then rules over the extractor's signals. Deterministic.
- ``llm``: any OpenAI-compatible endpoint; its answer is validated against the Diagnosis
  schema and falls back to the offline verdict on any failure.
- ``fake`` (tests): returns queued answers and records what it was asked.

A reasoner never changes the extractor's evidence (events, occurrences, node ranking as
computed); it fills in the fields the statistics cannot know and may re-rank the suspect
nodes only among nodes that exist in the job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..schema import Diagnosis, EventOut

if TYPE_CHECKING:
    from ..extract import Extraction
    from ..knowledge import Hit, KnowledgeDoc
    from ..library import LibraryMatch


@dataclass
class Evidence:
    """Everything a reasoner may use; ``diagnosis`` holds the extractor's findings so far."""

    diagnosis: Diagnosis  # events, faulty_nodes, stage, iterations, symptom filled in
    extraction: Extraction | None = None  # the raw signals (timeline, scope, cascades); None in tests
    library: list[LibraryMatch] = field(default_factory=list)  # library matches on the top events, best first
    knowledge: list[Hit] = field(default_factory=list)  # retrieved docs, best first
    docs: dict[str, KnowledgeDoc] = field(default_factory=dict)  # id -> doc, for the retrieved and matched ids
    nodes: list[str] = field(default_factory=list)  # every node of the job (a verdict may only name these)
    warnings: list[str] = field(default_factory=list)  # reasoners add what the user should know (fallbacks)
    stack: str = "unknown"  # the job's accelerator stack (agent.stackdetect): docs of the other one never advise
    log_advice: list[str] = field(default_factory=list)  # fixes the log itself prints beside the root (CANN "Solution:")
    root_before: list[str] = field(default_factory=list)  # the root node's lines just above the root (its traceback)
    root_after: list[str] = field(default_factory=list)  # the root node's lines just below the root (the message's rest)

    def wrapped_only(self, event: EventOut) -> bool:
        """Every library entry that matched the event is a wrapper doc (it says a call failed,
        not why), and at least one did."""
        texts = {o.text for o in event.occurrences[:20]} or {event.template}
        own = [m for m in self.library if any(s in texts for s in m.samples)]
        return bool(own) and all(getattr(self.docs.get(m.doc_id or ""), "wrapper", False) for m in own)


class Reasoner(Protocol):
    name: str

    def reason(self, evidence: Evidence) -> Diagnosis:
        """A complete Diagnosis (a copy of ``evidence.diagnosis`` with the verdict filled in)."""
        ...


def get_reasoner(name: str | None = None, **options: object) -> Reasoner:
    """``offline``, ``llm``, or ``auto`` (llm when an endpoint is configured, else offline)."""
    from ..config import load_settings
    from ..errors import ConfigError

    choice = (name or "auto").lower()
    if choice == "auto":
        choice = "llm" if load_settings().has_endpoint else "offline"
    if choice == "offline":
        from .offline import OfflineReasoner

        return OfflineReasoner()
    if choice == "llm":
        from .llm import LLMReasoner

        return LLMReasoner.from_settings(**options)
    raise ConfigError(f"unknown reasoner {name!r}", "use --reasoner offline, llm or auto")
