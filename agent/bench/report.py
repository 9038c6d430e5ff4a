"""Per-case results, their summaries, and the bench report in text, JSON and Markdown.

Overall numbers follow the paper's "average scores": event precision and recall are means
over cases and F1 is the harmonic mean of those two means (the mean per-case F1 is given
too). Category and subcategory count a verdict when it is one of the label's ``accept``
readings (the primary alone when a label has none). Node top-k counts cases whose label
names faulty nodes; host top-k counts cases whose label names ``hosts``, and a node is
found when its name or one of its aliases is a labeled node or host.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .cases import Case
from .metrics import EventScore, f1

TOP_K: tuple[int, ...] = (1, 3, 5, 8)
HOST_K: tuple[int, ...] = (1, 3)

# Method keys, as used in CaseResult/Summary dicts, and how tables name them.
L4 = "l4"
GREP = "grep_signatures"
ERROR_LEVEL = "error_level"
RARE_EVENT = "rare_event"
ERROR_TIME = "error_time"
ERROR_COUNT = "error_count"
EVENT_METHODS: tuple[str, ...] = (L4, GREP, ERROR_LEVEL, RARE_EVENT)
NODE_METHODS: tuple[str, ...] = (L4, GREP, ERROR_TIME, ERROR_COUNT)
VERDICT_METHODS: tuple[str, ...] = (L4, GREP)  # methods that name a category
METHODS: tuple[str, ...] = (L4, GREP, ERROR_LEVEL, RARE_EVENT, ERROR_TIME, ERROR_COUNT)
DISPLAY = {L4: "l4", GREP: "grep+signatures", ERROR_LEVEL: "error-level", RARE_EVENT: "rare-event",
           ERROR_TIME: "Error_time", ERROR_COUNT: "Error_count"}
GROUP_BY: tuple[str, ...] = ("split", "stack", "category", "symptom")
SUMMARY_COLUMNS: tuple[str, ...] = ("metric", "cases", *(DISPLAY[m] for m in METHODS))


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
    accept: list[str] = field(default_factory=list)  # defensible "category/subcategory" readings
    hosts: list[str] = field(default_factory=list)
    predicted_category: str | None = None
    predicted_subcategory: str | None = None
    predicted_symptom: str | None = None
    predicted_stage: str | None = None
    predicted_iterations: list[int] = field(default_factory=list)  # the first three
    predicted_nodes: list[str] = field(default_factory=list)  # the first eight
    grep_category: str | None = None
    grep_subcategory: str | None = None
    events: dict[str, EventScore | None] = field(default_factory=dict)  # per EVENT_METHODS
    node_rank: dict[str, int | None] = field(default_factory=dict)  # per NODE_METHODS
    host_rank: dict[str, int | None] = field(default_factory=dict)  # per NODE_METHODS
    iteration_hit: bool | None = None
    lines: int = 0
    seconds: float | None = None  # wall seconds of analyze
    grep_seconds: float | None = None
    other_stack_advice: list[str] = field(default_factory=list)  # knowledge cited for a stack the job does not run
    unknown_nodes: list[str] = field(default_factory=list)  # faulty nodes named that the job does not have
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @classmethod
    def for_case(cls, case: Case) -> CaseResult:
        lb = case.label
        return cls(case.case_id, case.split, lb.setting, lb.stack, lb.category, lb.subcategory,
                   lb.symptom, lb.stage, list(lb.faulty_nodes), list(lb.iterations),
                   accept=list(lb.accept or [lb.primary]), hosts=list(lb.hosts))

    def category_hit(self, method: str = L4) -> bool:
        predicted = self.predicted_category if method == L4 else self.grep_category
        return any(r.partition("/")[0] == predicted for r in self.accept)

    def subcategory_hit(self, method: str = L4) -> bool:
        if method == L4:
            return f"{self.predicted_category}/{self.predicted_subcategory}" in self.accept
        return f"{self.grep_category}/{self.grep_subcategory}" in self.accept


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
    hosts: dict[str, NodeSummary]
    stage: Rate
    iteration: Rate
    category: dict[str, Rate]  # per VERDICT_METHODS
    subcategory: dict[str, Rate]
    symptom: Rate
    seconds_mean: dict[str, float | None]  # per VERDICT_METHODS
    seconds_median: dict[str, float | None]
    other_stack_advice: Rate  # cases citing a doc of the stack the job does not run (target: never)
    unknown_nodes: Rate  # cases naming a node the job does not have (target: never)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _ranks(rows: Sequence[CaseResult], attr: str, method: str, ks: Sequence[int]) -> NodeSummary:
    ranks = [getattr(r, attr).get(method) for r in rows]
    return NodeSummary(len(ranks), {k: Rate(len(ranks), sum(1 for x in ranks if x is not None and x <= k)) for k in ks})


def summarize(rows: Sequence[CaseResult]) -> Summary:
    """Aggregate case rows (error rows only counted in ``errors``)."""
    ok = [r for r in rows if r.ok]
    events: dict[str, EventSummary] = {}
    for method in EVENT_METHODS:
        scores = [s for r in ok if (s := r.events.get(method)) is not None]
        p, rc = _mean([s.precision for s in scores]), _mean([s.recall for s in scores])
        events[method] = EventSummary(len(scores), p, rc, f1(p, rc) if p is not None and rc is not None else None,
                                      _mean([s.f1 for s in scores]))
    with_nodes = [r for r in ok if r.faulty_nodes]
    with_hosts = [r for r in ok if r.hosts]
    iters = [r.iteration_hit for r in ok if r.iteration_hit is not None]
    seconds = {L4: [r.seconds for r in ok if r.seconds is not None],
               GREP: [r.grep_seconds for r in ok if r.grep_seconds is not None]}
    return Summary(
        cases=len(rows),
        errors=len(rows) - len(ok),
        events=events,
        nodes={m: _ranks(with_nodes, "node_rank", m, TOP_K) for m in NODE_METHODS},
        hosts={m: _ranks(with_hosts, "host_rank", m, HOST_K) for m in NODE_METHODS},
        stage=Rate(len(ok), sum(r.predicted_stage == r.stage for r in ok)),
        iteration=Rate(len(iters), sum(iters)),
        category={m: Rate(len(ok), sum(r.category_hit(m) for r in ok)) for m in VERDICT_METHODS},
        subcategory={m: Rate(len(ok), sum(r.subcategory_hit(m) for r in ok)) for m in VERDICT_METHODS},
        symptom=Rate(len(ok), sum(r.predicted_symptom == r.symptom for r in ok)),
        seconds_mean={m: _mean(v) for m, v in seconds.items()},
        seconds_median={m: statistics.median(v) if v else None for m, v in seconds.items()},
        other_stack_advice=Rate(len(ok), sum(bool(r.other_stack_advice) for r in ok)),
        unknown_nodes=Rate(len(ok), sum(bool(r.unknown_nodes) for r in ok)),
    )


def _num(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _pct(rate: Rate) -> str:
    return "—" if rate.value is None else f"{100 * rate.value:.1f}%"


def summary_rows(s: Summary) -> list[tuple[str, ...]]:
    """Rows under ``SUMMARY_COLUMNS``: metric, cases, then one cell per method (blank where it does not apply)."""
    rows: list[tuple[str, ...]] = []

    def row(name: str, n: int, cells: dict[str, str]) -> None:
        rows.append((name, str(n), *(cells.get(m, "") for m in METHODS)))

    for name, attr in (("event precision", "precision"), ("event recall", "recall"), ("event F1", "f1"),
                       ("event F1, mean per case", "mean_case_f1")):
        row(name, s.events[L4].n, {m: _num(getattr(s.events[m], attr)) for m in EVENT_METHODS})
    for name, rates in (("category accuracy", s.category), ("subcategory accuracy", s.subcategory)):
        row(name, rates[L4].n, {m: _pct(rates[m]) for m in VERDICT_METHODS})
    for k in HOST_K:
        row(f"faulty host top-{k}", s.hosts[L4].n, {m: _pct(s.hosts[m].top[k]) for m in NODE_METHODS})
    for k in TOP_K:
        row(f"faulty node top-{k}", s.nodes[L4].n, {m: _pct(s.nodes[m].top[k]) for m in NODE_METHODS})
    for name, rate in (("stage accuracy", s.stage), ("iteration hit", s.iteration), ("symptom accuracy", s.symptom)):
        row(name, rate.n, {L4: _pct(rate)})
    row("advice for another stack (cases)", s.other_stack_advice.n, {L4: str(s.other_stack_advice.hits)})
    row("a node the job lacks (cases)", s.unknown_nodes.n, {L4: str(s.unknown_nodes.hits)})
    n_timed = s.cases - s.errors
    row("seconds per case, mean", n_timed, {m: _num(s.seconds_mean[m], 3) for m in VERDICT_METHODS})
    row("seconds per case, median", n_timed, {m: _num(s.seconds_median[m], 3) for m in VERDICT_METHODS})
    row("cases with errors", s.cases, {L4: str(s.errors)})
    return rows


@dataclass
class BenchReport:
    dataset: str
    split: str | None
    use_normal: bool
    cases: list[CaseResult]
    overall: Summary
    groups: dict[str, dict[str, Summary]]  # "split"/"stack"/"category"/"symptom" -> value -> summary
    wall_seconds: float = 0.0
    use_prior: bool = False  # the shipped prior of healthy runs stood in for missing normal jobs

    @classmethod
    def build(cls, dataset: str, split: str | None, use_normal: bool, rows: list[CaseResult],
              wall_seconds: float = 0.0, use_prior: bool = False) -> BenchReport:
        groups: dict[str, dict[str, Summary]] = {}
        for key in GROUP_BY:
            values = sorted({getattr(r, key) for r in rows})
            groups[key] = {v: summarize([r for r in rows if getattr(r, key) == v]) for v in values}
        return cls(dataset, split, use_normal, rows, summarize(rows), groups, wall_seconds, use_prior)

    def summary_rows(self) -> list[tuple[str, ...]]:
        return summary_rows(self.overall)

    def side_by_side(self) -> dict[str, Summary]:
        """The summaries to print one beside another: each side of a leave-out split, else the whole run."""
        if self.split == "leave-out":
            return dict(self.groups["split"])
        return {self.split or "all": self.overall}

    # -- renderings

    def to_json_dict(self) -> dict[str, Any]:
        def summary(s: Summary) -> dict[str, Any]:
            d = asdict(s)
            for name in ("stage", "iteration", "symptom", "other_stack_advice", "unknown_nodes"):
                d[name]["value"] = getattr(s, name).value
            for name in ("category", "subcategory"):
                for method, rate in getattr(s, name).items():
                    d[name][method]["value"] = rate.value
            for attr in ("nodes", "hosts"):
                for method, ns in getattr(s, attr).items():
                    d[attr][method]["top"] = {f"top{k}": {"n": r.n, "hits": r.hits, "value": r.value}
                                              for k, r in ns.top.items()}
            return d

        return {
            "schema": "l4-bench/2",
            "dataset": self.dataset,
            "split": self.split,
            "use_normal": self.use_normal,
            "use_prior": self.use_prior,
            "wall_seconds": self.wall_seconds,
            "overall": summary(self.overall),
            "groups": {key: {v: summary(s) for v, s in by.items()} for key, by in self.groups.items()},
            "cases": [asdict(r) for r in self.cases],
        }

    def to_markdown(self) -> str:
        out = [f"# l4 bench: {self.dataset}", ""]
        out.append(f"{self.overall.cases} cases (split: {self.split or 'all'}, normal jobs: "
                   f"{'yes' if self.use_normal else 'no'}), {self.overall.errors} errors, {self.wall_seconds:.1f} s wall.")
        for side, summary in self.side_by_side().items():
            out += ["", f"## Summary: {side}", "", md_table(SUMMARY_COLUMNS, summary_rows(summary))]
        for key, by in self.groups.items():
            out += ["", f"## By {key}", "", md_table(_GROUP_COLUMNS, [_group_row(v, s) for v, s in by.items()])]
        out += ["", "## Cases", "", md_table(_CASE_COLUMNS, [_case_row(r) for r in self.cases]), ""]
        return "\n".join(out)


_GROUP_COLUMNS = ("group", "cases", "errors", "events P/R/F1 l4", "F1 grep", "F1 error-level", "F1 rare-event",
                  "nodes top-1/3/5/8 l4", "Error_time", "Error_count", "host top-1/3 l4", "host grep", "stage",
                  "iteration", "category l4", "category grep", "subcategory l4", "symptom", "s/case")
_CASE_COLUMNS = ("case", "split", "stack", "category", "subcategory", "symptom", "stage", "events P/R/F1",
                 "node rank l4/Error_time/Error_count", "host rank l4/grep", "iteration", "s", "error")


def md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    def esc(cell: str) -> str:
        return cell.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _group_row(value: str, s: Summary) -> tuple[str, ...]:
    ev, nd, hs = s.events, s.nodes, s.hosts

    def topk(ns: dict[str, Any], method: str, ks: Sequence[int]) -> str:
        return "/".join(_pct(ns[method].top[k]) for k in ks) if ns[method].n else "—"

    l4 = ev[L4]
    return (value, str(s.cases), str(s.errors), "/".join(_num(x) for x in (l4.precision, l4.recall, l4.f1)),
            _num(ev[GREP].f1), _num(ev[ERROR_LEVEL].f1), _num(ev[RARE_EVENT].f1), topk(nd, L4, TOP_K),
            topk(nd, ERROR_TIME, TOP_K), topk(nd, ERROR_COUNT, TOP_K), topk(hs, L4, HOST_K), topk(hs, GREP, HOST_K),
            _pct(s.stage), _pct(s.iteration), _pct(s.category[L4]), _pct(s.category[GREP]), _pct(s.subcategory[L4]),
            _pct(s.symptom), _num(s.seconds_mean[L4], 2))


def _vs(label: str, predicted: str | None, hit: bool | None = None) -> str:
    return label if (predicted == label if hit is None else hit) else f"{label} ≠ {predicted or '—'}"


def _case_row(r: CaseResult) -> tuple[str, ...]:
    ev = r.events.get(L4)
    events = "—" if ev is None else f"{ev.precision:.2f}/{ev.recall:.2f}/{ev.f1:.2f}"

    def ranks(d: dict[str, int | None], methods: Sequence[str]) -> str:
        return "/".join("—" if (x := d.get(m)) is None else str(x) for m in methods)

    node_ranks = ranks(r.node_rank, (L4, ERROR_TIME, ERROR_COUNT)) if r.faulty_nodes and r.node_rank else "—"
    host_ranks = ranks(r.host_rank, (L4, GREP)) if r.hosts and r.host_rank else "—"
    it = {None: "—", True: "hit", False: "miss"}[r.iteration_hit]
    return (r.case_id, r.split, r.stack, _vs(r.category, r.predicted_category, r.category_hit() if r.ok else None),
            _vs(r.subcategory, r.predicted_subcategory, r.subcategory_hit() if r.ok else None),
            _vs(r.symptom, r.predicted_symptom), _vs(r.stage, r.predicted_stage), events, node_ranks, host_ranks, it,
            _num(r.seconds, 2), r.error or "")
