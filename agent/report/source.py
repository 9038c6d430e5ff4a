"""What the page reads from an analysed job: corrected times, first sightings, raw lines.

The report never re-mines or re-extracts: it reads the ``Analysis`` the diagnosis came
from (times already imputed, skew already estimated). Raw text is read back from the
files once, for every line the page cites, through the pipeline's own reader.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..extract import Extraction
    from ..mining import MinedJob
    from ..pipeline import Analysis


@dataclass
class ReportSource:
    mined: MinedJob
    extraction: Extraction
    _corrected: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def of(cls, analysis: Analysis) -> ReportSource:
        return cls(mined=analysis.mined, extraction=analysis.extraction)

    def corrected(self, node: str) -> np.ndarray:
        """The node's line times on the job's clock (its skew removed); NaN where unknown."""
        times = self._corrected.get(node)
        if times is None:
            times = self.mined.nodes[node].ts - self.extraction.table.skew.get(node, 0.0)
            self._corrected[node] = times
        return times

    def first_times(self, tid: int) -> dict[str, float]:
        """Node -> corrected time it first printed event ``tid`` (known times only)."""
        stats = self.extraction.table.events.get(tid)
        if stats is None:
            return {}
        return {n: s.first_ts for n, s in stats.per_node.items() if math.isfinite(s.first_ts)}

    def line_time(self, node: str, line: int) -> float:
        """The raw (uncorrected) time of ``node:line`` as its log stated or implied it; NaN if unknown."""
        log = self.mined.nodes.get(node)
        if log is None:
            return math.nan
        pos = np.flatnonzero(log.lineno == line)
        return float(log.ts[pos[0]]) if len(pos) else math.nan

    def texts(self, wanted: dict[str, set[int]]) -> dict[tuple[str, int], str]:
        """Raw text of the wanted lines (node -> line numbers), each file read once."""
        known = {n: lines for n, lines in wanted.items() if n in self.mined.nodes and lines}
        return self.mined.line_texts(known) if known else {}

    def context(self, node: str, line: int, around: int) -> set[int]:
        """Line numbers of the node's own lines around ``line`` (``around`` either side)."""
        log = self.mined.nodes.get(node)
        if log is None:
            return set()
        at = int(np.searchsorted(log.lineno, line))
        lo, hi = max(at - around, 0), min(at + around + 1, len(log.lineno))
        return {int(n) for n in log.lineno[lo:hi].tolist()}
