"""Find a job's log files and stream their lines as ``LogLine`` records.

A job is a directory (searched recursively) or one file (CONTRACTS.md). Each file is one
node, named after the file; a combined console log whose lines carry launcher rank
prefixes (torchrun ``[default3]:``/``[rank3]:``, ``srun -l`` ``3: ``, mpirun
``[1,3]<stdout>:``) is split into virtual nodes ``rank<N>``.

Reading streams line by line (constant memory per file). Real logs are messy, so bad
input degrades instead of failing: undecodable bytes are replaced, binary files are
skipped, a truncated ``.gz`` yields what could be read, and over-long lines are clipped.
Each of these adds a one-line warning to the ``Job`` so no data loss is silent.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from .consoles import (
    CONSOLE_FORMATS,
    CONSOLE_SNIFF_LINES,
    TAIL_SNIFF_BYTES,
    ConsoleFormat,
    detect_console,
    files_are_nodes,
    head_ranks,
    prefix_match,
    prefix_rank,
    tail_bracketed_ranks,
    without_ansi,
)
from .errors import InputError
from .records import LogLine
from .timestamps import _TS_GLOG, _TS_ISO, Clock

LOG_SUFFIXES = (".log", ".txt", ".out")
# Rotated logs are compressed; which decompressor reads a file is decided by its first bytes,
# not its name (a plain-text "x.log.gz" is common after a failed rotation).
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"))
_MAGIC_SUFFIX = {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "zstd": ".zst"}
MAX_LINE_CHARS = 16_384  # longer lines are clipped: a 10 MB line is data loss either way, keep the head
SNIFF_BYTES = 8192
YEAR_SNIFF_BYTES = 256 * 1024  # dated lines may start after a long undated preamble

# --- levels ------------------------------------------------------------------------------

# A letter alone in brackets is a level, also before the C++ source PyTorch logs from, undated:
# "[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout" (pytorch/pytorch#118369).
_LEVEL = re.compile(
    r"(?<![\w/.-])\[?(TRACE|DEBUG|DBG|INFO|NOTICE|EVENT|WARNING|WARN|ERROR|ERR|CRITICAL|FATAL|PANIC)\]?(?![\w/.-])"
    # c10's "[W socket.cpp:601]"; torch_npu's binaries name a CMake stand-in file ("[W compiler_depend.ts:133]
    # Warning: Device do not support double dtype now", Ascend/pytorch troubleshooting cases)
    r"|\[([DIWEF])(?:\]| [\w.-]+\.(?:cpp|cc|h|hpp|ts):\d+\])"
)
_LEVEL_NAMES = {
    "TRACE": "DEBUG", "DEBUG": "DEBUG", "DBG": "DEBUG", "D": "DEBUG",
    "INFO": "INFO", "NOTICE": "INFO", "EVENT": "INFO", "I": "INFO",
    "WARNING": "WARNING", "WARN": "WARNING", "W": "WARNING",
    "ERROR": "ERROR", "ERR": "ERROR", "E": "ERROR",
    "CRITICAL": "CRITICAL", "FATAL": "CRITICAL", "PANIC": "CRITICAL", "F": "CRITICAL",
}  # fmt: skip
_LEVEL_SCAN_CHARS = 120


@dataclass(frozen=True)
class SourceFile:
    """One log file of a job; ``console`` files hold many virtual nodes."""

    path: Path
    node: str  # the file's node name (unprefixed console lines belong to it)
    console: ConsoleFormat | None = None
    ranks_are_nodes: bool = True  # False in a per-node file: its rank prefixes are processes of the file's node
    year: int = 1970  # for yearless timestamps (syslog, glog): the year the job's dated lines show


@dataclass
class Job:
    """A job's files plus the warnings met while reading them."""

    root: Path
    sources: list[SourceFile]
    warnings: list[str] = field(default_factory=list)

    def lines(self, source: SourceFile) -> Iterator[LogLine]:
        """Stream one file's lines; problems become warnings on this job."""
        yield from read_lines(source, self.warnings)


