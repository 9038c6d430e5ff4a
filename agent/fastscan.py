"""The per-file scan without a Python step per line: the same ``NodeScan`` as ``scan_lines``.

Why it can be vectorised: every regex the per-line path runs (timestamps, levels, the
iteration, console prefixes) matches on digit *classes*, never on a particular digit. So two
lines that differ only in their digits (same "shape": ``bytes.translate`` zeroes them) match
at the same places; the mining cache already treats them as one message. Per shape we run
the regexes once, in Python, and record where the digits of its timestamp and iteration sit;
per line only numpy work remains (gather those digit bytes from the chunk, make numbers).

Per chunk of a file: zero the digits (C), split into shapes (C), look shapes up
(``map(dict.get)``, C), then numpy for timestamps, iterations, levels and samples.

Exactness is the contract: results equal ``scan_lines(read_lines(source))`` field by field
(``tests/test_fastscan.py`` compares them on every case we ship and on crafted edge cases).
Anything this path does not model exactly (console files, UTF-16, bytes that are not UTF-8,
NUL padding, clipped lines, non-ASCII digits, a damaged .gz, ...) raises ``Unsupported``
and the caller re-reads the file the per-line way, which also writes the usual warnings.
"""

from __future__ import annotations

import logging
import lzma
from array import array
from pathlib import Path

import numpy as np

from .ingest import (
    MAX_LINE_CHARS,
    SourceFile,
    _encoding,
    _open_binary,
    parse_level,
    read_lines,
    split_progress_bar,
)
from .scan import (
    _ZERO_DIGITS,
    LEVEL_CODES,
    MAX_ITERATION,
    SAMPLES_PER_KEY,
    Masker,
    NodeScan,
    iteration_match,
    scan_lines,
)
from .timestamps import _TS_GLOG, _TS_ISO, _TS_MONTH_DAY, _TS_SCAN_CHARS, _TS_SYSLOG, _TS_US

CHUNK_BYTES = 8 << 20  # per read: large enough that numpy's per-call overhead vanishes
MAX_LINE_BYTES = 4 * MAX_LINE_CHARS  # a longer line is surely clipped by ingest: not modelled here
_MONTH_NUM = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                          "Nov", "Dec"), 1)}
NO_TS, ISO, GLOG, SYSLOG = 0, 1, 2, 3
logger = logging.getLogger(__name__)
MASK_MEMO_SIZE = 100_000
_DEFAULT_MASKER = Masker()
_MASKED: dict[str, str] = {}  # line -> masked line, for _DEFAULT_MASKER


class Unsupported(Exception):
    """This file needs the per-line path (the reason is the message)."""


def eligible(source: SourceFile) -> bool:
    """Files of one node (plain or compressed); console files split nodes per line, so they stay per-line."""
    return source.console is None and source.path.is_file()


def _head_is_utf16(path: Path) -> bool:
    try:
        return _encoding(path) != "utf-8"
    except (OSError, EOFError, ValueError) as exc:
        raise Unsupported(f"read problem: {exc}") from exc


def _chunks(path: Path):
    """Byte chunks ending at a line break (the last one may not); read errors are Unsupported."""
    pending = b""
    try:
        with _open_binary(path) as fh:  # as ingest opens it: compression known by its magic bytes
            while True:
                block = fh.read(CHUNK_BYTES)
                if not block:
                    break
                data = pending + block
                cut = data.rfind(b"\n")
                if cut < 0:
                    if len(data) > MAX_LINE_BYTES:
                        raise Unsupported("over-long line")
                    pending = data
                    continue
                pending = data[cut + 1 :]
                if len(pending) > MAX_LINE_BYTES:
                    raise Unsupported("over-long line")
                yield data[: cut + 1]
    except (OSError, EOFError, ValueError, lzma.LZMAError) as exc:  # gzip/zlib errors included: ingest words the warning
        raise Unsupported(f"read problem: {exc}") from exc
    if pending:
        yield pending


def _byte_offset(text: str, pos: int) -> int:
    return len(text[:pos].encode())


