"""Property-based checks over ingest, mining and node naming (hypothesis).

Random job layouts: per-node files, consoles with ``[rankN]:``/``[defaultN]:``/``N: `` prefixes,
restarts as several consoles, gzip, UTF-16, stray bytes. For each: no exception, every
occurrence a diagnosis cites is the text of that line of that file, and the node count is
what CONTRACTS.md implies (a per-node file is one node; a console is one node per rank plus
the file's own node for unprefixed lines). Bounded for CI: a few dozen examples, ~20 s.
"""

from __future__ import annotations

import gzip
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from agent.ingest import open_job
from agent.pipeline import analyze

WORDS = ["INFO", "ERROR", "WARNING", "iteration", "loss", "NCCL", "timeout", "rank", "allreduce", "step", "ok", "x7", "0x1f"]
PREFIXES = ("[rank{}]: ", "[default{}]: ", "{}: ")


@dataclass
class Layout:
    files: dict[str, bytes]
    nodes: int  # what CONTRACTS implies


def _line(draw: st.DrawFn, i: int, hour: int = 10) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
    stamp = f"2024-05-12 {hour}:{i // 60 % 60:02d}:{i % 60:02d} " if draw(st.booleans()) else "t "
    return stamp + " ".join(words) + f" {i}"


def _garble(draw: st.DrawFn, text: str) -> str:
    """A stray byte (latin-1, a control) in a line now and then: never a newline."""
    if draw(st.integers(0, 4)) != 0:
        return text
    at = draw(st.integers(0, len(text)))
    return text[:at] + draw(st.sampled_from(["\x01", "\x1b", "é", "\ufffd", "\x00"])) + text[at:]


def _encode(draw: st.DrawFn, text: str) -> tuple[str, bytes]:
    """(suffix, bytes): plain, UTF-16 with a BOM, or gzip."""
    kind = draw(st.sampled_from(["plain", "plain", "utf16", "gzip"]))
    if kind == "utf16":
        return "", text.encode("utf-16")
    data = text.encode("utf-8", "surrogatepass")
    return (".gz", gzip.compress(data)) if kind == "gzip" else ("", data)


@st.composite
def layouts(draw: st.DrawFn) -> Layout:
    files: dict[str, bytes] = {}
    nodes = 0
    for k in range(draw(st.integers(0, 3))):  # per-node files
        lines = [_garble(draw, _line(draw, i)) for i in range(draw(st.integers(1, 30)))]
        suffix, data = _encode(draw, "\n".join(lines) + "\n")
        files[f"node-{k}.log{suffix}"] = data
        nodes += 1
    for c in range(draw(st.integers(0 if files else 1, 2))):  # consoles: one per launch
        ranks = draw(st.integers(2, 4))
        style = draw(st.sampled_from(["one", "mixed"]))
        header = draw(st.booleans())
        lines = ["launching job ..."] if header else []
        # A mixed console cycles the styles line by line, so each one is frequent enough to
        # count as a launcher's prefix (a lone "1: " is text: CONTRACTS splits on launchers).
        for i in range(3 * draw(st.integers(3, 8)) if style == "mixed" else draw(st.integers(3, 25))):
            for r in range(ranks):
                prefix = PREFIXES[i % 3 if style == "mixed" else draw(st.integers(0, 1))]
                # Each launch starts after the last one ended: restarts, not per-node files.
                lines.append(prefix.format(r) + _garble(draw, _line(draw, i, hour=11 + 2 * c)))
        suffix, data = _encode(draw, "\n".join(lines) + "\n")
        files[f"slurm-{c}.out{suffix}"] = data
        nodes += ranks + header
    return Layout(files, nodes)


def _physical_lines(path: Path) -> list[str]:
    """The file's lines as a reader would see them, decoded independently of ingest."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    text = data.decode("utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else data.decode("utf-8", "replace")
    return [line.rstrip("\r").replace("\x00", "") for line in text.split("\n")]


# No shrinking: a failure prints its (unshrunk) layout at once instead of spending minutes of CI.
@settings(max_examples=25, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(layouts())
def test_random_layouts_keep_lines_and_nodes(layout: Layout) -> None:
    root = Path(tempfile.mkdtemp(prefix="l4-prop-"))
    try:
        for name, data in layout.files.items():
            (root / name).write_bytes(data)
        analysis = analyze(root, workers=1, use_pool=False, use_library=False, reasoner=None)
        mined = analysis.mined
        assert len(mined.nodes) == layout.nodes, (sorted(mined.nodes), open_job(root).warnings)
        files = {log.node: log.source for log in mined.nodes.values()}
        physical: dict[Path, list[str]] = {}
        for event in analysis.diagnosis.events:
            for occ in event.occurrences:
                source = files[occ.node]
                lines = physical.setdefault(source, _physical_lines(source))
                assert occ.text in lines[occ.line - 1], (occ, lines[occ.line - 1])
        # Every line ingest yields is that line of that file, whatever node it went to.
        job = open_job(root)
        for source in job.sources:
            lines = physical.setdefault(source.path, _physical_lines(source.path))
            for line in job.lines(source):
                assert lines[line.lineno - 1].endswith(line.text)
    finally:
        shutil.rmtree(root, ignore_errors=True)
