"""l4: why did this distributed training job fail?

Public API only: ``diagnose(job) -> Diagnosis`` and ``Diagnosis``. They load lazily, so
``import agent`` (and ``l4 --help``) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Diagnosis", "__version__", "diagnose"]

if TYPE_CHECKING:
    from .pipeline import diagnose
    from .schema import Diagnosis


def __getattr__(name: str) -> Any:
    if name == "diagnose":
        from .pipeline import diagnose

        return diagnose
    if name == "Diagnosis":
        from .schema import Diagnosis

        return Diagnosis
    raise AttributeError(f"module 'agent' has no attribute {name!r}")
