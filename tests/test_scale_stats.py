"""Statistics rewritten to scale with iterations and nodes give what the direct forms gave."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from agent.extract.progress import Progress, _group_medians, detect_slowdown


@pytest.mark.parametrize("seed", range(5))
def test_group_medians_equal_numpy_median_per_group(seed):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 50, 2000)
    values = rng.normal(3.0, 1.0, 2000).round(rng.integers(1, 6))  # ties too
    got_keys, got = _group_medians(keys, values)
    groups: dict[int, list[float]] = defaultdict(list)
    for k, v in zip(keys.tolist(), values.tolist(), strict=True):
        groups[k].append(v)
    assert got_keys.tolist() == sorted(groups)
    assert got.tolist() == [float(np.median(groups[k])) for k in sorted(groups)]  # bit for bit


def _slowdown_directly(trained, w):
    """The former form: a median per iteration and a tail mean per candidate onset."""
    per_iter = defaultdict(list)
    for prog in trained.values():
        if len(prog.iteration) < 3:
            continue
        d_iter, d_ts = np.diff(prog.iteration), np.diff(prog.ts)
        ok = (d_iter > 0) & ~np.isnan(d_ts)
        for it, rate in zip(prog.iteration[1:][ok].tolist(), (d_ts[ok] / d_iter[ok]).tolist(), strict=True):
            per_iter[it].append(rate)
    if len(per_iter) < w.slowdown_min_iterations:
        return None
    iters = sorted(per_iter)
    rates = np.array([float(np.median(per_iter[i])) for i in iters])
    baseline = float(np.median(rates[: max(w.slowdown_baseline_iterations, len(rates) // w.slowdown_baseline_divisor)]))
    if baseline <= 0:
        return None
    slow = rates >= w.slowdown_ratio * baseline
    for k in range(len(rates) - (w.slowdown_tail_min - 1)):
        tail = slow[k:]
        if slow[k] and tail.mean() >= w.slowdown_tail_share and len(tail) >= w.slowdown_tail_min:
            return float(np.median(rates[k:]) / baseline), iters[k]
    return None


@pytest.mark.parametrize("onset", [None, 40, 120, 190])
@pytest.mark.parametrize("nodes", [1, 2, 7])
def test_slowdown_matches_the_direct_form(onset, nodes):
    from agent.extract.weights import DEFAULT_WEIGHTS

    rng = np.random.default_rng(nodes * 1000 + (onset or 0))
    trained = {}
    for n in range(nodes):
        iteration = np.arange(0, 200 * 10, 10, dtype=np.int32)
        step = rng.normal(1.0, 0.05, len(iteration))
        if onset is not None:
            step[onset:] *= 2.5
        ts = np.cumsum(step * 10)
        ts[rng.integers(0, len(ts), 3)] = np.nan
        trained[f"n{n}"] = Progress(iteration=iteration, ts=ts, pos=np.arange(len(iteration)))
    expected = _slowdown_directly(trained, DEFAULT_WEIGHTS)
    assert detect_slowdown(trained, DEFAULT_WEIGHTS) == expected
    assert (expected is None) == (onset is None)  # both forms see the slowdown, and only when there is one


def test_mask_literal_hints_change_no_result():
    """``Mask.needs`` only skips regexes that cannot match: same masks and params without them."""
    import dataclasses
    from pathlib import Path

    from agent.ingest import open_job, read_texts
    from agent.scan import MASKS, Masker

    real = Path(__file__).resolve().parent.parent / "benchmarks" / "real" / "cases"
    texts = [text for case in sorted(real.iterdir()) for source in open_job(case / "logs").sources
             for _, _, text in read_texts(source, [])]
    texts = sorted(set(texts))
    hinted, plain = Masker(), Masker(dataclasses.replace(m, needs=()) for m in MASKS)
    assert any(m.needs for m in MASKS) and len(texts) > 20_000
    assert [hinted.mask(t) for t in texts] == [plain.mask(t) for t in texts]
    assert [hinted.params(t) for t in texts] == [plain.params(t) for t in texts]
