"""Diagnoses cached per job, so `ticket`, `ask` and `chat` after `diagnose` are instant.

The key is a fingerprint of the job's files (path, inode, size, mtime and ctime: hashing
the content of many GB would cost as much as diagnosing) plus everything that changes the
answer: the comparison jobs or the stored pool of ``--setting``, the user's confirmed
patterns, the knowledge docs, the reasoner (with its model and endpoint) and the l4
version. An entry keeps the warnings met while diagnosing, so a hit repeats them. Entries
are plain JSON under ``$L4_HOME/cache/diagnoses``; deleting the folder is always safe, and
a cache that cannot be read or written only costs time (a warning), never the answer.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__
from .config import data_dir, l4_home
from .ingest import open_job
from .schema import Diagnosis

log = logging.getLogger(__name__)
MAX_ENTRIES = 200
STALE_TEMP_SECONDS = 600  # a save takes milliseconds: a temp this old was left by a killed process


@dataclass
class Entry:
    diagnosis: Diagnosis
    warnings: list[str] = field(default_factory=list)


def _stat_rows(paths: Iterable[Path]) -> list[str]:
    rows = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            continue
        rows.append(f"{path.resolve()}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}")
    return sorted(rows)


def _fingerprint(path: Path) -> list[str]:
    return _stat_rows(source.path for source in open_job(path).sources)


def _state_rows(setting: str | None) -> list[str]:
    """What under L4_HOME and in the package changes an answer: the setting's pool, the
    user's confirmed patterns, the knowledge docs."""
    home = l4_home()
    paths = list((home / "library").glob("*.json"))
    if setting:
        paths += [home / "normal" / setting / "miner.bin", home / "normal" / setting / "jobs.json"]
    with contextlib.suppress(Exception):  # no bundled docs: nothing to fingerprint
        paths += list(data_dir("knowledge").rglob("*.md"))
    return _stat_rows(paths)


def job_key(job: Path | str, *, normal_jobs: list[Path] | None, setting: str | None, reasoner: str) -> str:
    """The cache key of a diagnosis of ``job`` under these options (``reasoner`` names the
    reasoner with anything that changes its answers: model, endpoint, --top)."""
    digest = hashlib.sha256()
    digest.update(f"l4 {__version__}|{reasoner}|{setting or ''}".encode())
    for row in _fingerprint(Path(job)):
        digest.update(row.encode())
    for normal in normal_jobs or []:
        digest.update(b"normal")
        for row in _fingerprint(Path(normal)):
            digest.update(row.encode())
    for row in _state_rows(setting):
        digest.update(row.encode())
    return digest.hexdigest()[:32]


def _folder() -> Path:
    return l4_home() / "cache" / "diagnoses"


def load(key: str) -> Entry | None:
    path = _folder() / f"{key}.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "diagnosis" in data:
            return Entry(Diagnosis.model_validate(data["diagnosis"]), [str(w) for w in data.get("warnings", [])])
        return Entry(Diagnosis.model_validate(data))  # entries written before warnings were kept
    except (OSError, ValueError) as exc:  # a damaged entry is a miss, and is replaced
        log.warning("ignoring unreadable cached diagnosis %s: %s", path, exc)
        return None


def save(key: str, diagnosis: Diagnosis, warnings: list[str] | None = None) -> str | None:
    """Store an entry; returns a warning instead of raising when the cache cannot be written."""
    try:
        folder = _folder()
        folder.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"diagnosis": diagnosis.to_json_dict(), "warnings": list(warnings or [])})
        # A unique temporary name: two runs saving the same key never write one file.
        with tempfile.NamedTemporaryFile("w", dir=folder, prefix=f".{key}.", suffix=".tmp", delete=False,
                                         encoding="utf-8") as tmp:
            try:
                tmp.write(payload)
            except BaseException:  # Ctrl-C mid-write: leave no half-written temp behind
                os.unlink(tmp.name)
                raise
        try:
            os.replace(tmp.name, folder / f"{key}.json")
        except BaseException:
            Path(tmp.name).unlink(missing_ok=True)
            raise
        entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in entries[:-MAX_ENTRIES]:
            old.unlink(missing_ok=True)
        # A process killed between write and rename (SIGTERM, SIGKILL) leaves its temp: sweep
        # the ones too old to belong to a save still running.
        for stale in folder.glob(".*.tmp"):
            with contextlib.suppress(OSError):
                if time.time() - stale.stat().st_mtime > STALE_TEMP_SECONDS:
                    stale.unlink()
    except OSError as exc:
        return f"diagnosis not cached ({exc}); set L4_HOME to a writable folder to cache it"
    return None