class _Shapes:
    """What every distinct digit-zeroed line of one file means: key index, level, plans."""

    def __init__(self, scan: NodeScan, masker: Masker) -> None:
        self.scan = scan
        self.masker = masker
        self.of: dict[bytes, int] = {}  # raw zeroed line -> shape id
        self.ref_index: dict[bytes, int] = {}  # zeroed *text* -> key index (scan_lines' cache)
        self.masked_index: dict[str, int] = {}
        self.key: list[int] = []
        self.level: list[int] = []
        self.ts_plan: list[int] = []
        self.iter_plan: list[int] = []
        self.ts_plans: list[tuple[int, ...]] = [(NO_TS,)]
        self._ts_ids: dict[tuple[int, ...], int] = {(NO_TS,): 0}
        self.iter_plans: list[tuple[int, int]] = [(-1, 0)]  # (byte offset, digits); -1: no value
        self._iter_ids: dict[tuple[int, int], int] = {(-1, 0): 0}

    def add(self, zeroed: bytes, raw: bytes) -> int:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Unsupported("bytes that are not UTF-8") from exc
        text = text.rstrip("\r\n")
        if "\x00" in text or "\ufffd" in text or len(text) > MAX_LINE_CHARS:
            raise Unsupported("NUL padding, a replacement character or a clipped line")  # ingest warns of each
        if split_progress_bar(text) is not None:
            raise Unsupported("a message glued after a progress bar")  # ingest reads the message alone
        scan = self.scan
        ref = text.encode().translate(_ZERO_DIGITS)
        idx = self.ref_index.get(ref)
        if idx is None:
            masked = self.masked_text(text)
            idx = self.masked_index.get(masked)
            if idx is None:
                idx = self.masked_index[masked] = len(scan.keys)
                scan.keys.append(masked)
                scan.samples.append([])
                scan.last_sample.append(text)
            self.ref_index[ref] = idx
        sid = self.of[zeroed] = len(self.key)
        self.key.append(idx)
        self.level.append(LEVEL_CODES.get(parse_level(text), 0))
        self.ts_plan.append(self._intern_ts(_ts_plan(text)))
        self.iter_plan.append(self._intern_iter(_iter_plan(text) if "<ITER>" in scan.keys[idx] else (-1, 0)))
        return sid

    def masked_text(self, text: str) -> str:
        """``masker.mask(text)``, remembered per process for the default masks: the same line
        (a version banner, a config dump) recurs verbatim on every node of a job."""
        if self.masker is not _DEFAULT_MASKER:
            return self.masker.mask(text)
        masked = _MASKED.get(text)
        if masked is None:
            if len(_MASKED) >= MASK_MEMO_SIZE:
                _MASKED.clear()
            masked = _MASKED[text] = self.masker.mask(text)
        return masked

    def _intern_ts(self, plan: tuple[int, ...]) -> int:
        pid = self._ts_ids.get(plan)
        if pid is None:
            pid = self._ts_ids[plan] = len(self.ts_plans)
            self.ts_plans.append(plan)
        return pid

    def _intern_iter(self, plan: tuple[int, int]) -> int:
        pid = self._iter_ids.get(plan)
        if pid is None:
            pid = self._iter_ids[plan] = len(self.iter_plans)
            self.iter_plans.append(plan)
        return pid


def _ascii_digits(*parts: str | None) -> None:
    for part in parts:
        if part and not (part.isascii() and part.isdigit()):
            raise Unsupported("non-ASCII digits")


