"""l4: why did this distributed training job fail?

Public API only; nothing heavy is imported here so ``l4 --help`` stays fast.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
