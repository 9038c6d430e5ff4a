"""A reasoner for tests: returns queued answers and records what it was asked.

Modelled on simonw/llm's ``MockModel``: tests of the pipeline, the CLI or the chat can
script a verdict without a network or a model, then assert on the evidence the reasoner
received (``history``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

from ..schema import Diagnosis
from . import Evidence


class FakeReasoner:
    """``enqueue`` answers (a Diagnosis, a dict of fields to set, or an exception to raise)."""

    name = "fake"

    def __init__(self, *answers: Diagnosis | Mapping[str, Any] | BaseException) -> None:
        self._queue: deque[Diagnosis | Mapping[str, Any] | BaseException] = deque(answers)
        self.history: list[Evidence] = []

    def enqueue(self, *answers: Diagnosis | Mapping[str, Any] | BaseException) -> None:
        """Queue answers, used in order; with none left, the evidence's diagnosis comes back as is."""
        self._queue.extend(answers)

    def reason(self, evidence: Evidence) -> Diagnosis:
        self.history.append(evidence)
        answer = self._queue.popleft() if self._queue else {}
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, Diagnosis):
            return answer.model_copy(deep=True)
        # A mapping updates a copy of the extractor's diagnosis, validated like any other.
        data = evidence.diagnosis.model_dump(by_alias=True)
        data["reasoner"] = self.name
        data.update(answer)
        return Diagnosis.model_validate(data)
