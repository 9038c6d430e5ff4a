"""`l4 doctor`: check everything l4 keeps under ``L4_HOME`` and move aside what is damaged.

State accumulates (pools, user patterns, cached diagnoses, the knowledge store, the config
file) and any of it can be cut short by a full disk, a killed process or a hand edit. Each
reader already fails soft and names the file; this is the one place that looks at all of it
at once and repairs it. Repair never deletes: a damaged file or folder is moved into
``L4_HOME/quarantine/<timestamp>/`` (same relative path), so nothing is lost and the next
run rebuilds what is a cache. What cannot be repaired here (a home that is not a writable
folder) is reported with the fix.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import tomllib

from .config import CONFIG_FILE_NAME, l4_home
from .errors import AgentError
from .library import UserPattern
from .schema import Diagnosis


@dataclass(frozen=True)
class Finding:
    """One line of the doctor's report: ``ok``, ``repaired`` (moved aside) or ``problem``."""

    state: str
    what: str


class _Doctor:
    def __init__(self, home: Path, repair: bool) -> None:
        self.home = home
        self.repair = repair
        self.stamp = time.strftime("%Y%m%d-%H%M%S")
        self.findings: list[Finding] = []

    def note(self, state: str, what: str) -> None:
        self.findings.append(Finding(state, what))

    def quarantine(self, path: Path, why: str, after: str) -> None:
        """Move ``path`` aside (never delete), keeping its place under L4_HOME in the name."""
        rel = path.relative_to(self.home)
        if not self.repair:
            self.note("problem", f"{rel}: {why} — `l4 doctor` moves it aside; {after}")
            return
        target = self.home / "quarantine" / self.stamp / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(path), str(target))
        except OSError as exc:
            self.note("problem", f"{rel}: {why}; could not move it aside ({exc}) — delete it by hand")
            return
        self.note("repaired", f"{rel}: {why}; moved to {target.relative_to(self.home)}; {after}")

    def check_files(self, pattern: str, read: Callable[[Path], object], kind: str, after: str) -> None:
        paths = sorted(self.home.glob(pattern))
        bad = 0
        for path in paths:
            try:
                read(path)
            except Exception as exc:  # any failure to read means damaged: name it and move it aside
                bad += 1
                self.quarantine(path, f"damaged {kind} ({type(exc).__name__}: {str(exc)[:80]})", after)
        if paths and not bad:
            self.note("ok", f"{len(paths)} {kind}(s) readable")


def _read_config(path: Path) -> object:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _read_pattern(path: Path) -> object:
    return UserPattern.from_json_dict(json.loads(path.read_text(encoding="utf-8")))


def _read_cached(path: Path) -> object:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Diagnosis.model_validate(data["diagnosis"] if isinstance(data, dict) and "diagnosis" in data else data)


def _read_store(folder: Path) -> object:
    """A knowledge store: its JSON files parse and its SQLite database passes a quick check."""
    for path in [*folder.glob("*.json"), *folder.glob("bm25/*.json")]:
        json.loads(path.read_text(encoding="utf-8"))
    db = folder / "chroma" / "chroma.sqlite3"
    if (folder / "chroma").exists() or any(folder.glob("ready-onnx*.json")):
        if not db.is_file():
            raise FileNotFoundError(f"{db.relative_to(folder)} is missing")
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            result = conn.execute("PRAGMA quick_check").fetchone()
        if not result or result[0] != "ok":
            raise sqlite3.DatabaseError(str(result[0] if result else "no answer"))
    return None


def _check_pools(doctor: _Doctor) -> None:
    from .pools import load_profile

    root = doctor.home / "normal"
    folders = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    healthy = 0
    for folder in folders:
        try:
            load_profile(folder.name)
            healthy += 1
        except AgentError as exc:
            doctor.quarantine(folder, f"damaged normal-job pool ({exc.what[:120]})", f"add its jobs again with `l4 normal add JOB --setting {folder.name}`")
    if healthy:
        doctor.note("ok", f"{healthy} normal-job pool(s) readable")


def _check_prior(doctor: _Doctor) -> None:
    """The shipped prior of healthy runs is package data, not state: reported, never repaired."""
    from .prior import PRIOR_DIR, read_prior

    try:
        prior = read_prior()
    except (OSError, ValueError) as exc:
        doctor.note("problem", f"shipped prior of normal behaviour in {PRIOR_DIR} is unreadable ({exc}) — reinstall l4-agent")
        return
    stacks = ", ".join(f"{stack} {n}" for stack, n in sorted(prior.stacks().items()))
    doctor.note("ok", f"shipped prior of normal behaviour: {len(prior.templates)} templates from "
                      f"{len(prior.sources)} healthy runs ({stacks}); used for jobs without normal jobs")


def examine(home: Path | None = None, repair: bool = True) -> list[Finding]:
    """Check ``home`` (default: ``L4_HOME``); with ``repair``, move damaged state aside."""
    home = home or l4_home()
    doctor = _Doctor(home, repair)
    _check_prior(doctor)
    if not home.exists():
        doctor.note("ok", f"{home} does not exist yet; l4 creates it on first use")
        return doctor.findings
    if not home.is_dir():
        doctor.note("problem", f"{home} is not a folder — set L4_HOME to a folder (or move the file away)")
        return doctor.findings
    try:
        with tempfile.NamedTemporaryFile(dir=home, prefix=".doctor-"):
            pass
        doctor.note("ok", f"{home} is a writable folder")
    except OSError as exc:
        doctor.note("problem", f"{home} is not writable ({exc.strerror or exc}) — set L4_HOME to a writable folder")
        return doctor.findings
    doctor.check_files(CONFIG_FILE_NAME, _read_config, "config file", "write a new one or rely on the environment")
    _check_pools(doctor)
    doctor.check_files("library/*.json", _read_pattern, "user pattern", "confirm it again with `l4 library confirm`")
    doctor.check_files("cache/diagnoses/*.json", _read_cached, "cached diagnosis", "it is recomputed when needed")
    doctor.check_files("cache/kb-*/", _read_store, "knowledge store", "it is rebuilt on the next search or diagnosis")
    return doctor.findings
