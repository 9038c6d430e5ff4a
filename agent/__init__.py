"""l4: why did this distributed training job fail?

Public API only: ``diagnose(job) -> Diagnosis`` and ``Diagnosis``; ``Diagnoser`` (the same
pipeline with its library, knowledge base, reasoner and cache injected), ``analyze`` and
``Analysis`` (the diagnosis with what it came from), ``DiagnosisCache``. They load lazily,
so ``import agent`` (and ``l4 --help``) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Analysis", "Diagnoser", "Diagnosis", "DiagnosisCache", "__version__", "analyze", "diagnose"]

if TYPE_CHECKING:
    from .cache import DiagnosisCache
    from .pipeline import Analysis, Diagnoser, analyze, diagnose
    from .schema import Diagnosis

_HOMES = {"diagnose": "pipeline", "analyze": "pipeline", "Analysis": "pipeline", "Diagnoser": "pipeline",
          "Diagnosis": "schema", "DiagnosisCache": "cache"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module 'agent' has no attribute {name!r}")
