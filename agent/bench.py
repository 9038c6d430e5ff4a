"""Score l4 on a labeled dataset (``l4 bench DATASET``), side by side with the paper's baselines.

Why: a change to mining, extraction or reasoning must show up as a number. The L4 paper
(§6, restated in shared/research/l4-paper.md §4) evaluates two things, and we score them
the same way, on the same cases, in the same run:

* **Failure-indicating events** (RQ4): precision, recall and F1 of the output events
  against the labeled fault events. An output event *matches* a labeled fault event when
  its ``occurrences`` include one of that fault event's labeled ``(node, line)`` pairs.
  Per case: precision = matched output events / output events (0 when nothing is output),
  recall = matched labeled events / labeled events, F1 their harmonic mean (0 when both
  are 0). Overall: the mean precision and mean recall over cases, and F1 = the harmonic
  mean of those two means (the paper's "average scores": its F1 column is the harmonic
  mean of its P and R columns); the mean of per-case F1 is reported too. Cases whose
  label has no fault events are not event-scored.
* **Faulty nodes** (RQ5): top-k accuracy for k in 1, 3, 5, 8 over the cases whose label
  names faulty nodes: a hit@k when any labeled faulty node is among the first k nodes
  output. The paper restricts RQ5 to its hardware cases; here any labeled node counts.

The paper reports no quantitative stage or iteration numbers (§4.4); we add them:
stage / category / subcategory / symptom accuracy (exact match with the label), and an
iteration hit when one of the first three reported iterations is within
``max(2, 1% of label.iterations[0])`` of it (over cases with labeled iterations), and
the wall seconds of ``analyze`` per case.

Baselines, computed from the very ``MinedJob`` that ``analyze`` returns (no re-reading):

* nodes: **Error_time** (earliest first ERROR/CRITICAL line) and **Error_count** (most
  ERROR/CRITICAL lines), the two heuristics of the paper's RQ5;
* events: an **error-level filter** and a **rare-event filter**, the two signals the paper
  shows fall short (§4.1, Fig. 4a/4b). Its RQ4 baselines (LogAnomaly, LogRobust,
  NeuralLog) are supervised models we do not reimplement.

A case whose ``analyze`` raises becomes an error row; error rows are left out of every
metric (ours and the baselines', which need the mined job) and counted in ``errors``.
Every metric is also broken down by stack, by category and by symptom.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from .errors import ConfigError, DatasetError
from .mining import LEVEL_CODES
from .pipeline import MinedJob, analyze
from .schema import Diagnosis, Label

ERROR_MIN = LEVEL_CODES["ERROR"]  # ERROR (4) and CRITICAL (5) count as error lines
TOP_K: tuple[int, ...] = (1, 3, 5, 8)
ITERATION_CANDIDATES = 3  # a consumer reads the first three reported iterations
SPLITS: tuple[str, ...] = ("train", "test")

# Method keys, as used in CaseResult/Summary dicts, and how tables name them.
L4 = "l4"
ERROR_LEVEL = "error_level"
RARE_EVENT = "rare_event"
ERROR_TIME = "error_time"
ERROR_COUNT = "error_count"
EVENT_METHODS: tuple[str, ...] = (L4, ERROR_LEVEL, RARE_EVENT)
NODE_METHODS: tuple[str, ...] = (L4, ERROR_TIME, ERROR_COUNT)
DISPLAY = {L4: "l4", ERROR_LEVEL: "error-level", RARE_EVENT: "rare-event", ERROR_TIME: "Error_time",
           ERROR_COUNT: "Error_count"}
GROUP_BY: tuple[str, ...] = ("stack", "category", "symptom")
SUMMARY_COLUMNS: tuple[str, ...] = ("metric", "cases", *(DISPLAY[m] for m in (L4, ERROR_LEVEL, RARE_EVENT,
                                                                            ERROR_TIME, ERROR_COUNT)))

Occurrences = dict[str, np.ndarray]  # node -> sorted line numbers of one event


# ------------------------------------------------------------------------------ dataset


@dataclass
class Case:
    """One labeled failed job of a dataset."""

    case_id: str
    job_dir: Path  # DATASET/cases/<id>/logs
    label: Label
    normal_jobs: list[Path] = field(default_factory=list)  # DATASET/normal/<setting>/*/logs


def _read_label(path: Path) -> Label:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: missing", "every case needs a label.json (see CONTRACTS.md)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{path}: not readable JSON ({exc})", "fix or regenerate the label") from None
    try:
        label = Label.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}" for err in exc.errors()
        )
        raise DatasetError(f"{path}: invalid label: {problems}", "see label.json in CONTRACTS.md") from None
    for event in label.fault_events:
        if not any(event.lines.values()):
            raise DatasetError(f"{path}: fault event {event.id!r} lists no lines", "give its (node, line) pairs")
    return label


def load_cases(dataset: Path) -> list[Case]:
    """Every case of ``dataset`` in case-id order, labels validated.

    Raises ``DatasetError`` naming the file and the problem on a missing or bad label,
    a case without ``logs/``, or a dataset without cases.
    """
    dataset = Path(dataset)
    cases_dir = dataset / "cases"
    if not cases_dir.is_dir():
        raise DatasetError(f"{dataset}: no cases/ directory", "a dataset is DATASET/cases/<id>/{logs,label.json}")
    cases: list[Case] = []
    for case_dir in sorted(p for p in cases_dir.iterdir() if p.is_dir()):
        label = _read_label(case_dir / "label.json")
        job_dir = case_dir / "logs"
        if not job_dir.is_dir():
            raise DatasetError(f"{job_dir}: missing", "put the case's log files under logs/")
        normal_root = dataset / "normal" / label.setting
        jobs = normal_root.iterdir() if normal_root.is_dir() else iter(())
        normal = sorted(p / "logs" for p in jobs if (p / "logs").is_dir())
        cases.append(Case(case_dir.name, job_dir, label, normal))
    if not cases:
        raise DatasetError(f"{cases_dir}: no cases", "a dataset needs at least one cases/<id>/ directory")
    return cases


def split_of(case_id: str) -> str:
    """``"train"`` or ``"test"``, ~50/50, from sha256 of the id alone (stable across runs and content)."""
    return SPLITS[hashlib.sha256(case_id.encode("utf-8")).digest()[0] & 1]


# ------------------------------------------------------------------------------ scoring


@dataclass
class OutputEvent:
    """An event as scored: a template (id for baselines, text for l4) and where it occurs."""

    template: int | str
    occurrences: Occurrences


@dataclass
class EventScore:
    precision: float
    recall: float
    f1: float
    output: int  # events output
    output_matched: int
    labeled: int  # labeled fault events
    labeled_matched: int


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def labeled_events(label: Label) -> list[Occurrences]:
    return [{node: np.unique(np.asarray(lines, dtype=np.int64)) for node, lines in fe.lines.items() if lines}
            for fe in label.fault_events]


def diagnosis_events(diagnosis: Diagnosis) -> list[OutputEvent]:
    events: list[OutputEvent] = []
    for ev in diagnosis.events:
        per_node: dict[str, list[int]] = {}
        for occ in ev.occurrences:
            per_node.setdefault(occ.node, []).append(occ.line)
        occurrences = {n: np.unique(np.asarray(v, dtype=np.int64)) for n, v in per_node.items()}
        events.append(OutputEvent(ev.template, occurrences))
    return events


def score_events(output: Sequence[OutputEvent], labeled: Sequence[Occurrences]) -> EventScore | None:
    """Per-case P/R/F1 (module docstring); None when the label has no fault events."""
    if not labeled:
        return None
    # node -> (labeled lines, index of their fault event), so each output event costs one
    # np.isin per labeled node it touches, however many nodes it spans.
    index: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for node in {n for ev in labeled for n in ev}:
        lines = [ev[node] for ev in labeled if node in ev]
        owners = [np.full(len(ev[node]), j) for j, ev in enumerate(labeled) if node in ev]
        index[node] = (np.concatenate(lines), np.concatenate(owners))
    matched_labeled: set[int] = set()
    matched_out = 0
    for ev in output:
        hit: set[int] = set()
        for node in ev.occurrences.keys() & index.keys():
            node_lines, node_owners = index[node]
            hit.update(node_owners[np.isin(node_lines, ev.occurrences[node])].tolist())
        if hit:
            matched_out += 1
            matched_labeled |= hit
    precision = matched_out / len(output) if output else 0.0
    recall = len(matched_labeled) / len(labeled)
    return EventScore(precision, recall, _f1(precision, recall), len(output), matched_out, len(labeled),
                      len(matched_labeled))


def first_rank(ranked: Sequence[str], faulty: Iterable[str]) -> int | None:
    """1-based rank of the best-placed labeled faulty node in ``ranked``; None when absent."""
    wanted = set(faulty)
    return next((i for i, node in enumerate(ranked, 1) if node in wanted), None)


def iteration_hit(predicted: Sequence[int], labeled: Sequence[int]) -> bool | None:
    """One of the first three predicted within max(2, 1% of labeled[0]); None when unlabeled."""
    if not labeled:
        return None
    target = labeled[0]
    tolerance = max(2.0, 0.01 * abs(target))
    return any(abs(it - target) <= tolerance for it in predicted[:ITERATION_CANDIDATES])


# ---------------------------------------------------------------------------- baselines


def error_time_ranking(mined: MinedJob) -> list[str]:
    """Error_time: nodes by the timestamp of their first ERROR/CRITICAL line, earliest first.

    The first error line with a known timestamp is used. Nodes with error lines but no
    timestamp on any of them come next, then nodes without error lines; ties by name.
    """
    keys: list[tuple[int, float, str]] = []
    for name, log in mined.nodes.items():
        ts = log.ts[log.level >= ERROR_MIN]
        known = ts[~np.isnan(ts)]
        if len(known):
            keys.append((0, float(known[0]), name))
        else:
            keys.append((1 if len(ts) else 2, 0.0, name))
    return [name for *_, name in sorted(keys)]


def error_count_ranking(mined: MinedJob) -> list[str]:
    """Error_count: nodes by their number of ERROR/CRITICAL lines, most first; ties by name."""
    counts = {name: int(np.count_nonzero(log.level >= ERROR_MIN)) for name, log in mined.nodes.items()}
    return sorted(counts, key=lambda name: (-counts[name], name))


def _events_of_templates(mined: MinedJob, templates: np.ndarray) -> list[OutputEvent]:
    """Every occurrence of each given template, grouped per node, from the NodeLog arrays."""
    per_template: dict[int, Occurrences] = {int(t): {} for t in templates}
    for name, log in mined.nodes.items():
        selected = np.isin(log.template, templates)
        if not selected.any():
            continue
        tids, lines = log.template[selected], log.lineno[selected].astype(np.int64)
        order = np.argsort(tids, kind="stable")  # keeps line order inside each template
        tids, lines = tids[order], lines[order]
        starts = np.flatnonzero(np.r_[True, tids[1:] != tids[:-1]])
        for tid, chunk in zip(tids[starts].tolist(), np.split(lines, starts[1:]), strict=True):
            per_template[tid][name] = chunk
    return [OutputEvent(tid, occ) for tid, occ in per_template.items()]


def _template_counts(mined: MinedJob) -> tuple[np.ndarray, np.ndarray]:
    """(template ids, line counts in the whole job), ids ascending."""
    ids: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    for log in mined.nodes.values():
        i, c = np.unique(log.template, return_counts=True)
        ids.append(i)
        counts.append(c)
    if not ids:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    all_ids, inverse = np.unique(np.concatenate(ids), return_inverse=True)
    return all_ids, np.bincount(inverse, weights=np.concatenate(counts)).astype(np.int64)


def error_level_events(mined: MinedJob) -> list[OutputEvent]:
    """Error-level filter: every template with at least one ERROR/CRITICAL line, all its occurrences."""
    err = [np.unique(log.template[log.level >= ERROR_MIN]) for log in mined.nodes.values()]
    templates = np.unique(np.concatenate(err)) if err else np.empty(0, np.int64)
    return _events_of_templates(mined, templates)


def rare_event_events(mined: MinedJob) -> list[OutputEvent]:
    """Rare-event filter: the templates in the lowest quartile of template counts.

    Exact rule: count each template's lines over the whole job (all nodes); let q be the
    25th percentile of those per-template counts, taken as an observed count
    (``np.percentile(..., 25, method="lower")``); every template whose count is <= q is
    an output event, with all its occurrences. Ties at q are all kept, so the share can
    exceed a quarter (e.g. when many templates occur once).
    """
    ids, counts = _template_counts(mined)
    if not len(ids):
        return []
    q = np.percentile(counts, 25, method="lower")
    return _events_of_templates(mined, ids[counts <= q])


# ------------------------------------------------------------------------------ results


@dataclass
class CaseResult:
    case_id: str
    split: str
    setting: str
    stack: str
    category: str
    subcategory: str
    symptom: str
    stage: str
    faulty_nodes: list[str]
    iterations: list[int]
    predicted_category: str | None = None
    predicted_subcategory: str | None = None
    predicted_symptom: str | None = None
    predicted_stage: str | None = None
    predicted_iterations: list[int] = field(default_factory=list)  # the first three
    predicted_nodes: list[str] = field(default_factory=list)  # the first eight
    events: dict[str, EventScore | None] = field(default_factory=dict)  # per EVENT_METHODS
    node_rank: dict[str, int | None] = field(default_factory=dict)  # per NODE_METHODS
    iteration_hit: bool | None = None
    lines: int = 0
    seconds: float | None = None  # wall seconds of analyze
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @classmethod
    def for_case(cls, case: Case) -> CaseResult:
        lb = case.label
        return cls(case.case_id, split_of(case.case_id), lb.setting, lb.stack, lb.category, lb.subcategory,
                   lb.symptom, lb.stage, list(lb.faulty_nodes), list(lb.iterations))


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
    truth = labeled_events(label)
    row.events = {
        L4: score_events(diagnosis_events(diagnosis), truth),
        ERROR_LEVEL: score_events(error_level_events(mined), truth) if truth else None,
        RARE_EVENT: score_events(rare_event_events(mined), truth) if truth else None,
    }
    if label.faulty_nodes:
        row.node_rank = {
            L4: first_rank(ranked, label.faulty_nodes),
            ERROR_TIME: first_rank(error_time_ranking(mined), label.faulty_nodes),
            ERROR_COUNT: first_rank(error_count_ranking(mined), label.faulty_nodes),
        }


def bench_case(case: Case, use_normal: bool = True) -> CaseResult:
    """Analyse and score one case; never raises for a failing case (it becomes an error row)."""
    row = CaseResult.for_case(case)
    t0 = time.perf_counter()
    try:
        # `analyze` is looked up here at call time, so tests can monkeypatch agent.bench.analyze.
        # The dataset's own normal jobs are the only history: never the pool in L4_HOME.
        analysis = analyze(case.job_dir, normal_jobs=case.normal_jobs if use_normal else [],
                           setting=case.label.setting, use_pool=False, workers=1)
    except Exception as exc:
        row.error = f"analyze failed: {type(exc).__name__}: {exc}"
        return row
    row.seconds = time.perf_counter() - t0
    try:
        score_case(row, analysis.diagnosis, analysis.mined, case.label)
    except Exception as exc:  # a malformed diagnosis must not sink the whole run
        row.error = f"scoring failed: {type(exc).__name__}: {exc}"
    return row


# ---------------------------------------------------------------------------- summaries


@dataclass
class Rate:
    n: int  # cases the metric applies to
    hits: int

    @property
    def value(self) -> float | None:
        return self.hits / self.n if self.n else None


@dataclass
class EventSummary:
    n: int
    precision: float | None  # mean over cases
    recall: float | None  # mean over cases
    f1: float | None  # harmonic mean of the two means (the paper's way)
    mean_case_f1: float | None


@dataclass
class NodeSummary:
    n: int
    top: dict[int, Rate]  # k -> hits@k


@dataclass
class Summary:
    cases: int
    errors: int
    events: dict[str, EventSummary]
    nodes: dict[str, NodeSummary]
    stage: Rate
    iteration: Rate
    category: Rate
    subcategory: Rate
    symptom: Rate
    seconds_mean: float | None
    seconds_median: float | None


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(rows: Sequence[CaseResult]) -> Summary:
    """Aggregate case rows (error rows only counted in ``errors``)."""
    ok = [r for r in rows if r.ok]
    events: dict[str, EventSummary] = {}
    for method in EVENT_METHODS:
        scores = [s for r in ok if (s := r.events.get(method)) is not None]
        p, rc = _mean([s.precision for s in scores]), _mean([s.recall for s in scores])
        events[method] = EventSummary(len(scores), p, rc, _f1(p, rc) if p is not None and rc is not None else None,
                                      _mean([s.f1 for s in scores]))
    with_nodes = [r for r in ok if r.faulty_nodes]
    nodes: dict[str, NodeSummary] = {}
    for method in NODE_METHODS:
        ranks = [r.node_rank.get(method) for r in with_nodes]
        nodes[method] = NodeSummary(len(ranks), {k: Rate(len(ranks), sum(1 for x in ranks if x is not None and x <= k))
                                                 for k in TOP_K})
    iters = [r.iteration_hit for r in ok if r.iteration_hit is not None]
    seconds = [r.seconds for r in ok if r.seconds is not None]
    return Summary(
        cases=len(rows),
        errors=len(rows) - len(ok),
        events=events,
        nodes=nodes,
        stage=Rate(len(ok), sum(r.predicted_stage == r.stage for r in ok)),
        iteration=Rate(len(iters), sum(iters)),
        category=Rate(len(ok), sum(r.predicted_category == r.category for r in ok)),
        subcategory=Rate(len(ok), sum(r.predicted_subcategory == r.subcategory for r in ok)),
        symptom=Rate(len(ok), sum(r.predicted_symptom == r.symptom for r in ok)),
        seconds_mean=_mean(seconds),
        seconds_median=statistics.median(seconds) if seconds else None,
    )


def _num(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _pct(rate: Rate) -> str:
    return "—" if rate.value is None else f"{100 * rate.value:.1f}%"


@dataclass
class BenchReport:
    dataset: str
    split: str | None
    use_normal: bool
    cases: list[CaseResult]
    overall: Summary
    groups: dict[str, dict[str, Summary]]  # "stack"/"category"/"symptom" -> value -> summary
    wall_seconds: float = 0.0

    @classmethod
    def build(cls, dataset: str, split: str | None, use_normal: bool, rows: list[CaseResult],
              wall_seconds: float = 0.0) -> BenchReport:
        groups: dict[str, dict[str, Summary]] = {}
        for key in GROUP_BY:
            values = sorted({getattr(r, key) for r in rows})
            groups[key] = {v: summarize([r for r in rows if getattr(r, key) == v]) for v in values}
        return cls(dataset, split, use_normal, rows, summarize(rows), groups, wall_seconds)

    # -- renderings

    def to_json_dict(self) -> dict[str, Any]:
        def summary(s: Summary) -> dict[str, Any]:
            d = asdict(s)
            for name in ("stage", "iteration", "category", "subcategory", "symptom"):
                d[name]["value"] = getattr(s, name).value
            for method, ns in s.nodes.items():
                d["nodes"][method]["top"] = {f"top{k}": {"n": r.n, "hits": r.hits, "value": r.value}
                                             for k, r in ns.top.items()}
            return d

        return {
            "schema": "l4-bench/1",
            "dataset": self.dataset,
            "split": self.split,
            "use_normal": self.use_normal,
            "wall_seconds": self.wall_seconds,
            "overall": summary(self.overall),
            "groups": {key: {v: summary(s) for v, s in by.items()} for key, by in self.groups.items()},
            "cases": [asdict(r) for r in self.cases],
        }

    def summary_rows(self) -> list[tuple[str, ...]]:
        """Rows under ``SUMMARY_COLUMNS``: metric, cases, l4, error-level, rare-event, Error_time, Error_count."""
        s = self.overall
        rows: list[tuple[str, ...]] = []
        ev = s.events
        for name, attr in (("event precision", "precision"), ("event recall", "recall"), ("event F1", "f1"),
                           ("event F1, mean per case", "mean_case_f1")):
            rows.append((name, str(ev[L4].n), *(_num(getattr(ev[m], attr)) for m in EVENT_METHODS), "", ""))
        nd = s.nodes
        for k in TOP_K:
            rows.append((f"faulty node top-{k}", str(nd[L4].n), _pct(nd[L4].top[k]), "", "",
                         _pct(nd[ERROR_TIME].top[k]), _pct(nd[ERROR_COUNT].top[k])))
        for name, rate in (("stage accuracy", s.stage), ("iteration hit", s.iteration),
                           ("category accuracy", s.category), ("subcategory accuracy", s.subcategory),
                           ("symptom accuracy", s.symptom)):
            rows.append((name, str(rate.n), _pct(rate), "", "", "", ""))
        n_timed = str(s.cases - s.errors)
        rows.append(("seconds per case, mean", n_timed, _num(s.seconds_mean, 2), "", "", "", ""))
        rows.append(("seconds per case, median", n_timed, _num(s.seconds_median, 2), "", "", "", ""))
        rows.append(("cases with errors", str(s.cases), str(s.errors), "", "", "", ""))
        return rows

    def to_markdown(self) -> str:
        out = [f"# l4 bench: {self.dataset}", ""]
        split = self.split or "all"
        out.append(f"{self.overall.cases} cases (split: {split}, normal jobs: {'yes' if self.use_normal else 'no'}), "
                   f"{self.overall.errors} errors, {self.wall_seconds:.1f} s wall.")
        out += ["", "## Summary", "", _md_table(SUMMARY_COLUMNS, self.summary_rows())]
        for key, by in self.groups.items():
            out += ["", f"## By {key}", "", _md_table(_GROUP_COLUMNS, [_group_row(v, s) for v, s in by.items()])]
        out += ["", "## Cases", "", _md_table(_CASE_COLUMNS, [_case_row(r) for r in self.cases]), ""]
        return "\n".join(out)


_GROUP_COLUMNS = ("group", "cases", "errors", "events P/R/F1 l4", "F1 error-level", "F1 rare-event",
                  "nodes top-1/3/5/8 l4", "Error_time", "Error_count", "stage", "iteration", "category",
                  "subcategory", "symptom", "s/case")
_CASE_COLUMNS = ("case", "split", "stack", "category", "subcategory", "symptom", "stage", "events P/R/F1",
                 "node rank l4/Error_time/Error_count", "iteration", "s", "error")


def _md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    def esc(cell: str) -> str:
        return cell.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _group_row(value: str, s: Summary) -> tuple[str, ...]:
    ev, nd = s.events, s.nodes

    def topk(method: str) -> str:
        return "/".join(_pct(nd[method].top[k]) for k in TOP_K) if nd[method].n else "—"

    l4 = ev[L4]
    return (value, str(s.cases), str(s.errors), "/".join(_num(x) for x in (l4.precision, l4.recall, l4.f1)),
            _num(ev[ERROR_LEVEL].f1), _num(ev[RARE_EVENT].f1), topk(L4), topk(ERROR_TIME), topk(ERROR_COUNT),
            _pct(s.stage), _pct(s.iteration), _pct(s.category), _pct(s.subcategory), _pct(s.symptom),
            _num(s.seconds_mean, 2))


def _vs(label: str, predicted: str | None) -> str:
    return label if predicted == label else f"{label} ≠ {predicted or '—'}"


def _case_row(r: CaseResult) -> tuple[str, ...]:
    ev = r.events.get(L4)
    events = "—" if ev is None else f"{ev.precision:.2f}/{ev.recall:.2f}/{ev.f1:.2f}"
    ranks = "—" if not r.faulty_nodes or not r.node_rank else "/".join(
        "—" if (x := r.node_rank.get(m)) is None else str(x) for m in NODE_METHODS)
    it = {None: "—", True: "hit", False: "miss"}[r.iteration_hit]
    return (r.case_id, r.split, r.stack, _vs(r.category, r.predicted_category),
            _vs(r.subcategory, r.predicted_subcategory), _vs(r.symptom, r.predicted_symptom),
            _vs(r.stage, r.predicted_stage), events, ranks, it, _num(r.seconds, 2), r.error or "")


# ---------------------------------------------------------------------------------- run


def run_bench(
    dataset: Path,
    *,
    split: str | None = None,
    use_normal: bool = True,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    limit: int | None = None,
) -> BenchReport:
    """Analyse and score every case of ``dataset`` (optionally one split, the first ``limit``).

    Cases run in parallel over a process pool (``workers`` defaults to the CPU count;
    ``workers=1`` runs in this process). Results keep case order; ``progress(done, total)``
    is called as each case finishes.
    """
    if split is not None and split not in SPLITS:
        raise ConfigError(f"unknown split {split!r}", f"use one of {', '.join(SPLITS)}, or none for all cases")
    t0 = time.perf_counter()
    cases = load_cases(Path(dataset))
    if split is not None:
        cases = [c for c in cases if split_of(c.case_id) == split]
    if limit is not None:
        cases = cases[: max(limit, 0)]
    total = len(cases)
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    rows: list[CaseResult | None] = [None] * total
    if workers == 1 or total <= 1:
        for i, case in enumerate(cases):
            rows[i] = bench_case(case, use_normal)
            if progress:
                progress(i + 1, total)
    else:
        with ProcessPoolExecutor(max_workers=min(workers, total)) as pool:
            futures: dict[Future[CaseResult], int] = {
                pool.submit(bench_case, case, use_normal): i for i, case in enumerate(cases)
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
    return BenchReport.build(str(dataset), split, use_normal, done_rows, time.perf_counter() - t0)
