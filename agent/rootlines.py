"""The lines around the root event, read back from its file: what the log says beside it.

Two things sit next to a failure line and say more than the line itself: the fix CANN and
HCCL print right after an error code ("Solution: ..."), and the traceback printed right
before an exception message, whose innermost frames name the code that raised it. Both
are read from the file, after extraction, for the root's first occurrences only.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from .ingest import read_texts
from .mining import MinedJob
from .schema import Diagnosis

ADVICE_LINES_AFTER = 6  # CANN prints "Solution: ..." within a few lines of the code it explains
# A bare exception header ("DistributedOperationException:") or an Open MPI help block framed by
# dashes carries its message on the dozen lines below it.
MESSAGE_LINES_AFTER = 12
# A Python traceback of a deep stack (DeepSpeed engine, HF Trainer) runs 20-60 lines; the
# innermost frames, the ones that name the code to fix, are the last of them.
CONTEXT_LINES_BEFORE = 40
_SOLUTION = re.compile(r"^\s*(?:Solution|Possible Cause and Solution|Suggestion)\s*:\s*(?P<text>\S.{8,})", re.I)


@dataclass
class RootLines:
    advice: list[str] = field(default_factory=list)  # the log's own fix lines ("Solution: ...")
    before: list[str] = field(default_factory=list)  # the root's node's lines just above its first line
    after: list[str] = field(default_factory=list)  # the root's node's lines just below it (a message's wrapped rest)


def read_root_lines(mined: MinedJob, diagnosis: Diagnosis) -> RootLines:
    """The log's own advice after the first two events, and the root node's lines just
    before and after the root's first occurrence (one read of each file, up to the window)."""
    wanted: dict[str, set[int]] = {}
    for event in diagnosis.events[:2]:
        for occ in event.occurrences[:3]:
            wanted.setdefault(occ.node, set()).add(occ.line)
    root = diagnosis.events[0].occurrences[0] if diagnosis.events and diagnosis.events[0].occurrences else None
    found = RootLines()
    sources = {s.path: s for s in mined.job.sources}
    for node, lines in wanted.items():
        log = mined.nodes.get(node)
        source = sources.get(log.source) if log is not None else None
        if source is None:
            continue
        window = {n + k for n in lines for k in range(1, ADVICE_LINES_AFTER + 1)}
        is_root_file = root is not None and root.node == node
        last = max(window)
        if is_root_file and root is not None:
            last = max(last, root.line + MESSAGE_LINES_AFTER)
        before: deque[str] = deque(maxlen=CONTEXT_LINES_BEFORE)
        for line_node, lineno, text in read_texts(source, []):
            if lineno > last:
                break
            if is_root_file and root is not None and line_node == node:
                if lineno < root.line:
                    before.append(text)
                elif root.line < lineno <= root.line + MESSAGE_LINES_AFTER:
                    found.after.append(text)
            m = _SOLUTION.match(text) if lineno in window else None
            if m and m.group("text").strip() not in found.advice:
                found.advice.append(m.group("text").strip())
        if is_root_file:
            found.before = list(before)
    found.advice = found.advice[:2]
    return found
