"""The stages end to end: ingest -> mine -> (extract -> retrieve -> reason), with timings.

Per-file scanning (read, timestamp, mask, de-duplicate) is the only work proportional to
the log volume, so it runs in worker processes when the job is large; template
assignment and everything after it work on the much smaller unique-message tables.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .ingest import Job, SourceFile, open_job, read_lines
from .mining import Miner, NodeScan, assign_templates, scan_lines

PARALLEL_MIN_BYTES = 32 * 1024 * 1024  # below this, process start-up costs more than it saves

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class NodeLog:
    """One node's lines as arrays, aligned by position (line order in its file)."""

    node: str
    source: Path
    template: np.ndarray  # int64 template id per line
    lineno: np.ndarray  # int32
    ts: np.ndarray  # float64, NaN unknown
    level: np.ndarray  # int8 LEVEL_CODES
    iteration: np.ndarray  # int32, -1 none
    samples: dict[int, list[str]]  # template id -> a few raw texts
    last_text: dict[int, str]  # template id -> last raw text

    def __len__(self) -> int:
        return len(self.lineno)


@dataclass
class MinedJob:
    job: Job
    miner: Miner
    nodes: dict[str, NodeLog]
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def warnings(self) -> list[str]:
        return self.job.warnings

    def line_count(self) -> int:
        return sum(len(n) for n in self.nodes.values())

    def template_counts(self) -> Counter[int]:
        counts: Counter[int] = Counter()
        for node in self.nodes.values():
            ids, n = np.unique(node.template, return_counts=True)
            counts.update(dict(zip(ids.tolist(), n.tolist(), strict=True)))
        return counts


def _scan_source(source: SourceFile) -> tuple[list[NodeScan], list[str]]:
    warnings: list[str] = []
    scans = scan_lines(read_lines(source, warnings))
    return scans, warnings


def _scan_all(job: Job, workers: int | None, progress: Progress | None) -> list[tuple[SourceFile, NodeScan]]:
    total_bytes = sum(s.path.stat().st_size for s in job.sources)
    workers = workers if workers is not None else (os.cpu_count() or 1)
    results: list[tuple[SourceFile, NodeScan]] = []
    n = len(job.sources)
    if workers > 1 and n > 1 and total_bytes >= PARALLEL_MIN_BYTES:
        with ProcessPoolExecutor(max_workers=min(workers, n)) as pool:
            for done, (source, (scans, warnings)) in enumerate(
                zip(job.sources, pool.map(_scan_source, job.sources, chunksize=1), strict=True), 1
            ):
                job.warnings.extend(warnings)
                results.extend((source, scan) for scan in scans)
                if progress:
                    progress("read", done, n)
    else:
        for done, source in enumerate(job.sources, 1):
            scans, warnings = _scan_source(source)
            job.warnings.extend(warnings)
            results.extend((source, scan) for scan in scans)
            if progress:
                progress("read", done, n)
    return results


def mine_job(
    job_path: Path | str | Job,
    base: Miner | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> MinedJob:
    """Read every file of a job and give each line a template id.

    With ``base`` (a miner learned on normal jobs) templates are matched against it first.
    """
    t0 = time.perf_counter()
    job = job_path if isinstance(job_path, Job) else open_job(job_path)
    scanned = _scan_all(job, workers, progress)
    t1 = time.perf_counter()
    miner = Miner(base=base)
    key_ids = assign_templates((scan for _, scan in scanned), miner)
    nodes: dict[str, NodeLog] = {}
    for source, scan in scanned:
        if not len(scan):
            continue
        ids = np.asarray(key_ids[scan.node], dtype=np.int64)
        key_of_line = np.frombuffer(scan.key_of_line, dtype=np.int32)
        samples: dict[int, list[str]] = {}
        last_text: dict[int, str] = {}
        for key_index, tid in enumerate(ids.tolist()):
            samples.setdefault(tid, []).extend(scan.samples[key_index])
            last_text[tid] = scan.last_sample[key_index]
        name = scan.node if scan.node not in nodes else f"{scan.node}@{source.path.name}"
        nodes[name] = NodeLog(
            node=name,
            source=source.path,
            template=ids[key_of_line],
            lineno=np.frombuffer(scan.lineno, dtype=np.int32).copy(),
            ts=np.frombuffer(scan.ts, dtype=np.float64).copy(),
            level=np.frombuffer(scan.level, dtype=np.int8).copy(),
            iteration=np.frombuffer(scan.iteration, dtype=np.int32).copy(),
            samples=samples,
            last_text=last_text,
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
