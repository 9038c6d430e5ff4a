"""Timestamps at the head of log lines, as POSIX seconds.

Real logs stamp lines in many ways (ISO and Python logging, CANN plog, syslog, dmesg -T,
glog, Hugging Face's month-first dates, mmengine's month/day); syslog, glog and mmengine omit
the year, so a clock borrows the last year it saw.
"""

from __future__ import annotations

import calendar
import re

_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
# ISO / python logging / CANN plog ("2024-05-12-10:45:12.123.456"): date, then time.
_TS_ISO = re.compile(
    r"(\d{4})[-/](\d{2})[-/](\d{2})[T \-_](\d{2}):(\d{2}):(\d{2})(?:[.,:](\d{1,6}))?(?:\.\d{3})?(Z|[+-]\d{2}:?\d{2})?"
)
# syslog "May 12 10:31:02" and dmesg -T "[Mon May 12 10:31:02 2024]".
_TS_SYSLOG = re.compile(
    r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?: (\d{4}))?"
)
# glog "I0512 10:31:02.123456": level letter, month, day. PyTorch's C++ log prefixes the rank and
# does not pad the month: "[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0]
# Watchdog caught collective operation timeout" (hiyouga/LlamaFactory#7396).
_TS_GLOG = re.compile(r"^(?:\[rank\d+\]:)?\[?([DIWEF])(\d{1,2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{1,6})")
# Month first, as Hugging Face example scripts configure logging (datefmt "%m/%d/%Y %H:%M:%S"):
#   "05/17/2024 01:30:26 - INFO - llmtuner.model.utils.checkpointing - ..." (hiyouga/LLaMA-Factory#3779)
_TS_US = re.compile(r"(?<![\d/])(\d{2})/(\d{2})/(\d{4})[ T](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?")
# mmengine (XTuner, MMDetection) stamps month/day without a year at the head of a line:
#   "01/29 21:35:34 - mmengine - INFO - Iter(train) [ 10/720]  lr: 9.0001e-05" (InternLM/xtuner docs)
_TS_MONTH_DAY = re.compile(r"^\[?(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?(?![\d/])")
_TS_SCAN_CHARS = 96  # timestamps sit at the head of a line; scanning further only finds false ones


class Clock:
    """Turns the timestamp at the head of a line into POSIX seconds, caching per day."""

    __slots__ = ("_days", "_seconds", "year")

    def __init__(self, year: int = 1970) -> None:
        self._days: dict[tuple[int, int, int], int] = {}
        self._seconds: dict[str, int] = {}
        self.year = year  # syslog and glog omit the year: borrow the last one seen

    def _day(self, y: int, mo: int, d: int) -> int:
        key = (y, mo, d)
        base = self._days.get(key)
        if base is None:
            base = calendar.timegm((y, mo, d, 0, 0, 0, 0, 0, 0))
            self._days[key] = base
        return base

    def parse(self, text: str) -> float | None:
        head = text[:_TS_SCAN_CHARS]
        try:
            m = _TS_ISO.search(head)
            if m:
                # Most lines of a second share its date-time prefix: convert it once.
                start = m.start()
                prefix = head[start : start + 19]
                secs = self._seconds.get(prefix)
                if secs is None:
                    y = int(m.group(1))
                    self.year = y
                    secs = self._day(y, int(m.group(2)), int(m.group(3)))
                    secs += int(m.group(4)) * 3600 + int(m.group(5)) * 60 + int(m.group(6))
                    if len(self._seconds) > 100_000:
                        self._seconds.clear()
                    self._seconds[prefix] = secs
                frac, tz = m.group(7, 8)
                if tz and tz != "Z":
                    sign = 1 if tz[0] == "+" else -1
                    digits = tz[1:].replace(":", "")
                    secs -= sign * (int(digits[:2]) * 3600 + int(digits[2:4]) * 60)
                return secs + (int(frac) / 10 ** len(frac) if frac else 0.0)
            m = _TS_US.search(head)
            if m:
                y = int(m.group(3))
                self.year = y
                secs = self._day(y, int(m.group(1)), int(m.group(2)))
                secs += int(m.group(4)) * 3600 + int(m.group(5)) * 60 + int(m.group(6))
                frac = m.group(7)
                return secs + (int(frac) / 10 ** len(frac) if frac else 0.0)
            m = _TS_GLOG.match(head)
            if m:
                secs = self._day(self.year, int(m.group(2)), int(m.group(3)))
                secs += int(m.group(4)) * 3600 + int(m.group(5)) * 60 + int(m.group(6))
                return secs + int(m.group(7)) / 10 ** len(m.group(7))
            m = _TS_MONTH_DAY.match(head)
            if m:
                secs = self._day(self.year, int(m.group(1)), int(m.group(2)))
                secs += int(m.group(3)) * 3600 + int(m.group(4)) * 60 + int(m.group(5))
                frac = m.group(6)
                return secs + (int(frac) / 10 ** len(frac) if frac else 0.0)
            m = _TS_SYSLOG.search(head)
            if m:
                year = int(m.group(7)) if m.group(7) else self.year
                secs = self._day(year, _MONTHS[m.group(1)], int(m.group(2)))
                secs += int(m.group(3)) * 3600 + int(m.group(4)) * 60 + int(m.group(5))
                frac = m.group(6)
                return secs + (int(frac) / 10 ** len(frac) if frac else 0.0)
        except (ValueError, OverflowError):  # e.g. month 13: not a timestamp after all
            return None
        return None


def parse_timestamp(text: str) -> float | None:
    """POSIX seconds of the timestamp at the head of a line (for callers outside a stream)."""
    return Clock().parse(text)
