"""Normal-job pools on disk: learn successful jobs of a setting, store, list and remove them.

A pool lives under ``$L4_HOME/normal/<setting>/``: one pickled miner (``miner.bin``) and
one JSON of per-job counts (``jobs.json``). It holds no raw log text, only templates and
counts. ``extract.crossjob`` judges a failed job's events against the profile loaded here.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from .config import l4_home
from .errors import InputError, NotNormalError
from .extract.crossjob import JobCounts, NormalProfile
from .mining import MinedJob, Miner, mine_job
from .normalcheck import reasons_not_normal

_SETTING_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")

def _job_counts(mined: MinedJob, name: str) -> JobCounts:
    counts: dict[int, int] = {}
    max_per_node: dict[int, int] = {}
    for log in mined.nodes.values():
        tids, n = np.unique(log.template, return_counts=True)
        for tid, c in zip(tids.tolist(), n.tolist(), strict=True):
            counts[tid] = counts.get(tid, 0) + c
            max_per_node[tid] = max(max_per_node.get(tid, 0), c)
    return JobCounts(job=name, nodes=len(mined.nodes), lines=mined.line_count(), counts=counts, max_per_node=max_per_node)


def learn_profile(setting: str, normal_jobs: Iterable[Path], workers: int | None = 1) -> NormalProfile:
    """Learn one miner over all normal jobs (so they share template ids) and count each job."""
    miner = Miner()
    profile = NormalProfile(setting=setting, miner=miner)
    for path in normal_jobs:
        mined = mine_job(path, miner=miner, workers=workers)
        profile.jobs.append(_job_counts(mined, str(path)))
    return profile


def _pool_dir(setting: str) -> Path:
    if not _SETTING_NAME.match(setting):
        raise InputError(f"invalid setting name {setting!r}", "use letters, digits, '.', '_' or '-' (e.g. llama70b-megatron-cuda)")
    return l4_home() / "normal" / setting


@contextlib.contextmanager
def _locked(setting: str, exclusive: bool) -> Iterator[None]:
    """A per-setting lock, so two `l4 normal add` never lose each other's job. The lock file
    sits beside the pool folder: removing a pool must not remove the lock it holds."""
    root = _pool_dir(setting).parent  # validates the name first: "../x" must never name a lock file
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".{setting}.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write_atomically(path: Path, data: bytes) -> None:
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False) as tmp:
        tmp.write(data)
    os.replace(tmp.name, path)


def save_profile(profile: NormalProfile) -> Path:
    folder = _pool_dir(profile.setting)
    folder.mkdir(parents=True, exist_ok=True)
    payload = [
        {
            "job": j.job,
            "nodes": j.nodes,
            "lines": j.lines,
            "counts": {str(k): v for k, v in j.counts.items()},
            "max_per_node": {str(k): v for k, v in j.max_per_node.items()},
        }
        for j in profile.jobs
    ]
    _write_atomically(folder / "miner.bin", profile.miner.dumps())
    _write_atomically(folder / "jobs.json", json.dumps(payload, indent=1).encode("utf-8"))
    return folder


def load_profile(setting: str) -> NormalProfile | None:
    """The stored pool of ``setting``, or None; a damaged pool is an error that says what to delete."""
    with _locked(setting, exclusive=False):
        return _read_profile(setting)


def _read_profile(setting: str) -> NormalProfile | None:
    folder = _pool_dir(setting)
    if not (folder / "miner.bin").is_file():
        return None
    try:
        miner = Miner.loads((folder / "miner.bin").read_bytes())
        jobs = [
            JobCounts(
                job=j["job"],
                nodes=j["nodes"],
                lines=j["lines"],
                counts={int(k): v for k, v in j["counts"].items()},
                max_per_node={int(k): v for k, v in j["max_per_node"].items()},
            )
            for j in json.loads((folder / "jobs.json").read_text())
        ]
    except Exception as exc:  # pickle, JSON, a missing or truncated file: all mean "damaged"
        raise InputError(
            f"the normal-job pool of {setting!r} at {folder} is damaged ({type(exc).__name__}: {exc})",
            f"remove it with `l4 normal remove {setting}` (or delete the folder) and add its jobs again",
        ) from None
    return NormalProfile(setting=setting, miner=miner, jobs=jobs)


def add_normal_job(setting: str, job: Path, workers: int | None = None, force: bool = False) -> NormalProfile:
    """Add a successful job to the pool of a setting (re-learning the pool's templates); a job
    that looks failed is refused unless ``force`` (it would hide its failure in later diagnoses)."""
    with _locked(setting, exclusive=True):
        return _add(setting, job, workers, force)


def _add(setting: str, job: Path, workers: int | None, force: bool = False) -> NormalProfile:
    existing = _read_profile(setting)
    paths = [Path(j.job) for j in existing.jobs] if existing else []
    job = job.resolve()
    if job in paths:
        raise InputError(f"{job} is already in the pool of {setting!r}", "nothing to do")
    if not force:
        reasons = reasons_not_normal(job, existing.jobs if existing else [])
        if reasons:
            raise NotNormalError(
                f"{job} does not look like a successful job: {'; '.join(reasons)}",
                "a failed job in the pool hides that failure from later diagnoses; add it anyway with --force",
            )
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise InputError(
            f"pool {setting!r} refers to jobs that no longer exist: {', '.join(map(str, missing))}",
            f"remove them with `l4 normal remove {setting} JOB` first",
        )
    profile = learn_profile(setting, [*paths, job], workers=workers)
    save_profile(profile)
    return profile


def list_pools() -> list[tuple[str, list[JobCounts]]]:
    root = l4_home() / "normal"
    if not root.is_dir():
        return []
    pools: list[tuple[str, list[JobCounts]]] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        try:
            profile = load_profile(folder.name)
        except InputError:  # listed, so the user sees it and can remove it
            pools.append((f"{folder.name} (damaged: `l4 normal remove {folder.name}`)", []))
            continue
        if profile is not None:
            pools.append((folder.name, profile.jobs))
    return pools


def remove_normal(setting: str, job: Path | None = None) -> int:
    """Remove one job from a pool, or the whole pool (even a damaged one); returns the jobs left."""
    with _locked(setting, exclusive=True):
        return _remove(setting, job)


def _remove(setting: str, job: Path | None) -> int:
    folder = _pool_dir(setting)
    if job is None:
        if not folder.is_dir():
            raise InputError(f"no normal-job pool named {setting!r}", "see `l4 normal list`")
        shutil.rmtree(folder)
        return 0
    profile = _read_profile(setting)
    if profile is None:
        raise InputError(f"no normal-job pool named {setting!r}", "see `l4 normal list`")
    target = job.resolve()
    keep = [Path(j.job) for j in profile.jobs if Path(j.job) != target]
    if len(keep) == len(profile.jobs):
        raise InputError(f"{job} is not in the pool of {setting!r}", "see `l4 normal list`")
    if not keep:
        shutil.rmtree(folder)
        return 0
    save_profile(learn_profile(setting, keep))
    return len(keep)
