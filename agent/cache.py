"""Diagnoses cached per job, so `ticket`, `ask` and `chat` after `diagnose` are instant.

The key is a fingerprint of the job's files (relative path, size, mtime: hashing the
content of many GB would cost as much as diagnosing) plus everything that changes the
answer: the comparison jobs, the reasoner, and the l4 version. A changed file, a new
normal job or a new release is a new key. Entries are plain JSON under
``$L4_HOME/cache/diagnoses``; deleting the folder is always safe.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from . import __version__
from .config import l4_home
from .ingest import open_job
from .schema import Diagnosis

log = logging.getLogger(__name__)
MAX_ENTRIES = 200


def _fingerprint(path: Path) -> list[str]:
    job = open_job(path)
    rows = []
    for source in job.sources:
        stat = source.path.stat()
        rows.append(f"{source.path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}")
    return sorted(rows)


def job_key(job: Path | str, *, normal_jobs: list[Path] | None, setting: str | None, reasoner: str) -> str:
    """The cache key of a diagnosis of ``job`` under these options."""
    digest = hashlib.sha256()
    digest.update(f"l4 {__version__}|{reasoner}|{setting or ''}".encode())
    for row in _fingerprint(Path(job)):
        digest.update(row.encode())
    for normal in normal_jobs or []:
        digest.update(b"normal")
        for row in _fingerprint(Path(normal)):
            digest.update(row.encode())
    return digest.hexdigest()[:32]


def _folder() -> Path:
    return l4_home() / "cache" / "diagnoses"


def load(key: str) -> Diagnosis | None:
    path = _folder() / f"{key}.json"
    if not path.is_file():
        return None
    try:
        return Diagnosis.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # a damaged entry is a miss, and is replaced
        log.warning("ignoring unreadable cached diagnosis %s: %s", path, exc)
        return None


def save(key: str, diagnosis: Diagnosis) -> None:
    folder = _folder()
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{key}.tmp"
    tmp.write_text(json.dumps(diagnosis.to_json_dict()), encoding="utf-8")
    tmp.replace(folder / f"{key}.json")
    entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for old in entries[:-MAX_ENTRIES]:
        old.unlink(missing_ok=True)