def _ts_plan(text: str) -> tuple[int, ...]:
    """Where ``_Clock.parse`` finds its numbers in lines of this shape (byte offsets)."""
    head = text[:_TS_SCAN_CHARS]
    m = _TS_ISO.search(head)
    if m:
        _ascii_digits(*m.groups()[:7], (m.group(8) or "").strip("Z+-").replace(":", ""))
        frac_at, frac_len = (_byte_offset(text, m.start(7)), len(m.group(7))) if m.group(7) else (0, 0)
        tz = m.group(8)
        sign = 0 if not tz or tz == "Z" else (1 if tz[0] == "+" else -1)
        tz_at = _byte_offset(text, m.start(8)) if sign else 0
        minutes_at = tz_at + (4 if sign and tz[3] == ":" else 3)
        return (ISO, *(_byte_offset(text, m.start(g)) for g in range(1, 7)), frac_at, frac_len, sign, tz_at + 1,
                minutes_at)
    m = _TS_US.search(head)
    if m:  # the ISO plan with the year, month and day read from where this shape puts them
        _ascii_digits(*(g for g in m.groups() if g))
        frac_at, frac_len = (_byte_offset(text, m.start(7)), len(m.group(7))) if m.group(7) else (0, 0)
        return (ISO, *(_byte_offset(text, m.start(g)) for g in (3, 1, 2, 4, 5, 6)), frac_at, frac_len, 0, 0, 0)
    m = _TS_GLOG.match(head)
    if m:
        _ascii_digits(*m.groups()[1:])
        return (GLOG, _byte_offset(text, m.start(2)), len(m.group(2)), *(_byte_offset(text, m.start(g)) for g in range(3, 7)),
                _byte_offset(text, m.start(7)), len(m.group(7)))
    m = _TS_MONTH_DAY.match(head)
    if m:  # the glog plan: month and day, no year
        _ascii_digits(*(g for g in m.groups() if g))
        frac_at, frac_len = (_byte_offset(text, m.start(6)), len(m.group(6))) if m.group(6) else (0, 0)
        return (GLOG, _byte_offset(text, m.start(1)), 2, *(_byte_offset(text, m.start(g)) for g in range(2, 6)), frac_at,
                frac_len)
    m = _TS_SYSLOG.search(head)
    if m:
        _ascii_digits(*m.groups()[1:])
        frac_at, frac_len = (_byte_offset(text, m.start(6)), len(m.group(6))) if m.group(6) else (0, 0)
        year_at = _byte_offset(text, m.start(7)) if m.group(7) else -1
        return (SYSLOG, _MONTH_NUM[m.group(1)], _byte_offset(text, m.start(2)), len(m.group(2)),
                *(_byte_offset(text, m.start(g)) for g in (3, 4, 5)), frac_at, frac_len, year_at)
    return (NO_TS,)


def _iter_plan(text: str) -> tuple[int, int]:
    m = iteration_match(text)
    if not m:
        return (-1, 0)
    _ascii_digits(m.group(3))
    if len(m.group(3)) > 18:
        raise Unsupported("an iteration past int64")
    return (_byte_offset(text, m.start(3)), len(m.group(3)))


def _number(buf: np.ndarray, starts: np.ndarray, at: int, width: int) -> np.ndarray:
    """The decimal number of ``width`` ASCII digits at ``at`` bytes into each line."""
    value = np.zeros(len(starts), dtype=np.int64)
    for k in range(width):
        value = value * 10 + (buf[starts + (at + k)].astype(np.int64) - 48)
    return value


