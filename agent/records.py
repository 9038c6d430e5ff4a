"""The per-line records every stage passes down: a log line as read, a node's lines as arrays.

They sit at the bottom of the package (they import nothing of it), so ingest, mining,
extraction and the chat tools can share them without importing each other.
Plain dataclasses, not pydantic: millions are made.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(slots=True)
class LogLine:
    """One physical line of a node's log, as ingested."""

    node: str
    lineno: int  # 1-based physical line in the source file (after decompression)
    ts: float | None  # POSIX seconds; inherited from the previous line when absent
    level: str | None  # normalised: DEBUG, INFO, WARNING, ERROR, CRITICAL
    text: str  # the message, launcher rank prefix removed
    stamped: bool = True  # False when ts was inherited (the line carries no timestamp)


@dataclass
class NodeLog:
    """One node's lines as arrays, aligned by position (line order in its file)."""

    node: str
    source: Path
    template: np.ndarray  # int64 template id per line
    lineno: np.ndarray  # int32
    ts: np.ndarray  # float64, NaN unknown; estimated for unstamped lines (see extract.clock)
    stamped: np.ndarray  # bool: the line carried its own timestamp
    level: np.ndarray  # int8 LEVEL_CODES
    iteration: np.ndarray  # int32, -1 none
    samples: dict[int, list[str]]  # template id -> a few raw texts
    last_text: dict[int, str]  # template id -> last raw text
    stream: str = ""  # the node name ingest gives these lines in the file (``rank3``); ``node`` may qualify it

    def __len__(self) -> int:
        return len(self.lineno)
