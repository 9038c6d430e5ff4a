"""The single Drain3 wrapper: named masks, a pre-mask cache, learn vs match.

Why not hand every line to drain3? Its own masking runs each regex on every line and the
tree search runs on every line, ~30k lines/s. Training logs repeat a few hundred message
shapes millions of times with different numbers, so we:

1. key each raw line by its digits zeroed (``str.translate``, C speed) and cache the
   masked form per key: lines that differ only in numbers are masked once;
2. mask with named regexes (``MASKS``: timestamps, IPs, paths, ranks, iterations, ...),
   so each occurrence can give back its node/rank/iteration parameters;
3. let Drain see only the unique masked lines.

Steps 1-2 live in ``scan`` (``scan_lines``, one Python step per line) and ``fastscan`` (the
same tables a chunk at a time); the per-file scan is a pure function, so it runs in worker
processes or as Ray tasks (``engine_ray``, chosen with ``using_engine``); ``Miner`` (step 3)
then assigns template ids in the parent. A ``Miner`` built on
one job can be frozen and used to *match* another job without changing its templates;
lines it does not know get new ids from an overlay miner (the cross-job filter relies on
this: the same message maps to the same event in both jobs).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
from drain3.template_miner import TemplateMiner as _DrainMiner
from drain3.template_miner_config import TemplateMinerConfig

from . import fastscan
from .ingest import Job, SourceFile, open_job, read_texts
from .records import NodeLog
from .scan import (  # noqa: F401  (re-exported: the public home of masks and the line scan)
    _ITER_VALUE,
    _ZERO_DIGITS,
    LEVEL_CODES,
    MASKS,
    SAMPLES_PER_KEY,
    Mask,
    Masker,
    NodeScan,
    scan_lines,
    unprefixed,
)
from .workers import worker_pool

NOVEL_OFFSET = 1_000_000  # ids of templates an overlay miner learns on top of a frozen one


def miner_config(similarity: float = 0.5) -> TemplateMinerConfig:
    """Explicit Drain settings (without a config object drain3 reads drain3.ini from the cwd).

    ``similarity`` 1.0 never merges two different lines into one template (``prior``'s
    matcher holds finished templates and must keep each one apart)."""
    config = TemplateMinerConfig()
    config.drain_depth = 4
    config.drain_sim_th = similarity
    config.drain_max_children = 100
    config.drain_max_clusters = None
    config.masking_instructions = []  # we pre-mask: see Masker
    config.parametrize_numeric_tokens = False  # numbers are already masked; keep codes like EZ9999
    config.profiling_enabled = False
    return config


class Miner:
    """Drain over masked lines. ``learn`` adds/updates templates, ``match`` never changes them.

    With a ``base`` miner, ``classify`` first matches against the frozen base and learns
    only what the base does not know, under ids >= ``NOVEL_OFFSET``.
    """

    def __init__(self, base: Miner | None = None, similarity: float = 0.5) -> None:
        self._drain = _DrainMiner(config=miner_config(similarity))
        self.base = base
        self._ids: dict[str, int] = {}  # masked text -> template id (memo)

    # Drain routes a line by its first token: a launcher's prefix ("[rank6]: ") there makes every
    # line of a file look alike, and "    raise ValueError('num_moe_experts must be non None to use
    # expert-parallel.')" became one template with the "ValueError: ..." it raises (Ascend/MindSpeed-MM
    # 1842's traceback, one rank's prefix on every line). Lines are mined without it.
    def learn(self, masked: str) -> int:
        result = self._drain.add_log_message(unprefixed(masked))
        return int(result["cluster_id"])

    def match(self, masked: str) -> int | None:
        cluster = self._drain.match(unprefixed(masked), full_search_strategy="fallback")
        return None if cluster is None else int(cluster.cluster_id)

    def classify(self, masked: str) -> int:
        """Template id of a masked line: the base's if it knows it, else a (new) own one."""
        tid = self._ids.get(masked)
        if tid is not None:
            return tid
        if self.base is not None:
            base_id = self.base.match(masked)
            if base_id is not None:
                self._ids[masked] = base_id
                return base_id
            tid = NOVEL_OFFSET + self.learn(masked)
        else:
            tid = self.learn(masked)
        self._ids[masked] = tid
        return tid

    def template(self, tid: int) -> str:
        if tid >= NOVEL_OFFSET and self.base is not None:
            cluster = self._drain.drain.id_to_cluster.get(tid - NOVEL_OFFSET)
        elif self.base is not None:
            return self.base.template(tid)
        else:
            cluster = self._drain.drain.id_to_cluster.get(tid)
        return cluster.get_template() if cluster is not None else "<unknown template>"

    def templates(self) -> dict[int, str]:
        own = {
            (NOVEL_OFFSET if self.base is not None else 0) + c.cluster_id: c.get_template()
            for c in self._drain.drain.clusters
        }
        if self.base is not None:
            return {**self.base.templates(), **own}
        return own

    def __len__(self) -> int:
        return len(self._drain.drain.clusters) + (len(self.base) if self.base else 0)

    def dumps(self) -> bytes:
        """Serialise the templates (not the base) for the normal-job pool."""
        return pickle.dumps(self._drain.drain, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def loads(cls, data: bytes) -> Miner:
        miner = cls()
        miner._drain.drain = pickle.loads(data)
        return miner


def assign_templates(scans: Iterable[NodeScan], miner: Miner) -> list[list[int]]:
    """Template id of each unique key, per scan in order (aligned with ``NodeScan.keys``).

    Per scan, not per node name: two console files of one job both hold a ``rank2``, and
    one file's ids must never land on the other's lines."""
    return [[miner.classify(key) for key in scan.keys] for scan in scans]


# ------------------------------------------------------------------------ a whole job

PARALLEL_MIN_BYTES = 32 * 1024 * 1024  # below this, process start-up costs more than it saves

Progress = Callable[[str, int, int], None]  # (stage, done, total)

@dataclass
class MinedJob:
    job: Job
    miner: Miner
    nodes: dict[str, NodeLog]
    timings: dict[str, float] = field(default_factory=dict)
    # Readings derived from the mined lines alone (routine work's templates), computed once per
    # job however many extractors ask; a copy with imputed times shares them (same templates).
    derived: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    @property
    def warnings(self) -> list[str]:
        return self.job.warnings

    def line_count(self) -> int:
        return sum(len(n) for n in self.nodes.values())

    def line_texts(self, wanted: dict[str, set[int]]) -> dict[tuple[str, int], str]:
        """Raw text of selected lines (node -> line numbers), re-read from their files, each file
        once and only up to its last wanted line."""
        by_source: dict[Path, dict[tuple[str, int], str]] = {}  # path -> (stream, line) -> node
        for node, lines in wanted.items():
            log = self.nodes.get(node)
            if log is not None and lines:
                stream = log.stream or node
                by_source.setdefault(log.source, {}).update({(stream, n): node for n in lines})
        texts: dict[tuple[str, int], str] = {}
        sources = {s.path: s for s in self.job.sources}
        for path, want in by_source.items():
            last = max(n for _, n in want)
            for stream, lineno, text in read_texts(sources[path], []):
                if lineno > last:
                    break
                owner = want.get((stream, lineno))
                if owner is not None:
                    texts[(owner, lineno)] = text  # a message glued after a bar is read after it: the message wins
        return texts

    def template_counts(self) -> Counter[int]:
        counts: Counter[int] = Counter()
        for node in self.nodes.values():
            ids, n = np.unique(node.template, return_counts=True)
            counts.update(dict(zip(ids.tolist(), n.tolist(), strict=True)))
        return counts


class Engine(Protocol):
    """Where the per-file scans run (``engine_ray.RayEngine``); the default is this machine."""

    def scan(self, job: Job, progress: Progress | None = None) -> list[tuple[SourceFile, NodeScan]]: ...


ENGINE: ContextVar[Engine | None] = ContextVar("l4_engine", default=None)


@contextlib.contextmanager
def using_engine(engine: Engine | None) -> Iterator[None]:
    """Run every ``mine_job`` inside on ``engine`` (the CLI's --engine; None: local processes)."""
    token = ENGINE.set(engine)
    try:
        yield
    finally:
        ENGINE.reset(token)
        close = getattr(engine, "close", None)
        if close is not None:
            close()


def _scan_all(job: Job, workers: int | None, progress: Progress | None) -> list[tuple[SourceFile, NodeScan]]:
    engine = ENGINE.get()
    if engine is not None:
        return engine.scan(job, progress)
    total_bytes = sum(s.path.stat().st_size for s in job.sources)
    workers = workers if workers is not None else (os.cpu_count() or 1)
    results: list[tuple[SourceFile, NodeScan]] = []
    n = len(job.sources)
    parallel = workers > 1 and n > 1 and total_bytes >= PARALLEL_MIN_BYTES
    lines = 0
    if progress:
        progress("read", 0, n)
    with contextlib.ExitStack() as stack:
        if parallel:  # one file per task, so a worker holds one open file at a time
            pool = stack.enter_context(worker_pool(min(workers, n)))
            scanned: Iterable[tuple[list[NodeScan], list[str]]] = pool.map(fastscan.scan_source, job.sources, chunksize=1)
        else:
            scanned = map(fastscan.scan_source, job.sources)
        for done, (source, (scans, warnings)) in enumerate(zip(job.sources, scanned, strict=True), 1):
            job.warnings.extend(warnings)
            results.extend((source, scan) for scan in scans)
            lines += sum(len(scan) for scan in scans)
            if progress:
                progress("read", done, n)
                progress("lines", lines, 0)
    return results


def mine_job(
    job_path: Path | str | Job,
    base: Miner | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    miner: Miner | None = None,
) -> MinedJob:
    """Read every file of a job and give each line a template id.

    With ``base`` (a miner learned on normal jobs) templates are matched against it first;
    with ``miner`` the job is learned into that (shared) miner instead of a new one.
    """
    t0 = time.perf_counter()
    job = job_path if isinstance(job_path, Job) else open_job(job_path)
    scanned = _scan_all(job, workers, progress)
    t1 = time.perf_counter()
    miner = miner if miner is not None else Miner(base=base)
    key_ids = assign_templates((scan for _, scan in scanned), miner)
    # A rank two files both hold (restarts, or a console beside rank2.log) is named with its
    # file (CONTRACTS: slurm-117/rank3), so no file's lines are ever merged into another's.
    sources_of = Counter(scan.node for _, scan in scanned if len(scan))
    # Lines before a file's first timestamp happened before it (only those lack a time: the
    # rest inherit the file's last stamp), in every rank stream of a console, not only in the
    # stream that printed the stamp.
    file_first: dict[Path, tuple[int, float]] = {}
    for source, scan in scanned:
        ts_all = np.frombuffer(scan.ts, dtype=np.float64)
        finite = np.flatnonzero(~np.isnan(ts_all))
        if len(finite):
            line = int(np.frombuffer(scan.lineno, dtype=np.int32)[finite[0]])
            if source.path not in file_first or line < file_first[source.path][0]:
                file_first[source.path] = (line, float(ts_all[finite[0]]))
    nodes: dict[str, NodeLog] = {}
    for index, (source, scan) in enumerate(scanned):
        if not len(scan):
            continue
        ids = np.asarray(key_ids[index], dtype=np.int64)
        key_of_line = np.frombuffer(scan.key_of_line, dtype=np.int32)
        samples: dict[int, list[str]] = {}
        last_text: dict[int, str] = {}
        for key_index, tid in enumerate(ids.tolist()):
            samples.setdefault(tid, []).extend(scan.samples[key_index])
            last_text[tid] = scan.last_sample[key_index]
        name = scan.node
        if sources_of[scan.node] > 1 and scan.node != source.node:
            name = f"{source.node}/{scan.node}"
        if name in nodes:
            name = f"{name}@{source.path.name}"
        ts = np.frombuffer(scan.ts, dtype=np.float64).copy()
        if source.path in file_first:
            ts[np.isnan(ts)] = file_first[source.path][1]
        nodes[name] = NodeLog(
            node=name,
            source=source.path,
            template=ids[key_of_line],
            lineno=np.frombuffer(scan.lineno, dtype=np.int32).copy(),
            ts=ts,
            stamped=np.frombuffer(scan.stamped, dtype=np.int8).astype(bool),
            level=np.frombuffer(scan.level, dtype=np.int8).copy(),
            iteration=np.frombuffer(scan.iteration, dtype=np.int32).copy(),
            samples=samples,
            last_text=last_text,
            stream=scan.node,
        )
    t2 = time.perf_counter()
    return MinedJob(job=job, miner=miner, nodes=nodes, timings={"read_and_mask": t1 - t0, "templates": t2 - t1})


@dataclass
class ParseSummary:
    job: str
    files: int
    nodes: int
    lines: int
    templates: int
    top_templates: list[tuple[int, int, str]]  # (id, count, template)
    per_node_lines: dict[str, int]
    timings: dict[str, float]
    warnings: list[str]

    def to_json_dict(self) -> dict[str, object]:
        return {
            "job": self.job,
            "files": self.files,
            "nodes": self.nodes,
            "lines": self.lines,
            "templates": self.templates,
            "top_templates": [{"id": i, "count": c, "template": t} for i, c, t in self.top_templates],
            "per_node_lines": self.per_node_lines,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "warnings": self.warnings,
        }


def parse_job(job_path: Path | str, top: int = 10, workers: int | None = None, progress: Progress | None = None) -> ParseSummary:
    """Ingest and mine a job; summarise nodes, lines and templates."""
    mined = mine_job(job_path, workers=workers, progress=progress)
    counts = mined.template_counts()
    return ParseSummary(
        job=str(job_path),
        files=len(mined.job.sources),
        nodes=len(mined.nodes),
        lines=mined.line_count(),
        templates=len(counts),
        top_templates=[(tid, c, mined.miner.template(tid)) for tid, c in counts.most_common(top)],
        per_node_lines={name: len(log) for name, log in sorted(mined.nodes.items())},
        timings=mined.timings,
        warnings=list(mined.warnings),
    )
