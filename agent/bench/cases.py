"""A labeled dataset on disk: its cases, their labels, and which split each case is in."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import ConfigError, DatasetError
from ..schema import Label
from ..splits import REAL_SPLITS, SYNTH_SPLITS, RealSplits, leave_out_split_of, synth_split_of

LEAVE_OUT = "leave-out"
SPLIT_CHOICES = (*SYNTH_SPLITS, *REAL_SPLITS, LEAVE_OUT)


@dataclass
class Case:
    """One labeled failed job of a dataset."""

    case_id: str
    job_dir: Path  # DATASET/cases/<id>/logs
    label: Label
    normal_jobs: list[Path] = field(default_factory=list)  # DATASET/normal/<setting>/*/logs
    split: str = ""  # the case's side of the dataset's split (see ``assign_splits``)


def _without_extra_fields(data: Any, exc: ValidationError) -> tuple[Any, set[str]] | None:
    """The label data without the fields CONTRACTS does not define, and their names
    (``fault_events[].key``), when those fields are all that is wrong; else None.

    Another tool's labels may carry fields of their own (CONTRACTS grows by optional fields),
    and one unknown key must not make a whole dataset unreadable. ``l4 bench`` names them in
    a warning; ``agent.labelcheck`` still refuses them, so a typo in our corpus never passes."""
    errors = exc.errors()
    if not errors or any(err["type"] != "extra_forbidden" for err in errors):
        return None
    data = copy.deepcopy(data)
    names: set[str] = set()
    for err in errors:
        *parents, key = err["loc"]
        holder = data
        for step in parents:
            holder = holder[step]
        holder.pop(key, None)
        names.add(".".join("[]" if isinstance(step, int) else str(step) for step in err["loc"]).replace(".[]", "[]"))
    return data, names


def _read_label(path: Path, ignored: Counter[str] | None = None) -> Label:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: missing", "every case needs a label.json (see CONTRACTS.md)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{path}: not readable JSON ({exc})", "fix or regenerate the label") from None
    try:
        label = Label.model_validate(data)
    except ValidationError as exc:
        stripped = _without_extra_fields(data, exc) if ignored is not None else None
        if ignored is None or stripped is None:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}" for err in exc.errors()
            )
            raise DatasetError(f"{path}: invalid label: {problems}", "see label.json in CONTRACTS.md") from None
        data, names = stripped
        ignored.update(names)
        label = Label.model_validate(data)  # only fields CONTRACTS does not define were removed
    for event in label.fault_events:
        if not any(event.lines.values()):
            raise DatasetError(f"{path}: fault event {event.id!r} lists no lines", "give its (node, line) pairs")
    return label


def load_cases(dataset: Path, warn: Callable[[str], None] | None = None) -> list[Case]:
    """Every case of ``dataset`` in case-id order, labels validated, splits assigned.

    Raises ``DatasetError`` naming the file and the problem on a missing or bad label,
    a case without ``logs/``, or a dataset without cases. With ``warn``, label fields that
    CONTRACTS does not define are ignored and named once each through it.
    """
    ignored: Counter[str] | None = Counter() if warn is not None else None
    dataset = Path(dataset)
    cases_dir = dataset / "cases"
    if not cases_dir.is_dir():
        raise DatasetError(f"{dataset}: no cases/ directory", "a dataset is DATASET/cases/<id>/{logs,label.json}")
    cases: list[Case] = []
    for case_dir in sorted(p for p in cases_dir.iterdir() if p.is_dir()):
        label = _read_label(case_dir / "label.json", ignored)
        job_dir = case_dir / "logs"
        if not job_dir.is_dir():
            raise DatasetError(f"{job_dir}: missing", "put the case's log files under logs/")
        normal_root = dataset / "normal" / label.setting
        jobs = normal_root.iterdir() if normal_root.is_dir() else iter(())
        normal = sorted(p / "logs" for p in jobs if (p / "logs").is_dir())
        cases.append(Case(case_dir.name, job_dir, label, normal))
    if not cases:
        raise DatasetError(f"{cases_dir}: no cases", "a dataset needs at least one cases/<id>/ directory")
    if warn is not None and ignored:
        for name, count in sorted(ignored.items()):
            warn(f"label field {name!r} is not in CONTRACTS.md: ignored ({count} label(s))")
    return cases


def assign_splits(dataset: Path, cases: list[Case], split: str | None) -> None:
    """Set each case's ``split``: by source repository when the dataset has ``splits.json``
    (real corpora), by fault type for ``leave-out``, else by case id."""
    real = RealSplits.load(dataset)
    if split == LEAVE_OUT:
        if real is not None:
            raise ConfigError("--split leave-out holds out generated fault types", "use dev or test on a real corpus")
        for case in cases:
            case.split = leave_out_split_of(case.label.fault_type)
        return
    for case in cases:
        if real is not None:
            side = real.split_of_source(case.label.source)
            if side is None:
                raise DatasetError(
                    f"{case.case_id}: its source repository is in neither split of {dataset}/splits.json",
                    "add the repository to one split (python -m agent.labelcheck lists them)",
                )
            case.split = side
        else:
            case.split = synth_split_of(case.case_id)


def select(dataset: Path, cases: list[Case], split: str | None) -> list[Case]:
    """The cases of one split (all of them for ``None`` and ``leave-out``)."""
    if split is not None and split not in SPLIT_CHOICES:
        raise ConfigError(f"unknown split {split!r}", f"use one of {', '.join(SPLIT_CHOICES)}, or none for all cases")
    assign_splits(dataset, cases, split)
    if split is None or split == LEAVE_OUT:
        return cases
    is_real = RealSplits.load(dataset) is not None
    wanted = {"train": "dev", "dev": "dev", "test": "test"}[split] if is_real else {"dev": "train"}.get(split, split)
    return [c for c in cases if c.split == wanted]
