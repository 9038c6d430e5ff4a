"""A pasted excerpt: the lines around the error that a person copies into an issue.

Most real failure reports are not a job's files but a paste (benchmarks/real: 142 of 181
cases are under 200 lines): the last few dozen lines of one node's output around the
traceback, one ``console.log``, often from a run whose loggers print no timestamps (the
setting's ``stamps``), and sometimes hard-wrapped at a terminal's width. The label counts
only what was pasted: events outside the window are not in the file, and an event line that
wraps is labeled at its first physical line.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from l4synth.streams import Result

WRAP_WIDTHS = (80, 100, 120)


@dataclass
class Excerpt:
    lines: list[str]  # the physical lines written
    line_of: dict[int, int]  # index in the source stream -> 1-based physical line of its first part
    logical: dict[int, str]  # index in the source stream -> the line before wrapping
    source: int  # the stream cut from


def source_stream(result: Result, rng: random.Random) -> int:
    """The stream a person would paste from: a struck node's, else one whose lines name the fault."""
    with_events = [i for i, st in enumerate(result.streams) if st.events]
    hit = [i for i in result.hit if i in with_events]
    return rng.choice(hit or with_events)


def cut(result: Result, rng: random.Random) -> Excerpt:
    """The window of one stream from a little before its last fault line to a little after.

    A successful job of the setting (no fault lines) is the whole console of its first node:
    the earlier run a person keeps to compare with.
    """
    if not any(st.events for st in result.streams):
        st = result.streams[0]
        return Excerpt(list(st.lines), {i: i + 1 for i in range(len(st.lines))}, {}, 0)
    si = source_stream(result, rng)
    st = result.streams[si]
    last = max(i for idxs in st.events.values() for i in idxs)
    end = min(len(st.lines), last + 1 + rng.choice((0, 0, 2, 5, 10, 20, 35)))
    start = min(max(0, end - rng.randint(20, 60)), max(0, last - rng.randint(0, 10)))
    window = list(range(start, end))
    width = _wrap_width([st.lines[i] for i in window], rng) if rng.random() < 0.3 else None
    lines: list[str] = []
    line_of: dict[int, int] = {}
    for i in window:
        line_of[i] = len(lines) + 1
        text = st.lines[i]
        lines += [text[k:k + width] for k in range(0, len(text), width)] if width and text else [text]
    return Excerpt(lines, line_of, {i: st.lines[i] for i in window}, si)


def _wrap_width(lines: list[str], rng: random.Random) -> int | None:
    """A terminal width that wraps some line and leaves no line an exact multiple of it.

    A line of exactly N widths would read as wrapped into the next line, so such widths are
    skipped (a reader joins physical lines of full width with the line after them).
    """
    widths = list(WRAP_WIDTHS)
    rng.shuffle(widths)
    for width in widths:
        if any(len(t) > width for t in lines) and not any(t and len(t) % width == 0 for t in lines):
            return width
    return None
