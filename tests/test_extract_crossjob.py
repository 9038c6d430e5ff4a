"""The cross-job filter (``agent.extract.crossjob.judge``): what normal jobs also print is
not the fault; what they never print, or print far less often, stays with a reason."""

from __future__ import annotations

import pytest

from agent.extract.crossjob import JobCounts, NormalProfile, Verdict, judge
from agent.mining import NOVEL_OFFSET, Miner


def profile(*jobs: dict[int, int]) -> NormalProfile:
    counts = [JobCounts(f"job{i}", 4, 100, dict(c), dict(c)) for i, c in enumerate(jobs)]
    return NormalProfile("setting", Miner(), counts)


FOUR_JOBS = profile({1: 2, 2: 1}, {1: 2}, {1: 3}, {1: 2, 3: 1})


@pytest.mark.parametrize(
    ("prof", "tid", "count", "verdict"),
    [
        (None, 1, 1, Verdict(True, 1.0, "no normal jobs to compare with")),
        (profile(), 1, 1, Verdict(True, 1.0, "no normal jobs to compare with")),
        (FOUR_JOBS, 9, 1, Verdict(True, 1.0, "absent from normal jobs")),
        (FOUR_JOBS, NOVEL_OFFSET + 1, 1, Verdict(True, 1.0, "absent from normal jobs")),  # learned on the failed job
        (FOUR_JOBS, 1, 3, Verdict(False, 0.0, "printed by 100% of normal jobs")),
        (FOUR_JOBS, 1, 30, Verdict(True, 0.6, "30x on one node vs at most 3 in normal jobs")),
        (FOUR_JOBS, 1, 29, Verdict(False, 0.0, "printed by 100% of normal jobs")),  # under 10x the normal maximum
        (FOUR_JOBS, 2, 1, Verdict(True, 0.35, "rare in normal jobs (25% of them)")),
        (FOUR_JOBS, 2, 4, Verdict(True, 0.35, "rare in normal jobs (25% of them)")),  # a burst needs 5 lines
        (FOUR_JOBS, 2, 10, Verdict(True, 0.6, "10x on one node vs at most 1 in normal jobs")),
    ],
)
def test_judge(prof: NormalProfile | None, tid: int, count: int, verdict: Verdict) -> None:
    assert judge(prof, tid, count) == verdict


def test_the_rare_weight_is_a_weight() -> None:
    from agent.extract import Weights

    assert judge(FOUR_JOBS, 2, 1, Weights(rare_weight=0.5)).weight == 0.5
    assert judge(FOUR_JOBS, 1, 3, Weights(frequent_job_share=1.01)).keep  # nothing is frequent enough to drop
