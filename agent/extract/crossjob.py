"""Cross-job filter: what successful runs of the same setting also print is not the fault.

A *profile* holds a template miner learned on normal jobs plus, per template, how many of
those jobs printed it and at what per-node rate. The failed job is mined *against* that
miner (``Miner(base=...)``), so the same message maps to the same event in both, and
messages the normal jobs never printed get novel ids. Events most normal jobs print are
dropped; events few normal jobs print, or that the failed job prints far more often than
normal jobs ever did, stay with a reason. With no history the paper filters nothing; l4
then asks the shipped prior of healthy public runs (``agent.prior``): a message enough
healthy sources print is dropped like one most normal jobs print, unless it reads as a
fault (the caller leaves those out of ``healthy_sources``).

The profile is learned and stored by ``agent.pools``; this module only judges with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..mining import NOVEL_OFFSET, Miner
from .weights import DEFAULT_WEIGHTS, Weights


@dataclass
class JobCounts:
    """Per-template statistics of one normal job."""

    job: str
    nodes: int
    lines: int
    counts: dict[int, int]  # template id -> total count
    max_per_node: dict[int, int]  # template id -> highest count on one node


@dataclass
class NormalProfile:
    setting: str
    miner: Miner
    jobs: list[JobCounts] = field(default_factory=list)

    def job_share(self, tid: int) -> float:
        if tid >= NOVEL_OFFSET or not self.jobs:
            return 0.0
        return sum(1 for j in self.jobs if tid in j.counts) / len(self.jobs)

    def max_per_node(self, tid: int) -> int:
        return max((j.max_per_node.get(tid, 0) for j in self.jobs), default=0)




@dataclass
class Verdict:
    """What the normal jobs say about one event of the failed job."""

    keep: bool
    weight: float  # 1.0 novel ... 0.0 dropped
    reason: str


PRIOR_REASON = "common in healthy runs (shipped prior)"


def judge(
    profile: NormalProfile | None, tid: int, max_count_on_a_node: int, weights: Weights = DEFAULT_WEIGHTS,
    healthy_sources: int = 0,
) -> Verdict:
    """Keep, down-weight or drop one event of the failed job (thresholds: ``Weights``).

    ``healthy_sources``: how many healthy public runs of the shipped prior print it; read
    only when there are no normal jobs (given ones always win)."""
    w = weights
    if profile is None or not profile.jobs:
        if healthy_sources >= w.prior_min_sources:
            return Verdict(w.prior_weight > 0, w.prior_weight, f"{PRIOR_REASON}: {healthy_sources} sources print it")
        return Verdict(True, 1.0, "no normal jobs to compare with")
    share = profile.job_share(tid)
    if share == 0.0:
        return Verdict(True, 1.0, "absent from normal jobs")
    normal_max = profile.max_per_node(tid)
    if max_count_on_a_node >= w.burst_min_count and max_count_on_a_node >= w.burst_factor * max(normal_max, 1):
        return Verdict(True, w.burst_weight, f"{max_count_on_a_node}x on one node vs at most {normal_max} in normal jobs")
    if share >= w.frequent_job_share:
        return Verdict(False, 0.0, f"printed by {share:.0%} of normal jobs")
    return Verdict(True, w.rare_weight, f"rare in normal jobs ({share:.0%} of them)")
