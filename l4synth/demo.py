"""The demo, from Python as from ``l4 demo``: generate a failed job and two successful
ones of its setting, learn the successful ones into a pool, diagnose the failed one.

It runs in a home of its own (``config.using_home``), whatever ``$L4_HOME`` says, so the
demo's pool never lands in a user's real one. Offline and deterministic for a seed.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.config import using_home
from agent.pipeline import Analysis, analyze
from agent.pools import add_normal_job

from . import generate_demo


@dataclass
class Demo:
    """What the demo made and found; ``label`` is the generated job's ground truth."""

    job: Path
    normals: list[Path]
    setting: str
    analysis: Analysis
    label: dict[str, Any] | None
    seconds: float


def run_demo(dest: Path, seed: int = 7, *, progress: Callable[[str], None] | None = None) -> Demo:
    """Generate the demo's jobs under ``dest``, learn and diagnose in a temporary home."""
    say = progress or (lambda _: None)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="l4-demo-home-") as home, using_home(Path(home)):
        job, normals, setting = generate_demo(Path(dest), seed=seed)
        say(f"1/3 generated a failed {setting} job and {len(normals)} successful ones in {dest}")
        for normal_job in normals:
            add_normal_job(setting, normal_job, workers=1)
        say(f"2/3 learned {len(normals)} normal job(s) into the pool of setting {setting!r}")
        analysis = analyze(job, setting=setting, workers=1, reasoner="offline")
        seconds = time.perf_counter() - t0
        say(f"3/3 diagnosed {job} in {seconds:.1f}s total")
    label_path = job.parent / "label.json"
    label = json.loads(label_path.read_text()) if label_path.is_file() else None
    return Demo(job, normals, setting, analysis, label, seconds)