_LOSS_MARKS = ("binary content", "compressed data ends early", "read error after line", "not readable")


def is_evidence_loss(warning: str) -> bool:
    """Whether an ingest warning says some of the job's lines could not be read."""
    return any(mark in warning for mark in _LOSS_MARKS)


def _uncompressed_name(name: str) -> str:
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def node_name_for(path: Path) -> str:
    """``worker-3.log.gz`` -> ``worker-3`` (CONTRACTS.md)."""
    name = _uncompressed_name(path.name)
    for suffix in LOG_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)] or name
    return name


def natural_key(name: str) -> tuple[object, ...]:
    """Node names in the order people count them: worker-2 before worker-10, rank8 before rank56."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def _is_log_file(path: Path) -> bool:
    return _uncompressed_name(path.name).endswith(LOG_SUFFIXES) and not path.name.startswith(".")


def compression_of(path: Path) -> str | None:
    """``gzip``, ``bzip2``, ``xz`` or ``zstd`` from the file's first bytes; None for plain text."""
    try:
        with path.open("rb") as fh:
            head = fh.read(6)
    except OSError:
        return None
    return next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)


def _zstd_reader(path: Path):
    try:
        import zstandard  # not a dependency of l4: used when the environment has it
    except ImportError:
        raise OSError(f"zstd-compressed; decompress it first (`zstd -d {path.name}`) or `pip install zstandard`") from None
    return zstandard.ZstdDecompressor().stream_reader(path.open("rb"), closefd=True)


def _open_binary(path: Path):
    kind = compression_of(path)
    if kind == "gzip":
        return gzip.open(path, "rb")
    if kind == "bzip2":
        return bz2.open(path, "rb")
    if kind == "xz":
        return lzma.open(path, "rb")
    if kind == "zstd":
        return _zstd_reader(path)
    return path.open("rb")


def _unique_names(paths: list[Path], root: Path) -> list[str]:
    """Node names, extended with parent folders until unique (``host1/rank0``)."""
    parts = [p.relative_to(root).parts if p != root else (p.name,) for p in paths]
    depth = {i: 1 for i in range(len(paths))}
    while True:
        names = ["/".join((*part[-depth[i] : -1], node_name_for(paths[i]))) for i, part in enumerate(parts)]
        seen: dict[str, list[int]] = {}
        for i, name in enumerate(names):
            seen.setdefault(name, []).append(i)
        clashes = [ids for ids in seen.values() if len(ids) > 1]
        if not clashes:
            return names
        grew = False
        for ids in clashes:
            for i in ids:
                if depth[i] < len(parts[i]):
                    depth[i] += 1
                    grew = True
        if not grew:  # identical relative paths cannot happen; fall back to the full path
            return [str(p.relative_to(root)) for p in paths]


def _encoding(path: Path) -> str:
    """UTF-16 when the file starts with its byte-order mark (Windows tools write logs so), else UTF-8."""
    head = _sniff(path, 2)
    return "utf-16" if head in (b"\xff\xfe", b"\xfe\xff") else "utf-8"


def _open_text(path: Path):
    # newline="\n": physical lines end at LF only, so line numbers match `wc -l`/editors.
    return io.TextIOWrapper(_open_binary(path), encoding=_encoding(path), errors="replace", newline="\n")


def _sniff(path: Path, size: int = SNIFF_BYTES) -> bytes:
    try:
        with _open_binary(path) as fh:
            return fh.read(size)
    except (EOFError, OSError, zlib.error, lzma.LZMAError):
        return b""  # unreadable head: read_lines reports the precise problem


def _text_head(path: Path, size: int = SNIFF_BYTES, limit: int = 64 * 1024 * 1024) -> bytes:
    """The first ``size`` bytes after any NUL padding (logrotate copytruncate leaves megabytes of it)."""
    kept = bytearray()
    read = 0
    try:
        with _open_binary(path) as fh:
            while len(kept) < size and read < limit:
                chunk = fh.read(1 << 16)
                if not chunk:
                    break
                read += len(chunk)
                kept += chunk.lstrip(b"\x00") if not kept else chunk
    except (EOFError, OSError, zlib.error, lzma.LZMAError):
        pass
    return bytes(kept[:size])


