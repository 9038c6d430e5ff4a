"""Is a job offered as normal really normal?

A failed job in a normal pool teaches the cross-job filter that its failure is routine, and
every later diagnosis of the same failure comes back ``unknown`` (probe S07). So before a
job joins a pool it is read once for the plain signs of a failure: a Python traceback, a
node whose log ends on error lines, or an end far earlier than the pool's other jobs. Any
of these refuses the job unless the user insists (``--force``).
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from statistics import median

from .extract.crossjob import JobCounts
from .ingest import open_job, read_lines

TAIL_LINES = 10  # a node whose last lines hold an error ended on it
EARLY_END_SHARE = 0.5  # fewer lines than this share of the pool's median: it stopped early
_ERROR_LEVELS = {"ERROR", "CRITICAL"}


def reasons_not_normal(job: Path, pool: list[JobCounts]) -> list[str]:
    """Why ``job`` looks failed (empty when it looks like a normal run)."""
    opened = open_job(job)
    tracebacks = 0
    first_traceback = ""
    ended_on_error: list[str] = []
    lines = 0
    for source in opened.sources:
        tails: dict[str, deque[tuple[int, str, str | None]]] = {}
        for line in read_lines(source, opened.warnings):
            lines += 1
            if "Traceback (most recent call last)" in line.text:
                tracebacks += 1
                first_traceback = first_traceback or f"{line.node}:{line.lineno}"
            tails.setdefault(line.node, deque(maxlen=TAIL_LINES)).append((line.lineno, line.text, line.level))
        for node, tail in tails.items():
            errors = [(n, text) for n, text, level in tail if level in _ERROR_LEVELS]
            if errors:
                n, text = errors[-1]
                ended_on_error.append(f"{node}:{n} {text[:100]}")
    reasons: list[str] = []
    if tracebacks:
        reasons.append(f"{tracebacks} Python traceback(s), the first at {first_traceback}")
    if ended_on_error:
        more = f" (and {len(ended_on_error) - 1} more node(s))" if len(ended_on_error) > 1 else ""
        reasons.append(f"a log ends on an error: {ended_on_error[0]}{more}")
    if pool:
        typical = median(j.lines for j in pool)
        if lines < EARLY_END_SHARE * typical:
            reasons.append(f"it ends early: {lines:,} lines against a median of {typical:,.0f} in the pool's other jobs")
    return reasons
