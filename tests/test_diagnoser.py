"""The Diagnoser takes its collaborators as arguments: a fake reasoner, a two-pattern
library and a cache folder given here are the ones used, and nothing global is."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import agent
from agent.cache import DiagnosisCache
from agent.library import FaultLibrary, Pattern
from agent.pipeline import Diagnoser
from agent.reasoners.fake import FakeReasoner

LINES = [
    "2024-05-12 10:00:00 INFO rank 0 start training",
    "2024-05-12 10:00:01 INFO iteration 1 loss 2.0",
    "2024-05-12 10:00:02 INFO iteration 2 loss 1.9",
    "2024-05-12 10:00:03 ERROR widget 3 exploded on device 5 during the all-reduce",
]


def _job(tmp_path: Path) -> Path:
    job = tmp_path / "job"
    job.mkdir()
    (job / "worker-0.log").write_text("\n".join(LINES) + "\n")
    return job


def _library(tmp_path: Path) -> FaultLibrary:
    patterns = [
        Pattern("widget-explosion", "doc", r"widget \d+ exploded on device", "hardware", "accelerator",
                "A widget exploded", ["replace the widget"], 0.9, 24),
        Pattern("never-fires", "doc", r"flux capacitor overheated", "hardware", "node", "Flux", ["cool it"], 0.9, 24),
    ]
    return FaultLibrary(patterns, tmp_path / "user-patterns", [], [])


def test_the_injected_reasoner_and_library_are_the_ones_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent import pipeline

    monkeypatch.setattr(pipeline, "fault_library", lambda: pytest.fail("the shared library was loaded"))
    fake = FakeReasoner({"category": "hardware", "subcategory": "accelerator", "root_cause": "a widget exploded"})
    diagnosis = Diagnoser(library=_library(tmp_path), kb=None, reasoner=fake).diagnose(_job(tmp_path))

    assert diagnosis.reasoner == "fake" and diagnosis.root_cause == "a widget exploded"
    (evidence,) = fake.history
    assert [m.id for m in evidence.library] == ["widget-explosion"]
    assert evidence.knowledge == [] and evidence.docs == {}  # no knowledge base given: none searched
    root = evidence.diagnosis.events[0]
    assert "exploded" in root.template and "matches known fault pattern widget-explosion" in root.reasons


def test_without_a_library_nothing_is_matched(tmp_path: Path) -> None:
    fake = FakeReasoner()
    Diagnoser(library=None, kb=None, reasoner=fake).diagnose(_job(tmp_path))
    assert fake.history[0].library == []
    assert not any("known fault pattern" in r for r in fake.history[0].diagnosis.events[0].reasons)


def test_the_cache_is_used_from_the_library_and_a_hit_skips_the_reasoner(tmp_path: Path) -> None:
    fake = FakeReasoner()
    diagnoser = Diagnoser(library=_library(tmp_path), kb=None, reasoner=fake, cache=DiagnosisCache(tmp_path / "c"))
    first = diagnoser.run(_job(tmp_path))
    again = diagnoser.run(tmp_path / "job")
    assert not first.cached and again.cached and again.diagnosis == first.diagnosis
    assert len(fake.history) == 1 and len(list((tmp_path / "c").glob("*.json"))) == 1
    assert not diagnoser.run(tmp_path / "job", reuse=False).cached and len(fake.history) == 2


def test_the_public_api_exports_the_diagnoser() -> None:
    assert agent.Diagnoser is Diagnoser and agent.DiagnosisCache is DiagnosisCache
    assert {"Diagnoser", "analyze", "Analysis"} <= set(agent.__all__)


def test_each_line_is_matched_against_the_library_once_per_diagnosis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    searched: Counter[tuple[str, str]] = Counter()
    search = Pattern.search

    def counting(self: Pattern, text: str, lowered: str) -> bool:
        searched[(self.id, text)] += 1
        return search(self, text, lowered)

    monkeypatch.setattr(Pattern, "search", counting)
    fake = FakeReasoner()
    Diagnoser(library=_library(tmp_path), kb=None, reasoner=fake).diagnose(_job(tmp_path))
    # The extractor's boost and the evidence both read the root line's match; it was searched once.
    assert "widget-explosion" in fake.history[0].diagnosis.events[0].reasons[-1]
    assert [m.id for m in fake.history[0].library] == ["widget-explosion"]
    assert searched[("widget-explosion", LINES[3])] == 1 and max(searched.values()) == 1


def test_the_extractor_imports_no_library_and_no_knowledge() -> None:
    from test_import_contract import import_graph

    for module, targets in import_graph().items():
        if module.startswith("agent.extract"):
            assert not {t for t in targets if t.startswith(("agent.library", "agent.knowledge"))}, module


def test_weights_given_to_the_diagnoser_reach_the_extractor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    import agent.extract as extract_module
    from agent.extract import Weights

    seen: list[Weights] = []
    real = extract_module.extract

    def spy(mined, profile, library, weights, healthy=None):  # type: ignore[no-untyped-def]
        seen.append(weights)
        return real(mined, profile, library, weights, healthy)

    monkeypatch.setattr(extract_module, "extract", spy)
    tuned = dataclasses.replace(Weights(), root_min_score=0.45)
    analysis = Diagnoser(library=None, kb=None, reasoner=None, weights=tuned).analyze(_job(tmp_path))
    assert seen == [tuned] and analysis.diagnosis.reasoner != "fake"
