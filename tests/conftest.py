"""Every test runs isolated: its own L4_HOME, no endpoint configured, no network."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("L4_HOME", str(tmp_path_factory.mktemp("l4home")))
    for name in ("L4_BASE_URL", "L4_API_KEY", "L4_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