def looks_binary(head: bytes) -> bool:
    """Binary when more than a tenth of the head is control bytes or invalid UTF-8 (a share,
    so one stray byte never discards a log). NULs do not count: logrotate's copytruncate
    leaves runs of them, and UTF-16 logs are half NULs."""
    if not head:
        return False
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return False
    text = head.replace(b"\x00", b"").decode("utf-8", "replace")
    if not text:
        return True
    odd = sum(1 for ch in text if ch == "\ufffd" or ch < "\t" or "\r" < ch < " ")
    return odd / len(text) > 0.1


def _detect_console(path: Path) -> ConsoleFormat | None:
    try:
        with _open_text(path) as fh:
            return detect_console(fh)
    except (EOFError, OSError, zlib.error):
        return None


def _head_ranks(source: SourceFile) -> set[str]:
    assert source.console is not None
    try:
        with _open_text(source.path) as fh:
            return head_ranks(fh, source.console)
    except (EOFError, OSError, zlib.error, lzma.LZMAError):
        return set()


def _file_span(source: SourceFile) -> tuple[float, float] | None:
    """When a plain file was written: its first and last timestamps (head and tail), or None."""
    if compression_of(source.path) is not None:
        return None  # the tail of a compressed file costs a full read
    clock = Clock(source.year)
    first = last = None
    try:
        with _open_text(source.path) as fh:
            for n, line in enumerate(fh):
                first = clock.parse(_unprefixed(line, source.console))
                if first is not None or n >= CONSOLE_SNIFF_LINES:
                    break
        with source.path.open("rb") as raw:
            raw.seek(max(0, source.path.stat().st_size - TAIL_SNIFF_BYTES))
            for line in raw.read().decode("utf-8", "replace").split("\n"):
                ts = clock.parse(_unprefixed(line, source.console))
                last = ts if ts is not None else last
    except (EOFError, OSError, zlib.error, lzma.LZMAError):
        return None
    return (first, last) if first is not None and last is not None else None


def _unprefixed(line: str, console: ConsoleFormat | None) -> str:
    line = without_ansi(line)
    m = prefix_match(line, console)
    return line[m.end() :] if m else line


def _walk(root: Path, warnings: list[str]) -> Iterator[Path]:
    """Every file below ``root``, following directory links once each (node folders are often
    links into shared storage), iteratively (no recursion limit on deep trees)."""
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            st = folder.stat()
            if (st.st_dev, st.st_ino) in seen:
                continue  # a link loop, or a folder reached twice
            seen.add((st.st_dev, st.st_ino))
            entries = list(os.scandir(folder))
        except OSError as exc:
            warnings.append(f"{folder}: not readable ({exc.strerror or exc}), skipped")
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=True):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=True):
                    yield Path(entry.path)
            except OSError:
                warnings.append(f"{entry.path}: not readable, skipped")


