"""The program's routine work: the lines a running job prints while nothing is wrong.

Three readings rest on it: how much routine work followed a message (a failure ends the
work, a message the job survived is followed by more of it), when the job last worked (a
hang stops the work long before the job ends), and whether a trial's error was caught and
the next trial ran. They must agree on what routine work is, so it is defined once here.
"""

from __future__ import annotations

import numpy as np

from ..mining import LEVEL_CODES, MinedJob
from ..records import NodeLog
from . import lexicon

INFO_LEVEL = LEVEL_CODES["INFO"]


def routine_templates(mined: MinedJob) -> frozenset[int]:
    """Templates of routine work: a line with text, no error words or fault mark, not a
    traceback frame, a wait, teardown or context (its raw line read too: a masked template
    can hide the words that make it context). Computed once per mined job."""
    cached = mined.derived.get("routine_templates")
    if isinstance(cached, frozenset):
        return cached
    routine: set[int] = set()
    seen: set[int] = set()
    for log in mined.nodes.values():
        for tid in np.unique(log.template).tolist():
            if tid in seen:
                continue
            seen.add(tid)
            text = mined.miner.template(tid)
            raw = (log.samples.get(tid) or [""])[0]
            if text.strip() and lexicon.role_of(text, raw) == "candidate" and lexicon.is_routine(text):
                routine.add(tid)
    found = frozenset(routine)
    mined.derived["routine_templates"] = found
    return found


def routine_mask(log: NodeLog, routine: frozenset[int], start: int = 0) -> np.ndarray:
    """Which of the log's lines from ``start`` on are routine work, logged at most at INFO."""
    return np.isin(log.template[start:], list(routine)) & (log.level[start:] <= INFO_LEVEL)
