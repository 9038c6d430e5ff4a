"""Run l4 and the baselines over a dataset's cases, in parallel, one result row per case."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path

from ..config import USE_PRIOR_BY_DEFAULT
from ..mining import MinedJob
from ..pipeline import analyze, fault_library, knowledge_base
from ..schema import Diagnosis, Label
from .baselines import error_count_ranking, error_level_events, error_time_ranking, grep_signatures, rare_event_events
from .cases import Case, load_cases, select
from .metrics import (
    ITERATION_CANDIDATES,
    diagnosis_events,
    first_rank,
    host_rank,
    iteration_hit,
    labeled_events,
    score_events,
    with_file_nodes,
)
from .report import (
    ERROR_COUNT,
    ERROR_LEVEL,
    ERROR_TIME,
    GREP,
    L4,
    RARE_EVENT,
    TOP_K,
    BenchReport,
    CaseResult,
)


def file_nodes(mined: MinedJob) -> dict[str, str]:
    """Node name -> the node name of the file its lines came from (differs for console ranks)."""
    by_path = {s.path: s.node for s in mined.job.sources}
    return {name: by_path.get(log.source, name) for name, log in mined.nodes.items()}


def other_stack_refs(diagnosis: Diagnosis, stack: str) -> list[str]:
    """Knowledge the diagnosis cites that is written for the other accelerator stack."""
    if stack not in ("cuda", "ascend"):
        return []
    kb = knowledge_base()
    out = []
    for ref in diagnosis.knowledge:
        try:
            doc_stack = kb.get(ref.id).stack
        except Exception:  # a user pattern: no stack
            continue
        if doc_stack not in ("any", stack):
            out.append(ref.id)
    return out


def score_case(row: CaseResult, diagnosis: Diagnosis, mined: MinedJob, label: Label) -> None:
    """Fill ``row`` with ours and the baselines' scores for one analysed case."""
    row.predicted_category = diagnosis.category
    row.predicted_subcategory = diagnosis.subcategory
    row.predicted_symptom = diagnosis.symptom
    row.predicted_stage = diagnosis.stage
    row.predicted_iterations = list(diagnosis.iterations[:ITERATION_CANDIDATES])
    ranked = [n.node for n in diagnosis.faulty_nodes]
    row.predicted_nodes = ranked[: max(TOP_K)]
    row.iteration_hit = iteration_hit(diagnosis.iterations, label.iterations)
    row.lines = mined.line_count()
    row.other_stack_advice = other_stack_refs(diagnosis, label.stack)
    row.unknown_nodes = [n.node for n in diagnosis.faulty_nodes if n.node not in mined.nodes]
    grep = grep_signatures(mined, fault_library())
    row.grep_category, row.grep_subcategory, row.grep_seconds = grep.category, grep.subcategory, grep.seconds
    truth = labeled_events(label)
    file_of = file_nodes(mined)
    row.events = {
        L4: score_events(with_file_nodes(diagnosis_events(diagnosis), file_of), truth),
        GREP: score_events(with_file_nodes(grep.events, file_of), truth) if truth else None,
        ERROR_LEVEL: score_events(with_file_nodes(error_level_events(mined), file_of), truth) if truth else None,
        RARE_EVENT: score_events(with_file_nodes(rare_event_events(mined), file_of), truth) if truth else None,
    }
    rankings: dict[str, list[tuple[str, list[str]]]] = {
        L4: [(n.node, list(n.aliases)) for n in diagnosis.faulty_nodes],
        GREP: [(n, []) for n in grep.nodes],
        ERROR_TIME: [(n, []) for n in error_time_ranking(mined)],
        ERROR_COUNT: [(n, []) for n in error_count_ranking(mined)],
    }
    if label.faulty_nodes:
        row.node_rank = {m: first_rank([n for n, _ in r], label.faulty_nodes) for m, r in rankings.items()}
    if label.hosts:
        row.host_rank = {m: host_rank(r, label) for m, r in rankings.items()}


def bench_case(case: Case, use_normal: bool = True, use_prior: bool = USE_PRIOR_BY_DEFAULT) -> CaseResult:
    """Analyse and score one case; never raises for a failing case (it becomes an error row)."""
    row = CaseResult.for_case(case)
    t0 = time.perf_counter()
    try:
        # `analyze` is looked up here at call time, so tests can monkeypatch agent.bench.run.analyze.
        # The dataset's own normal jobs are the only history: never the pool in L4_HOME.
        analysis = analyze(case.job_dir, normal_jobs=case.normal_jobs if use_normal else [],
                           setting=case.label.setting, use_pool=False, workers=1, use_prior=use_prior)
    except Exception as exc:
        row.error = f"analyze failed: {type(exc).__name__}: {exc}"
        return row
    row.seconds = time.perf_counter() - t0
    try:
        score_case(row, analysis.diagnosis, analysis.mined, case.label)
    except Exception as exc:  # a malformed diagnosis must not sink the whole run
        row.error = f"scoring failed: {type(exc).__name__}: {exc}"
    return row


def run_bench(
    dataset: Path,
    *,
    split: str | None = None,
    use_normal: bool = True,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    limit: int | None = None,
    use_prior: bool = USE_PRIOR_BY_DEFAULT,
    warn: Callable[[str], None] | None = None,
) -> BenchReport:
    """Analyse and score every case of ``dataset`` (optionally one split, the first ``limit``).

    Cases run in parallel over a process pool (``workers`` defaults to the CPU count;
    ``workers=1`` runs in this process). Results keep case order; ``progress(done, total)``
    is called as each case finishes. ``warn`` hears about label fields CONTRACTS does not define
    (ignored); without it they are an error.
    """
    t0 = time.perf_counter()
    cases = select(Path(dataset), load_cases(Path(dataset), warn), split)
    if limit is not None:
        cases = cases[: max(limit, 0)]
    total = len(cases)
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    rows: list[CaseResult | None] = [None] * total
    if workers == 1 or total <= 1:
        for i, case in enumerate(cases):
            rows[i] = bench_case(case, use_normal, use_prior)
            if progress:
                progress(i + 1, total)
    else:
        with ProcessPoolExecutor(max_workers=min(workers, total)) as pool:
            futures: dict[Future[CaseResult], int] = {
                pool.submit(bench_case, case, use_normal, use_prior): i for i, case in enumerate(cases)
            }
            for done, future in enumerate(as_completed(futures), 1):
                i = futures[future]
                try:
                    rows[i] = future.result()
                except Exception as exc:  # the worker itself died (e.g. out of memory)
                    row = CaseResult.for_case(cases[i])
                    row.error = f"worker failed: {type(exc).__name__}: {exc}"
                    rows[i] = row
                if progress:
                    progress(done, total)
    done_rows = [r for r in rows if r is not None]
    return BenchReport.build(str(dataset), split, use_normal, done_rows, time.perf_counter() - t0, use_prior)
