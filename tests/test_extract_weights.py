"""The extractor's tuning (``agent.extract.weights``) and its shape: one frozen record of
numbers, small modules, an ``extract`` that only wires."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from agent.extract import Weights

EXTRACT = Path(__file__).resolve().parent.parent / "agent" / "extract"


def test_weights_are_frozen_and_replaced_one_field_at_a_time() -> None:
    w = Weights()
    with pytest.raises(dataclasses.FrozenInstanceError):
        w.root_min_score = 0.1  # type: ignore[misc]
    changed = dataclasses.replace(w, root_min_score=0.6)
    assert (changed.root_min_score, w.root_min_score) == (0.6, 0.7)
    assert changed.role_factor == w.role_factor


def test_every_weight_has_a_reason() -> None:
    lines = (EXTRACT / "weights.py").read_text(encoding="utf-8").splitlines()
    fields = {f.name for f in dataclasses.fields(Weights)}
    for name in fields:
        line = next(ln for ln in lines if ln.strip().startswith(f"{name}:"))
        assert "  # " in line, name


def test_modules_stay_small_and_extract_only_wires() -> None:
    for path in EXTRACT.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 500, path.name
    tree = ast.parse((EXTRACT / "__init__.py").read_text(encoding="utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "extract")
    assert fn.end_lineno is not None and fn.end_lineno - fn.lineno + 1 <= 80