def open_job(job: Path | str) -> Job:
    """Discover the log files of a job directory or single file."""
    root = Path(job)
    if not root.exists():
        raise InputError(f"{root} does not exist", "give a job directory or a log file")
    warnings: list[str] = []
    if root.is_file():
        paths = [root]
        base = root.parent
    else:
        found = sorted(_walk(root, warnings))
        paths = [p for p in found if _is_log_file(p)]
        base = root
        if not paths:
            raise InputError(
                f"no log files in {root}",
                "expected *.log, *.txt or *.out files (optionally .gz, .bz2, .xz, .zst), searched recursively",
            )
        others = [p for p in found if not _is_log_file(p)]
        if others:  # every file is read or named: say which were left out, and why
            shown = ", ".join(str(p.relative_to(root)) for p in others[:5]) + (" …" if len(others) > 5 else "")
            warnings.append(f"{len(others)} file(s) not read (not named *.log, *.txt or *.out, or hidden): {shown}")
    names = _unique_names(paths, base)
    sources: list[SourceFile] = []
    years: Counter[int] = Counter()
    for path, name in zip(paths, names, strict=True):
        if path.stat().st_size == 0:
            warnings.append(f"{path}: empty file, skipped")
            continue
        kind = compression_of(path)
        named = next((sfx for sfx in COMPRESSED_SUFFIXES if path.name.endswith(sfx)), None)
        if named and kind is None:
            warnings.append(f"{path}: named {named} but not compressed; read as plain text")
        elif kind and named and _MAGIC_SUFFIX[kind] != named:
            warnings.append(f"{path}: named {named} but holds {kind} data; read as {kind}")
        if looks_binary(_text_head(path)):
            warnings.append(f"{path}: binary content (over a tenth control bytes or invalid UTF-8), skipped")
            continue
        if not years:
            sample = _sniff(path, YEAR_SNIFF_BYTES).decode("utf-8", "replace")
            years.update(int(m.group(1)) for m in _TS_ISO.finditer(sample))
        sources.append(SourceFile(path=path, node=name, console=_detect_console(path)))
    if not sources:
        raise InputError(f"no readable log lines under {root}", "; ".join(warnings) or "check the files")
    if len(sources) == 1 and sources[0].console is None and len(tail_bracketed_ranks(sources[0].path)) >= 2:
        # One file for the whole job is its console even when only the crash report names
        # ranks; in a job of per-node files the prefixes are processes of that file's node.
        sources = [replace(sources[0], console=CONSOLE_FORMATS[0])]
    if years:
        year = years.most_common(1)[0][0]
        sources = [replace(s, year=year) for s in sources]
    prefixed = [s for s in sources if s.console is not None]
    if len(prefixed) >= 2 and files_are_nodes([_file_span(s) for s in prefixed], [_head_ranks(s) for s in prefixed]):
        sources = [replace(s, ranks_are_nodes=False) if s.console is not None else s for s in sources]
    elif prefixed and len(sources) >= 2:
        sources = _per_node_siblings(sources)
    return Job(root=root, sources=sources, warnings=warnings)


_DIGITS = re.compile(r"\d+")


def _per_node_siblings(sources: list[SourceFile]) -> list[SourceFile]:
    """A rank-prefixed file among numbered siblings written at the same time (worker-0.log ...
    worker-4.log) is one node's file like them: PyTorch prefixes only a failing rank's traceback
    ("[rank26]: Traceback (most recent call last):"), so the faulty node's file alone looks like
    a console. Restarts (slurm-101.out, then slurm-117.out) follow one another and stay split."""
    shapes: dict[str, list[SourceFile]] = {}
    for s in sources:
        shapes.setdefault(_DIGITS.sub("#", s.path.name), []).append(s)
    per_node: set[Path] = set()
    for group in shapes.values():
        # Only a prefixed file among plain siblings: consoles among consoles were judged above.
        if len(group) < 2 or all(s.console is None for s in group) or all(s.console is not None for s in group):
            continue
        if files_are_nodes([_file_span(s) for s in group], [_head_ranks(s) if s.console else set() for s in group]):
            per_node.update(s.path for s in group if s.console is not None)
    return [replace(s, ranks_are_nodes=False) if s.path in per_node else s for s in sources]


def parse_level(text: str) -> str | None:
    """The log level named near the head of a line, normalised, or None."""
    head = text[:_LEVEL_SCAN_CHARS]
    g = _TS_GLOG.match(head)
    if g:
        return _LEVEL_NAMES[g.group(1)]
    m = _LEVEL.search(head)
    if not m:
        return None
    return _LEVEL_NAMES[(m.group(1) or m.group(2)).upper()]


# tqdm redraws its bar without a line break, so whatever is printed next lands on the bar's
# line: " 12%|###7   | 1/8 [01:34<11:01, 94.51s/it]slurmstepd: error: *** JOB 3180828 ON
# c562-009 CANCELLED AT 2026-06-04T13:30:59 DUE TO TIME LIMIT ***" (rcc-uchicago/pedramh-profiling
# e3sm_train_3180828.e). The message after the bar is what the line says.
_BAR_END = re.compile(r"(?:it/s|s/it)(?:, [^\]]{0,80})?\]")
GLUED_MIN_CHARS = 12


