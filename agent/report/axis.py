"""Shared geometry of the report's charts: a linear scale, readable tick steps, times.

Every chart is drawn in a fixed SVG viewBox that CSS scales to the page's width, so the
numbers here are viewBox units, not pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone

WIDTH = 1000.0  # viewBox width of every chart
LABEL_W = 170.0  # left column for lane and axis labels
RIGHT_PAD = 12.0

_TIME_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)


@dataclass(frozen=True)
class Scale:
    """Maps a value range onto a pixel range (``lo``..``hi`` onto ``start``..``end``)."""

    lo: float
    hi: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        span = self.hi - self.lo
        if span <= 0 or not math.isfinite(value):
            return self.start
        ratio = min(max((value - self.lo) / span, 0.0), 1.0)
        return round(self.start + ratio * (self.end - self.start), 1)


def nice_step(span: float, target: int = 7) -> float:
    """A 1-2-5 step that cuts ``span`` into about ``target`` intervals."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / target
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return float(factor * power)
    return float(10 * power)


def time_step(seconds: float, target: int = 7) -> int:
    """A clock-friendly tick step (seconds, minutes, hours) for a window of ``seconds``."""
    for step in _TIME_STEPS:
        if seconds / step <= target:
            return step
    return _TIME_STEPS[-1] * max(1, math.ceil(seconds / _TIME_STEPS[-1] / target))


def ticks(lo: float, hi: float, step: float) -> list[float]:
    """Multiples of ``step`` inside [lo, hi]."""
    if step <= 0 or hi < lo:
        return []
    first = math.ceil(lo / step) * step
    count = int((hi - first) // step) + 1
    return [first + i * step for i in range(max(count, 0))]


def clock(ts: float, with_date: bool = False) -> str:
    """A POSIX time as the logs' UTC wall clock."""
    moment = datetime.fromtimestamp(ts, tz=timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S")


def duration(seconds: float) -> str:
    """Seconds as a short human duration: 45 s, 12 min, 3.5 h, 2.1 d."""
    if not math.isfinite(seconds):
        return "unknown"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"
