"""Scoring one kept event (``agent.extract.events``): novelty x episode x level x error
words x role x workflow, each factor leaving its reason."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agent.extract import Weights
from agent.extract.crossjob import Verdict
from agent.extract.events import first_sample, kept_events, score_event, spread, wrapped_tail
from agent.extract.table import EventStats, NodeEventStats, build_table
from agent.mining import mine_job

NOVEL = Verdict(True, 1.0, "absent from normal jobs")
RARE = Verdict(True, 0.35, "rare in normal jobs (20% of them)")


def stats(template: str, level: int, nodes: tuple[str, ...] = ("n2",), ts: float = 100.0) -> EventStats:
    out = EventStats(1, template, max_level=level)
    for i, node in enumerate(nodes):
        out.per_node[node] = NodeEventStats(1, i, i, ts, ts)
    return out


CASES = [
    # template, level, history, verdict, expected score, role, a reason it must give
    ("CUDA error: an illegal memory access was encountered", 4, False, NOVEL, 1.0 * 1.0 * 1.2, "candidate", "only on n2"),
    ("CUDA error: an illegal memory access was encountered", 4, True, NOVEL, 1.0 * 1.1 * 1.2, "candidate", "only on n2"),
    ("CUDA error: an illegal memory access was encountered", 4, True, RARE, 0.35 * 1.1 * 1.2, "candidate", "rare in normal jobs (20% of them)"),
    ("Watchdog caught collective operation timeout", 4, False, NOVEL, 1.0 * 1.0 * 1.2 * 0.8, "wait", "only on n2"),
    ("Sending process 42 closing signal SIGTERM", 2, False, NOVEL, 1.0 * 0.35 * 0.6 * 0.3, "teardown", "only on n2"),
    ("Traceback (most recent call last):", 0, True, NOVEL, 1.0 * 0.85 * 0.8 * 0.1, "context", "only on n2"),
    ("saving checkpoint at iteration 100 to /ckpt", 2, True, NOVEL, 1.0 * 0.85 * 0.8 * 1.0 * 0.3, "candidate",
     "a workflow step, not an error"),
    ("building the model took a while", 2, True, NOVEL, 1.0 * 0.85 * 0.8 * 0.3, "candidate", "a workflow step, not an error"),
    ("device reported a retired page", 3, True, NOVEL, 1.0 * 1.0 * 1.0, "candidate", "only on n2"),
]


@pytest.mark.parametrize(("template", "level", "history", "verdict", "score", "role", "reason"), CASES)
def test_score_event(
    template: str, level: int, history: bool, verdict: Verdict, score: float, role: str, reason: str
) -> None:
    event, known = score_event(stats(template, level), verdict, template, n_nodes=4, window_start=0.0, history=history)
    assert event.score == pytest.approx(score)
    assert event.role == event.role_kind == role
    assert event.reasons[0] == verdict.reason
    assert reason in event.reasons
    assert known is None


def test_an_event_before_the_episode_counts_a_sixth_or_so() -> None:
    s = stats("CUDA error: an illegal memory access", 4, ts=10.0)
    inside, _ = score_event(s, NOVEL, "", n_nodes=4, window_start=5.0, history=False)
    before, _ = score_event(s, NOVEL, "", n_nodes=4, window_start=50.0, history=False)
    assert before.score == pytest.approx(inside.score * 0.15)
    assert "before the failure episode" in before.reasons


@pytest.mark.parametrize(
    ("nodes", "reason"),
    [(("n0",), "only on n0"), (("n0", "n1", "n2"), "on 3/4 nodes"), (("n0", "n1"), None)],
)
def test_spread_reasons(nodes: tuple[str, ...], reason: str | None) -> None:
    s = stats("CUDA error", 4, nodes=nodes)
    event, _ = score_event(s, NOVEL, "", n_nodes=4, window_start=0.0, history=False)
    assert spread(s, 4) == len(nodes) / 4
    assert event.reasons[1:] == ([reason] if reason else [])


def test_error_words_factor_is_a_weight() -> None:
    s = stats("CUDA error: an illegal memory access", 4)
    plain, _ = score_event(s, NOVEL, "", n_nodes=4, window_start=0.0, history=False)
    w = dataclasses.replace(Weights(), error_words_factor=1.0)
    flat, _ = score_event(s, NOVEL, "", n_nodes=4, window_start=0.0, history=False, weights=w)
    assert (plain.score, flat.score) == (pytest.approx(1.2), pytest.approx(1.0))


def test_kept_events_skip_progress_and_first_sample_reads_the_first_printer(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.log").write_text("2024-10-02 10:00:01 INFO step 1 loss 2.0\n2024-10-02 10:00:09 ERROR disk full on /dev/sda\n")
    (logs / "b.log").write_text("2024-10-02 10:00:01 INFO step 1 loss 2.0\n2024-10-02 10:00:05 ERROR disk full on /dev/sdb\n")
    mined = mine_job(logs, workers=1)
    table = build_table(mined)
    step = next(t for t, s in table.events.items() if "step" in s.template)
    kept = kept_events(table, None, {step})
    assert [s.template for s, _ in kept] == [s.template for t, s in table.events.items() if t != step]
    disk = next(s for s, _ in kept if "disk full" in s.template)
    assert first_sample(mined, disk).endswith("/dev/sdb")  # b printed it first


def test_a_wrapped_tail_is_part_of_the_line_above_not_an_event(tmp_path: Path) -> None:
    # Real lines (karpathy/nanoGPT#55), cut at a fixed width by the paste.
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "console.log").write_text(
        "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature"
        " of CUDA kernels, subsequent GPU opera\n"
        "tions might run on corrupted/incomplete data.\n"
        "+ srun -l --mpi=pmix --ntasks=8 --container-mounts=tank/bert/packed_data:/workspace/data_phase2,/tank/bert/eval\n"
        "srun: error: pyxis: mount source must be a relative path, an absolute path, \"tmpfs\" or \"umount\"\n"
    )
    mined = mine_job(logs, workers=1)
    table = build_table(mined)
    by_text = {s.template: s for s in table.events.values()}
    tail = next(s for t, s in by_text.items() if t.startswith("tions might"))
    srun = next(s for t, s in by_text.items() if t.startswith("srun: error"))
    assert wrapped_tail(mined, tail)
    assert not wrapped_tail(mined, srun)  # a program's own prefix starts a new message
    head = next(s for t, s in by_text.items() if "Some NCCL" in t)
    assert not wrapped_tail(mined, head)
    candidate, _ = score_event(tail, Verdict(True, 1.0, "novel"), first_sample(mined, tail), n_nodes=1,
                               window_start=0.0, history=False, wrapped=True)
    assert candidate.role == "context"
