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

Baselines (``baselines``) run on the very ``MinedJob`` that ``analyze`` returns: the paper's
Error_time, Error_count, error-level and rare-event filters, and grep + signatures.

Splits (``agent.splits``): ``train``/``test`` by case id on generated corpora,
``leave-out`` by fault type, ``dev``/``test`` by source repository on real corpora.
Modules: ``cases`` (the dataset), ``metrics`` (scoring one case), ``baselines``,
``report`` (summaries and renderings), ``run`` (the loop).

A case whose ``analyze`` raises becomes an error row; error rows are left out of every
metric (ours and the baselines', which need the mined job) and counted in ``errors``.
Every metric is also broken down by split, stack, category and symptom.
"""

from __future__ import annotations

from ..splits import synth_split_of as split_of
from .baselines import (
    error_count_ranking,
    error_level_events,
    error_time_ranking,
    grep_signatures,
    rare_event_events,
)
from .cases import Case, load_cases
from .metrics import OutputEvent, host_rank, iteration_hit, score_events
from .report import (
    DISPLAY,
    ERROR_COUNT,
    ERROR_LEVEL,
    ERROR_TIME,
    GREP,
    L4,
    RARE_EVENT,
    SUMMARY_COLUMNS,
    BenchReport,
    CaseResult,
    summarize,
)
from .run import bench_case, run_bench, score_case

__all__ = [
    "DISPLAY", "ERROR_COUNT", "ERROR_LEVEL", "ERROR_TIME", "GREP", "L4", "RARE_EVENT", "SUMMARY_COLUMNS",
    "BenchReport", "Case", "CaseResult", "OutputEvent", "bench_case", "error_count_ranking", "error_level_events",
    "error_time_ranking", "grep_signatures", "host_rank", "iteration_hit", "load_cases", "rare_event_events",
    "run_bench", "score_case", "score_events", "split_of", "summarize",
]
