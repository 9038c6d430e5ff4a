"""Knowledge docs (knowledge/README.md): the schema, and loading a folder of them.

A doc is YAML front matter plus a Markdown body; the front matter is validated strictly
(``extra="forbid"``), and every signature regex must compile and match its own example, so
a broken doc fails at load with its file and field named, not at search time. Later dirs
override bundled docs of the same id (a user's own version of a pattern).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from ..config import data_dir
from ..errors import KnowledgeError
from ..patterns import regex_specificity
from ..schema import CATEGORIES, subcategory_of

_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.S)
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Signature(BaseModel):
    """A regex searched in one raw log line, with a realistic line it must match."""

    model_config = ConfigDict(extra="forbid")

    regex: str
    example: str
    _compiled: re.Pattern[str] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _compiles_and_matches(self) -> Signature:
        try:
            compiled = re.compile(self.regex)
        except re.error as exc:
            raise ValueError(f"regex {self.regex!r} does not compile: {exc}") from exc
        if not compiled.search(self.example):
            raise ValueError(f"regex {self.regex!r} does not match its own example {self.example!r}")
        self._compiled = compiled
        return self

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:  # built with model_construct
            self._compiled = re.compile(self.regex)
        return self._compiled

    @property
    def specificity(self) -> int:
        return regex_specificity(self.regex)


class KnowledgeDoc(BaseModel):
    """One fault pattern: the front matter of knowledge/README.md plus the Markdown body."""

    model_config = ConfigDict(extra="forbid")

    id: str
    title: str = Field(min_length=1)
    category: str
    subcategory: str
    stack: Literal["ascend", "cuda", "any"]
    components: list[str] = []
    signatures: list[Signature] = []
    symptoms: list[Literal["launching_failure", "training_crash", "abnormal_behavior", "others"]] = Field(min_length=1)
    severity: Literal["critical", "high", "medium", "low"]
    node_local: StrictBool
    wrapper: StrictBool = False  # the message reports a failed call; the cause is printed beside it
    benign: StrictBool = False  # jobs print the message and go on working: it explains a line, never the failure
    # "category/subcategory" the message means while the job is still setting up, when no
    # hardware trace stands beside it (a generic NCCL error at init is the set-up, not a device)
    setup_reading: str | None = None
    remediation: list[str] = []
    collect_next: list[str] = []
    sources: list[str] = Field(min_length=1)
    body: str = ""
    path: str | None = None

    @field_validator("id")
    @classmethod
    def _kebab(cls, value: str) -> str:
        if not _KEBAB.match(value):
            raise ValueError(f"id {value!r} is not kebab-case")
        return value

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        if value not in CATEGORIES:
            raise ValueError(f"unknown category {value!r}; expected one of {', '.join(CATEGORIES)}")
        return value

    @field_validator("sources")
    @classmethod
    def _urls(cls, value: list[str]) -> list[str]:
        for url in value:
            parsed = urlparse(url)
            if parsed.scheme not in ("http", "https") or not parsed.netloc:
                raise ValueError(f"source {url!r} is not an http(s) URL")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> KnowledgeDoc:
        if self.category in CATEGORIES:
            subcategory_of(self.category, self.subcategory)
        if self.setup_reading is not None:
            category, _, subcategory = self.setup_reading.partition("/")
            if category not in CATEGORIES:
                raise ValueError(f"setup_reading {self.setup_reading!r}: unknown category {category!r}")
            subcategory_of(category, subcategory)
        if self.path is not None and Path(self.path).stem != self.id:
            raise ValueError(f"id {self.id!r} differs from the file name {Path(self.path).name!r}")
        return self


class LoadedDocs(list[KnowledgeDoc]):
    """``load_docs``'s result: the docs, plus the warnings of a non-strict load."""

    def __init__(self, docs: Iterable[KnowledgeDoc] = (), warnings: list[str] | None = None) -> None:
        super().__init__(docs)
        self.warnings: list[str] = warnings or []


def bundled_dir() -> Path:
    """The docs shipped with l4 (in the wheel or the source tree)."""
    return data_dir("knowledge")


def _doc_dirs(dirs: Sequence[Path | str] | None, bundled: bool) -> list[Path]:
    out = [bundled_dir()] if bundled else []
    for d in dirs or ():
        path = Path(d).expanduser()
        if not path.is_dir():
            raise KnowledgeError(f"knowledge dir {path} does not exist", "pass a folder of knowledge docs (*.md)")
        out.append(path)
    return out


def doc_files(dirs: Sequence[Path]) -> list[Path]:
    """Every doc file under ``dirs`` (recursively, ``README.md`` excluded), in a stable order."""
    files: list[Path] = []
    for d in dirs:
        files.extend(sorted(p for p in d.rglob("*.md") if p.name.lower() != "readme.md" and p.is_file()))
    return files


def parse_doc(path: Path) -> KnowledgeDoc:
    """Read and validate one doc; a problem raises ``KnowledgeError`` naming file and field."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KnowledgeError(f"knowledge doc {path}: cannot read: {exc}") from exc
    m = _FRONT_MATTER.match(text)
    if not m:
        raise KnowledgeError(
            f"knowledge doc {path}: no YAML front matter", "start the file with a '---' block (knowledge/README.md)"
        )
    try:
        meta = yaml.load(m.group(1), Loader=_YAML_LOADER)
    except yaml.YAMLError as exc:
        raise KnowledgeError(f"knowledge doc {path}: front matter is not valid YAML: {exc}") from exc
    if not isinstance(meta, dict):
        raise KnowledgeError(f"knowledge doc {path}: front matter is not a mapping")
    try:
        return KnowledgeDoc.model_validate({**meta, "body": m.group(2).strip(), "path": str(path)})
    except ValidationError as exc:
        problems = "; ".join(
            f"field {'.'.join(str(p) for p in err['loc']) or '(doc)'}: {err['msg']}" for err in exc.errors()
        )
        raise KnowledgeError(f"knowledge doc {path}: {problems}", "fix the front matter (knowledge/README.md)") from exc


def load_docs(dirs: Sequence[Path | str] | None = None, *, bundled: bool = True, strict: bool = True) -> LoadedDocs:
    """The bundled docs (unless ``bundled=False``) plus the docs under ``dirs``.

    A doc in a later dir replaces a bundled doc of the same id (a user override). With
    ``strict=False`` a bad doc is skipped and the reason kept in ``result.warnings``.
    """
    docs: dict[str, KnowledgeDoc] = {}
    origin: dict[str, Path] = {}
    notes: list[str] = []
    for d in _doc_dirs(dirs, bundled):
        for path in doc_files([d]):
            try:
                doc = parse_doc(path)
                if doc.id in docs and origin[doc.id] == d:
                    raise KnowledgeError(
                        f"knowledge doc {path}: field id: {doc.id!r} is also used by {docs[doc.id].path}"
                    )
            except KnowledgeError as exc:
                if strict:
                    raise
                notes.append(str(exc))
                continue
            if doc.id in docs:
                notes.append(f"knowledge doc {path} overrides {docs[doc.id].path}")
            docs[doc.id] = doc
            origin[doc.id] = d
    return LoadedDocs(docs.values(), notes)