def split_progress_bar(text: str) -> tuple[str, str] | None:
    """``(bar, message)`` when a message is glued after a progress bar on one line, else None."""
    if "]" not in text or ("it/s" not in text and "s/it" not in text):  # every line passes here: skip the regex
        return None
    ends = [m.end() for m in _BAR_END.finditer(text)]
    if not ends:
        return None
    rest = text[ends[-1]:].lstrip()
    if len(rest) >= GLUED_MIN_CHARS and any(c.isalpha() for c in rest[:GLUED_MIN_CHARS]):
        return text[: ends[-1]], rest
    return None


def read_texts(source: SourceFile, warnings: list[str]) -> Iterator[tuple[str, int, str]]:
    """Stream ``(node, lineno, text)`` of one file: ``read_lines`` without timestamps and
    levels, for callers that only look lines up (several times faster)."""
    console = source.console
    clipped = 0
    nul_lines = 0
    replaced = 0
    lineno = 0
    try:
        with _open_text(source.path) as fh:
            for raw in fh:
                lineno += 1
                text = raw.rstrip("\r\n")
                text = without_ansi(text)
                if "\x00" in text:  # logrotate copytruncate pads with NULs: drop them, keep the text
                    nul_lines += 1
                    text = text.replace("\x00", "")
                if "\ufffd" in text:  # bytes that are not UTF-8 were replaced: say so (quoted evidence differs)
                    replaced += 1
                if len(text) > MAX_LINE_CHARS:
                    clipped += 1
                    text = text[:MAX_LINE_CHARS] + f" …[{len(text) - MAX_LINE_CHARS} chars clipped]"
                node = source.node
                # The rank prefix comes before a bar its rank drew; the glued message may
                # carry its own prefix ("[rank0]: 12%|#| 1/8 [..., 94.51s/it][rank0]: Traceback").
                for _ in range(2):
                    if console is not None and (m := prefix_match(text, console)):
                        prefix = prefix_rank(m)
                        if source.ranks_are_nodes:
                            node = f"rank{int(prefix)}" if prefix.isdigit() else prefix  # pdsh names the host
                        text = text[m.end() :]
                    split = split_progress_bar(text)
                    if split is None:
                        break
                    # The bar is the job's work up to the message: kept as its own line, so
                    # a silence is not read across it.
                    yield node, lineno, split[0]
                    text = split[1]
                yield node, lineno, text
    except (EOFError, gzip.BadGzipFile, zlib.error, lzma.LZMAError) as exc:
        warnings.append(f"{source.path}: compressed data ends early ({exc}); kept the {lineno} lines before it")
    except OSError as exc:
        warnings.append(f"{source.path}: read error after line {lineno} ({exc}); kept what was read")
    if clipped:
        warnings.append(f"{source.path}: {clipped} line(s) longer than {MAX_LINE_CHARS} chars were clipped")
    if replaced:
        warnings.append(f"{source.path}: {replaced} line(s) hold bytes that are not UTF-8, shown as \ufffd (latin-1 or another encoding?)")
    if nul_lines:
        warnings.append(f"{source.path}: NUL bytes removed from {nul_lines} line(s) (a file truncated while written?)")


def read_lines(source: SourceFile, warnings: list[str]) -> Iterator[LogLine]:
    """Stream ``LogLine`` records of one file, splitting console prefixes into nodes."""
    clocks: dict[str, Clock] = {}
    last_ts: float | None = None
    for node, lineno, text in read_texts(source, warnings):
        clock = clocks.get(node)
        if clock is None:
            clock = clocks[node] = Clock(source.year)
        ts = clock.parse(text)
        stamped = ts is not None
        # A console's ranks write one file in order: an unstamped line happened after
        # the file's last stamped line, whichever rank stamped it.
        if ts is None:
            ts = last_ts
        else:
            last_ts = ts
        yield LogLine(node, lineno, ts, parse_level(text), text, stamped)
