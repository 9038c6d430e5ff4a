"""A job restarted into the same error many times: the error is the root of the last attempt."""

from __future__ import annotations

from pathlib import Path

from agent.extract.events import attempts_in
from agent.pipeline import analyze
from tests.minedjobs import mine, write_logs


def _attempt(k: int) -> list[str]:
    # The shape of a container restarted by its runtime (inclusionAI/AReaL cloud_gsm8k logs):
    # the image banner, start-up work, then the same configuration error every time.
    t = f"2025-11-26T16:{5 * k:02d}:00"  # five minutes per attempt
    return [
        f"{t}.100Z ==========",
        f"{t}.101Z == CUDA ==",
        f"{t}.102Z ==========",
        *[f"{t}.{200 + i}Z INFO loading shard {i} of the dataset index" for i in range(30)],
        f"{t}.300Z omegaconf.errors.ConfigKeyError: Key 'max_new_tokens' not in 'NormConfig'",
        f"{t}.301Z     full_key: actor.adv_norm.max_new_tokens",
    ]


def test_attempts_count_the_banner_printed_again(tmp_path: Path) -> None:
    lines = [line for k in range(12) for line in _attempt(k)]
    assert attempts_in(mine(tmp_path, {"console": lines})) == 12
    (tmp_path / "one").mkdir()
    assert attempts_in(mine(tmp_path / "one", {"console": _attempt(0)})) == 1


def test_an_error_once_per_attempt_stays_the_root_after_many_restarts(tmp_path: Path) -> None:
    lines = [line for k in range(12) for line in _attempt(k)]
    # The last attempt is still starting when the log ends: its progress bars are no failure.
    lines += ["2025-11-26T16:55:20.100Z ==========", "2025-11-26T16:55:20.101Z == CUDA ==",
              *[f"2025-11-26T16:55:20.{300 + i}Z 0%| | 0/23 [00:00<?, ?it/s] Capturing batches (bs={i})" for i in range(1, 40)]]
    d = analyze(write_logs(tmp_path, {"console": lines}), workers=1, use_pool=False).diagnosis
    assert d.events and "ConfigKeyError" in d.events[0].template