def _days(year: np.ndarray, month: np.ndarray, day: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 as ``calendar.timegm`` counts them (the day is not range-checked)."""
    months = (year - 1970) * 12 + (month - 1)
    return months.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64) + day - 1


def _fraction(buf: np.ndarray, starts: np.ndarray, at: int, width: int) -> np.ndarray | float:
    if not width:
        return 0.0
    return _number(buf, starts, at, width).astype(np.float64) / float(10**width)


class _Clock:
    """The year state of ``timestamps.Clock`` for yearless timestamps (glog, syslog without a year):
    the year of the ISO lines seen before, else the job's. The per-line clock takes the year
    of the last ISO line *missing its cache*; with one ISO year per file that is simply the
    year, with several it depends on the cache's history, so such a file goes per-line."""

    MIXED = -1

    def __init__(self, year: int) -> None:
        self.job_year = year
        self.iso_year: int | None = None  # None: no ISO line yet
        self.yearless = False

    def update(self, iso_years: np.ndarray, yearless: bool) -> None:
        for year in np.unique(iso_years).tolist():
            if self.iso_year is None:
                self.iso_year = year
            elif self.iso_year != year:
                self.iso_year = self.MIXED
        self.yearless = self.yearless or yearless
        if self.yearless and self.iso_year == self.MIXED:
            raise Unsupported("several ISO years beside yearless timestamps")

    def year(self, iso_before: np.ndarray) -> np.ndarray:
        iso = self.job_year if self.iso_year is None else self.iso_year
        return np.where(iso_before, iso, self.job_year).astype(np.int64)


def _timestamps(
    shapes: _Shapes, buf: np.ndarray, starts: np.ndarray, plan: np.ndarray, clock: _Clock, iso_before: bool
) -> tuple[np.ndarray, np.ndarray, bool]:
    """(ts with NaN where the line has none, stamped, whether an ISO line was seen by the end)."""
    n = len(starts)
    ts = np.full(n, np.nan)
    stamped = np.zeros(n, dtype=bool)
    kinds = np.array([p[0] for p in shapes.ts_plans], dtype=np.int8)[plan]
    is_iso = kinds == ISO
    present = np.flatnonzero(np.bincount(plan, minlength=len(shapes.ts_plans)))
    iso_years: list[np.ndarray] = []
    yearless = []
    for pid in present.tolist():
        p = shapes.ts_plans[pid]
        if p[0] == NO_TS:
            continue
        rows = np.flatnonzero(plan == pid)
        at = starts[rows]
        if p[0] == ISO:
            y0, mo0, d0, h0, mi0, s0, frac_at, frac_len, sign, hh_at, mm_at = p[1:]
            year, month = _number(buf, at, y0, 4), _number(buf, at, mo0, 2)
            iso_years.append(year)
            ok = (year >= 1) & (month >= 1) & (month <= 12)  # what datetime.date accepts
            secs = (_days(np.where(ok, year, 1970), np.where(ok, month, 1), _number(buf, at, d0, 2)) * 86400
                    + _number(buf, at, h0, 2) * 3600 + _number(buf, at, mi0, 2) * 60 + _number(buf, at, s0, 2))
            if sign:
                secs -= sign * (_number(buf, at, hh_at, 2) * 3600 + _number(buf, at, mm_at, 2) * 60)
            ts[rows] = secs.astype(np.float64) + _fraction(buf, at, frac_at, frac_len)
            stamped[rows] = ok
        else:
            yearless.append((pid, rows))
    clock.update(np.concatenate(iso_years) if iso_years else np.empty(0, np.int64), any(shapes.ts_plans[pid][0] == GLOG or shapes.ts_plans[pid][-1] < 0 for pid, _ in yearless))
    seen = np.logical_or.accumulate(is_iso) | iso_before  # an ISO line at or before each line
    for pid, rows in yearless:
        p = shapes.ts_plans[pid]
        at = starts[rows]
        if p[0] == GLOG:
            mo0, mo_len, d0, h0, mi0, s0, frac_at, frac_len = p[1:]
            year = clock.year(seen[rows])
            month = _number(buf, at, mo0, mo_len)
            day = _number(buf, at, d0, 2)
        else:
            month_num, d0, d_len, h0, mi0, s0, frac_at, frac_len, year_at = p[1:]
            year = _number(buf, at, year_at, 4) if year_at >= 0 else clock.year(seen[rows])
            month = np.full(len(rows), month_num, dtype=np.int64)
            day = _number(buf, at, d0, d_len)
        ok = (year >= 1) & (month >= 1) & (month <= 12)
        secs = (_days(np.where(ok, year, 1970), np.where(ok, month, 1), day) * 86400
                + _number(buf, at, h0, 2) * 3600 + _number(buf, at, mi0, 2) * 60 + _number(buf, at, s0, 2))
        ts[rows] = secs.astype(np.float64) + _fraction(buf, at, frac_at, frac_len)
        stamped[rows] = ok
    ts[~stamped] = np.nan
    return ts, stamped, bool(seen[-1]) if n else iso_before


def _gather_samples(shapes: _Shapes, data: bytes, kol: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                    need: np.ndarray) -> None:
    """The first ``SAMPLES_PER_KEY`` and the last raw text of each key, as ``scan_lines`` keeps them."""
    scan = shapes.scan
    order = np.argsort(kol, kind="stable")
    ordered = kol[order]
    first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    last = np.r_[first[1:], len(ordered)] - 1

    def text(row: int) -> str:
        return data[starts[row] : ends[row]].decode("utf-8").rstrip("\r\n")

    for g_first, g_last in zip(first.tolist(), last.tolist(), strict=True):
        key = int(ordered[g_first])
        scan.last_sample[key] = text(int(order[g_last]))
        wanted = int(need[key])
        if wanted > 0:
            taken = order[g_first : min(g_first + wanted, g_last + 1)].tolist()
            scan.samples[key].extend(text(row) for row in taken)
            need[key] -= len(taken)


def _find_none(items: list, start: int) -> int:
    try:
        return items.index(None, start)  # a C scan: most chunks have few or no new shapes
    except ValueError:
        return -1


def scan_file(source: SourceFile, masker: Masker | None = None) -> list[NodeScan]:
    """``scan_lines(read_lines(source))`` for an eligible file, or ``Unsupported``."""
    if _head_is_utf16(source.path):
        raise Unsupported("UTF-16")
    scan = NodeScan(source.node)
    shapes = _Shapes(scan, masker or _DEFAULT_MASKER)
    clock = _Clock(source.year)
    parts: dict[str, list[np.ndarray]] = {f: [] for f in ("key", "lineno", "ts", "stamped", "level", "iteration")}
    need = np.zeros(0, dtype=np.int64)
    lineno = 0
    last_ts = np.nan
    iso_before = False
    for data in _chunks(source.path):
        if b"\x1b[" in data:
            raise Unsupported("terminal colour codes (removed line by line)")
        zeroed = data.translate(_ZERO_DIGITS).split(b"\n")
        if data.endswith(b"\n"):
            zeroed.pop()
        n = len(zeroed)
        buf = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(buf == 10)[:n]
        if len(ends) < n:
            ends = np.r_[ends, len(data)]  # the file's last line, without a line break
        starts = np.r_[0, ends[:-1] + 1]
        sids = list(map(shapes.of.get, zeroed))
        misses = sids.count(None)
        if misses > 64:  # many new shapes (a file's first chunk): add each at its first line, then look up again
            first = dict(zip(reversed(zeroed), range(n - 1, -1, -1), strict=True))  # C speed; the smallest index wins
            for i in sorted(i for z, i in first.items() if z not in shapes.of):
                shapes.add(zeroed[i], data[starts[i] : ends[i]])
            sids = list(map(shapes.of.get, zeroed))
        elif misses:
            i = _find_none(sids, 0)
            while i >= 0:  # new shapes, in line order (key indices are numbered by first sight)
                sid = shapes.of.get(zeroed[i])
                sids[i] = sid if sid is not None else shapes.add(zeroed[i], data[starts[i] : ends[i]])
                i = _find_none(sids, i + 1)
        sid_arr = np.array(sids, dtype=np.int64)
        kol = np.array(shapes.key, dtype=np.int32)[sid_arr]
        if len(need) < len(scan.keys):
            need = np.r_[need, np.full(len(scan.keys) - len(need), SAMPLES_PER_KEY, dtype=np.int64)]
        _gather_samples(shapes, data, kol, starts, ends, need)
        plan = np.array(shapes.ts_plan, dtype=np.int64)[sid_arr]
        ts, stamped, iso_before = _timestamps(shapes, buf, starts, plan, clock, iso_before)
        # Unstamped lines inherit the file's last timestamp (read_lines' ``last_ts``).
        last = np.maximum.accumulate(np.where(stamped, np.arange(n), -1))
        ts = np.where(last >= 0, ts[np.maximum(last, 0)], last_ts)
        if stamped.any():
            last_ts = float(ts[-1])
        iteration = np.full(n, -1, dtype=np.int32)
        iplan = np.array(shapes.iter_plan, dtype=np.int64)[sid_arr]
        for pid in np.flatnonzero(np.bincount(iplan, minlength=len(shapes.iter_plans))).tolist():
            at, width = shapes.iter_plans[pid]
            if at >= 0:
                rows = np.flatnonzero(iplan == pid)
                value = _number(buf, starts[rows], at, width)
                iteration[rows] = np.where(value <= MAX_ITERATION, value, -1)
        parts["key"].append(kol)
        parts["lineno"].append(np.arange(lineno + 1, lineno + n + 1, dtype=np.int32))
        parts["ts"].append(ts)
        parts["stamped"].append(stamped.astype(np.int8))
        parts["level"].append(np.array(shapes.level, dtype=np.int8)[sid_arr])
        parts["iteration"].append(iteration)
        lineno += n
    if not lineno:
        return []
    for name, field, code in (("key", "key_of_line", "i"), ("lineno", "lineno", "i"), ("ts", "ts", "d"),
                              ("stamped", "stamped", "b"), ("level", "level", "b"), ("iteration", "iteration", "i")):
        packed = array(code)
        packed.frombytes(np.concatenate(parts[name]).tobytes())
        setattr(scan, field, packed)
    return [scan]


def scan_source(source: SourceFile) -> tuple[list[NodeScan], list[str]]:
    """One file's tables and warnings: chunked when it can be, else line by line (a pure
    function of the file, so it runs in worker processes and as a Ray task alike)."""
    warnings: list[str] = []
    if eligible(source):
        try:
            return scan_file(source), warnings
        except Unsupported:
            pass  # line by line: the same tables, and the per-line path words the warnings
        except Exception:  # a case this path gets wrong must cost speed, never the diagnosis
            logger.warning("fast scan of %s failed; reading it line by line", source.path, exc_info=True)
    return scan_lines(read_lines(source, warnings)), warnings
