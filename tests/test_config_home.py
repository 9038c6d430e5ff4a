"""The L4_HOME layout is named in one place, and `using_home` moves all of it."""

from pathlib import Path

import pytest

from agent.config import Home, home, l4_home, using_home


def test_every_state_path_is_under_the_home(tmp_path: Path) -> None:
    layout = Home(tmp_path)
    paths = [layout.config_file, layout.pools, layout.pool("s"), layout.pool_lock("s"), layout.library,
             layout.cache, layout.diagnoses, layout.knowledge_index("0123456789abcdef0123")]
    assert all(tmp_path in p.parents for p in paths)
    assert layout.knowledge_index("0123456789abcdef0123").name == "kb-0123456789abcdef"


def test_using_home_wins_over_the_environment_and_is_undone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("L4_HOME", str(tmp_path / "user"))
    with using_home(tmp_path / "demo") as inner:
        assert l4_home() == tmp_path / "demo" == inner.root
        assert home().pools == tmp_path / "demo" / "normal"
    assert l4_home() == tmp_path / "user"
