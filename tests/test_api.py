"""Library first: ``agent.diagnose`` has named parameters and the CLI's defaults."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import agent


def test_diagnose_has_a_readable_signature() -> None:
    params = inspect.signature(agent.diagnose).parameters
    assert list(params) == ["job_path", "normal_jobs", "setting", "top", "workers", "reasoner"]
    assert params["reasoner"].default == "auto"  # as the CLI: an endpoint when configured, else offline


def test_diagnose_without_an_endpoint_is_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("L4_BASE_URL", "OPENAI_BASE_URL", "L4_API_KEY", "OPENAI_API_KEY", "L4_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("L4_HOME", str(tmp_path / "home"))
    (tmp_path / "worker-0.log").write_text(
        "2024-05-12 10:00:00 INFO iteration 1 loss 2.0\n"
        "2024-05-12 10:00:05 ERROR RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    d = agent.diagnose(tmp_path / "worker-0.log")
    assert d.reasoner == "offline" and d.events
