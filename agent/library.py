"""The fault library: known failure patterns, checked before any statistics or LLM.

As in the L4 paper's deployment, a production diagnoser first asks "have we seen this
before?": every knowledge-doc signature, plus patterns an SRE confirmed on earlier jobs
(``l4 confirm``). A hit names the fault outright, with its remediation.

Confidence is principled rather than tuned per pattern:

- a user pattern was confirmed by a human on a real job: 0.8, rising to 0.95 as more of
  its events are seen (a pattern built from several events is only fully present when
  all of them match);
- a doc signature scores by its *specificity*, the number of literal characters every
  match must contain (``knowledge.regex_specificity``): a family regex such as
  ``\\bEJ\\d{4}\\b`` (2 literals) fires on any HCCP code and is a weak hint (0.4), while a
  full message such as ``Failed to initialize the HCCP process`` (20+ literals) names one
  fault (0.9).

User patterns are JSON files under ``L4_HOME/library`` (never the package: an upgrade
must not erase them, and the package dir may be read-only). A pattern's regexes are
built from the mined event templates (masks such as ``<NUM>`` become tolerant
sub-patterns) and must match the sample texts they came from, so a confirm that would
never fire again is refused at once.

Matching many lines against ~450 regexes is kept cheap by de-duplicating texts and by a
required-literal pre-filter (a substring test) before each regex search.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from .config import home
from .errors import AgentError, LibraryError
from .knowledge import SPECIFIC_LITERALS, KnowledgeDoc, regex_specificity, required_literal
from .schema import subcategory_of

USER_PATTERN_SCHEMA = "l4-user-pattern/1"
USER_CONFIDENCE = (0.8, 0.95)  # one event of several seen .. all seen
DOC_CONFIDENCE = (0.4, 0.9)  # family regex .. specific regex
MIN_PATTERN_LITERALS = 8  # a user regex with fewer literal characters would fire on anything

# How each mask of agent.mining reads back: tolerant, but anchored on the shape of the value.
MASK_PATTERNS: dict[str, str] = {
    "NUM": r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?",
    "IP": r"[0-9A-Fa-f:.]*\d[0-9A-Fa-f:.]*",
    "HEX": r"(?:0[xX])?[0-9A-Fa-f]+",
    "TS": r"[\[\]\w:./,+\- ]*?\d",
    "PATH": r"\S+",
    "RANK": r"\d+",
    "ITER": r"\d+",
    "NODE": r"[\w.\-]+",
    "PCI": r"(?:[0-9A-Fa-f]{4,8}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?",
}
_MASK_TOKEN = re.compile(r"<\*>|<([A-Z]{2,8})>")


@dataclass
class Pattern:
    """One regex of the library, with what a match means."""

    id: str  # doc id or user pattern id
    source: str  # "doc" or "user"
    regex: str
    category: str
    subcategory: str
    title: str
    remediation: list[str]
    confidence: float
    specificity: int
    compiled: re.Pattern[str] | None = field(repr=False, default=None)
    prefilter: str | None = None  # a literal every match contains
    prefilter_lower: bool = False
    wrapper: bool = False  # the doc's message only reports a failed call (knowledge README: `wrapper`)
    benign: bool = False  # the doc's message is printed by jobs that go on working (knowledge README: `benign`)

    def __post_init__(self) -> None:
        if self.compiled is None:
            self.compiled = re.compile(self.regex)
        if self.prefilter is None:
            self.prefilter, self.prefilter_lower = required_literal(self.regex)

    def search(self, text: str, lowered: str) -> bool:
        if self.prefilter and self.prefilter not in (lowered if self.prefilter_lower else text):
            return False
        assert self.compiled is not None
        return self.compiled.search(text) is not None


@dataclass
class LibraryMatch:
    """A library entry that fired on the given lines."""

    id: str  # doc id or user pattern id
    source: str  # "doc" or "user"
    category: str
    subcategory: str
    title: str
    remediation: list[str]
    confidence: float
    regexes: list[str]  # the regexes of this entry that matched
    nodes: list[str]  # nodes with a match, in first-seen order
    count: int  # matching (node, text) pairs
    samples: list[str]  # up to 3 matching texts
    wrapper: bool = False  # a doc whose message only reports that a call failed
    benign: bool = False  # a doc whose message jobs print and go on working

    @property
    def doc_id(self) -> str | None:
        return self.id if self.source == "doc" else None

    def to_json_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class UserPattern:
    """A pattern an SRE confirmed on a diagnosed job (stored as JSON in the user dir)."""

    id: str
    category: str
    subcategory: str
    note: str
    regexes: list[str]
    templates: list[str]
    samples: list[str]
    remediation: list[str] = field(default_factory=list)
    source_job: str | None = None
    created: str = ""
    schema: str = USER_PATTERN_SCHEMA

    @property
    def title(self) -> str:
        return self.note.splitlines()[0][:120] if self.note else f"user pattern {self.id}"

    def to_json_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any]) -> UserPattern:
        if data.get("schema") != USER_PATTERN_SCHEMA:
            raise ValueError(f"schema is {data.get('schema')!r}, expected {USER_PATTERN_SCHEMA!r}")
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown fields {sorted(unknown)}")
        pattern = cls(**data)
        subcategory_of(pattern.category, pattern.subcategory)
        for rx in pattern.regexes:
            re.compile(rx)
        return pattern


# ------------------------------------------------------------------ regex helpers


def template_regex(template: str) -> str:
    """A regex from a mined template: literal text escaped (runs of spaces tolerant), masks
    turned into tolerant sub-patterns. Leading and trailing pieces without a word in them
    (timestamps, node names, pids, punctuation) are dropped: they add nothing to what the
    pattern recognises, and they are where log prefixes differ between jobs."""
    pieces: list[tuple[str, bool]] = []  # (regex, carries a word)
    pos = 0
    for m in _MASK_TOKEN.finditer(template):
        pieces.extend(_literal_pieces(template[pos : m.start()]))
        if m.group(0) == "<*>":
            before = template[m.start() - 1 : m.start()]
            after = template[m.end() : m.end() + 1]
            whole_token = (not before or before.isspace()) and (not after or after.isspace())
            pieces.append((r"\S+" if whole_token else r"\S*?", False))
        else:
            pieces.append(("(?:" + MASK_PATTERNS.get(m.group(1), r"\S+") + ")", False))
        pos = m.end()
    pieces.extend(_literal_pieces(template[pos:]))
    while pieces and not pieces[0][1]:
        pieces.pop(0)
    while pieces and not pieces[-1][1]:
        pieces.pop()
    return "".join(rx for rx, _ in pieces)


def _literal_pieces(text: str) -> list[tuple[str, bool]]:
    out = []
    for piece in re.split(r"(\s+)", text):
        if piece:
            out.append((r"\s+", False) if piece.isspace() else (re.escape(piece), bool(_WORDISH.search(piece))))
    return out


_WORDISH = re.compile(r"[A-Za-z]{2}")


def _field(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _event_samples(event: Any) -> list[str]:
    texts: list[str] = []
    for key in ("samples", "sample_texts", "texts"):
        value = _field(event, key)
        if value:
            texts.extend(str(t) for t in value)
    for occ in _field(event, "occurrences") or ():
        text = _field(occ, "text")
        if text:
            texts.append(str(text))
    text = _field(event, "text")
    if text:
        texts.append(str(text))
    seen: dict[str, None] = {}
    for t in texts:
        seen.setdefault(t, None)
    return list(seen)[:5]


def _sample_regex(sample: str) -> str:
    """Fallback when a template does not match its own samples: mask the sample ourselves."""
    from .mining import Masker

    return template_regex(Masker().mask(sample))


# ------------------------------------------------------------------------ library


def doc_confidence(specificity: int) -> float:
    lo, hi = DOC_CONFIDENCE
    return round(lo + (hi - lo) * min(specificity, SPECIFIC_LITERALS) / SPECIFIC_LITERALS, 3)


def _package_dirs() -> list[Path]:
    from .config import data_dir

    dirs = [Path(__file__).resolve().parent]
    with contextlib.suppress(AgentError):
        dirs.append(data_dir("knowledge").resolve())
    return dirs


class FaultLibrary:
    """Doc signatures plus user-confirmed patterns; ``match`` says which fire on given lines."""

    def __init__(
        self, patterns: list[Pattern], user_dir: Path, user_patterns: list[UserPattern], warnings: list[str]
    ) -> None:
        self.patterns = patterns
        self.user_dir = user_dir
        self._user = {p.id: p for p in user_patterns}
        self.warnings = warnings

    @classmethod
    def load(cls, docs: Iterable[KnowledgeDoc] | None = None, user_dir: Path | str | None = None) -> FaultLibrary:
        """All doc signatures (default: the bundled docs) and the user patterns of ``user_dir``
        (default ``L4_HOME/library``). A damaged user file is skipped with a warning."""
        if docs is None:
            from .knowledge import load_docs

            docs = load_docs()
        udir = Path(user_dir).expanduser() if user_dir is not None else home().library
        resolved = udir.resolve()
        for pkg in _package_dirs():
            if resolved == pkg or pkg in resolved.parents:
                raise LibraryError(
                    f"user pattern dir {udir} is inside the l4 package", "set L4_HOME to a writable data dir"
                )
        patterns: list[Pattern] = []
        for doc in docs:
            for sig in doc.signatures:
                spec = sig.specificity
                patterns.append(
                    Pattern(
                        doc.id,
                        "doc",
                        sig.regex,
                        doc.category,
                        doc.subcategory,
                        doc.title,
                        list(doc.remediation),
                        doc_confidence(spec),
                        spec,
                        sig.compiled,
                        wrapper=doc.wrapper,
                        benign=doc.benign,
                    )
                )
        users: list[UserPattern] = []
        warnings: list[str] = []
        if udir.is_dir():
            for path in sorted(udir.glob("*.json")):
                try:
                    users.append(UserPattern.from_json_dict(json.loads(path.read_text(encoding="utf-8"))))
                except (OSError, ValueError, TypeError, re.error) as exc:
                    warnings.append(f"user pattern {path} skipped: {exc}")
        lib = cls(patterns, udir, users, warnings)
        return lib

    # -- matching ------------------------------------------------------------

    def _all_patterns(self) -> list[Pattern]:
        out = list(self.patterns)
        for up in self._user.values():
            for rx in up.regexes:
                out.append(
                    Pattern(
                        up.id,
                        "user",
                        rx,
                        up.category,
                        up.subcategory,
                        up.title,
                        list(up.remediation),
                        USER_CONFIDENCE[1],
                        regex_specificity(rx),
                    )
                )
        return out

    def match(self, lines: Iterable[tuple[str, str] | str], memo: dict[str, list[int]] | None = None) -> list[LibraryMatch]:
        """Entries that fire on ``lines``: ``(node, raw text)`` pairs, or plain texts (templates,
        sample lines). Best first: confidence, then how many nodes and lines matched.
        ``memo`` keeps which patterns each text hit, across calls (see ``JobMatches``)."""
        patterns = self._all_patterns()
        per_text: dict[str, list[int]] = {} if memo is None else memo
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for item in lines:
            node, text = ("", item) if isinstance(item, str) else item
            hit_idx = per_text.get(text)
            if hit_idx is None:
                lowered = text.lower()
                hit_idx = [i for i, p in enumerate(patterns) if p.search(text, lowered)]
                per_text[text] = hit_idx
            entries: dict[tuple[str, str], dict[str, Any]] = {}
            for i in hit_idx:
                p = patterns[i]
                entry = found.setdefault(
                    (p.source, p.id), {"pattern": p, "regexes": {}, "nodes": {}, "count": 0, "samples": []}
                )
                entry["regexes"][p.regex] = None
                entries[(p.source, p.id)] = entry
            for entry in entries.values():  # once per line, however many of the entry's regexes fired
                if node:
                    entry["nodes"][node] = None
                entry["count"] += 1
                if len(entry["samples"]) < 3 and text not in entry["samples"]:
                    entry["samples"].append(text)
        out: list[LibraryMatch] = []
        specificity: dict[tuple[str, str], int] = {}
        for (source, pid), e in found.items():
            p = e["pattern"]
            if source == "user":
                total = len(self._user[pid].regexes)
                lo, hi = USER_CONFIDENCE
                conf = round(lo + (hi - lo) * len(e["regexes"]) / max(total, 1), 3)
            else:  # the most specific of the doc's regexes that fired
                fired = [pp for pp in patterns if pp.source == "doc" and pp.id == pid and pp.regex in e["regexes"]]
                conf = max(pp.confidence for pp in fired)
                specificity[(source, pid)] = max(pp.specificity for pp in fired)
            out.append(
                LibraryMatch(
                    pid,
                    source,
                    p.category,
                    p.subcategory,
                    p.title,
                    p.remediation,
                    conf,
                    list(e["regexes"]),
                    list(e["nodes"]),
                    e["count"],
                    e["samples"],
                    p.wrapper,
                    p.benign,
                )
            )
        # Confidence saturates at SPECIFIC_LITERALS; past it, the pattern that spells out more of the
        # message names the cause more closely ("unrecognized arguments: --local-rank=N", PyTorch 2.0's
        # launcher, over any rejected argument).
        out.sort(key=lambda m: (-m.confidence, -specificity.get((m.source, m.id), 0), -len(m.nodes), -m.count, m.id))
        return out

    # -- user patterns -------------------------------------------------------

    def confirm(
        self,
        events: Sequence[Any],
        category: str,
        subcategory: str,
        note: str,
        remediation: Sequence[str] | str | None = None,
        source_job: str | None = None,
    ) -> UserPattern:
        """Save a diagnosed job's top events as a user pattern, so a similar job is recognised.

        Each event (a mapping or object) gives a ``template`` and sample texts (``samples``,
        ``texts``, ``text`` or ``occurrences[].text``). The regex comes from the template;
        when it misses a sample (the template came from another masker), from the masked
        sample instead. Raises ``LibraryError`` if no usable, specific regex results.
        """
        try:
            subcategory_of(category, subcategory)
        except ValueError as exc:
            raise LibraryError(str(exc), "use the vocabulary of CONTRACTS.md (e.g. hardware network)") from exc
        if not events:
            raise LibraryError("no events to confirm", "pass the diagnosis' top events")
        regexes: list[str] = []
        templates: list[str] = []
        samples: list[str] = []
        for event in events:
            template = str(_field(event, "template") or "")
            texts = _event_samples(event)
            if not template and not texts:
                raise LibraryError(f"event {event!r} has neither a template nor sample texts")
            candidates = [template_regex(template)] if template else []
            candidates += [_sample_regex(t) for t in texts]
            chosen = None
            for rx in candidates:
                if not rx or regex_specificity(rx) < MIN_PATTERN_LITERALS:
                    continue
                compiled = re.compile(rx)
                if all(compiled.search(t) for t in texts):
                    chosen = rx
                    break
            if chosen is None:
                raise LibraryError(
                    f"cannot build a specific pattern from event {template or texts[0]!r}",
                    "confirm events with more literal text than numbers and masks",
                )
            if chosen not in regexes:
                regexes.append(chosen)
                templates.append(template)
                samples.extend(texts[:2])
        if isinstance(remediation, str):
            remediation = [remediation]
        digest = hashlib.sha256("\n".join([category, subcategory, *regexes]).encode()).hexdigest()[:10]
        slug = re.sub(r"[^a-z0-9]+", "-", note.lower()).strip("-")[:40].strip("-") or subcategory.replace("_", "-")
        pattern = UserPattern(
            id=f"user-{slug}-{digest}",
            category=category,
            subcategory=subcategory,
            note=note,
            regexes=regexes,
            templates=templates,
            samples=samples,
            remediation=list(remediation or []),
            source_job=source_job,
            created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        self._save(pattern)
        self._user[pattern.id] = pattern
        return pattern

    def _save(self, pattern: UserPattern) -> None:
        self.user_dir.mkdir(parents=True, exist_ok=True)
        target = self.user_dir / f"{pattern.id}.json"
        tmp = target.with_suffix(f".json.tmp{os.getpid()}")
        tmp.write_text(json.dumps(pattern.to_json_dict(), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, target)

    def list_user_patterns(self) -> list[UserPattern]:
        return sorted(self._user.values(), key=lambda p: (p.created, p.id))

    def remove_user_pattern(self, pattern_id: str) -> None:
        if pattern_id not in self._user:
            raise LibraryError(f"no user pattern {pattern_id!r}", "list them with `l4 library list`")
        (self.user_dir / f"{pattern_id}.json").unlink(missing_ok=True)
        del self._user[pattern_id]


class KnownFaults(Protocol):
    """What a diagnosis needs of the library: ``FaultLibrary`` or one job's ``JobMatches``."""

    warnings: list[str]

    def match(self, lines: Iterable[tuple[str, str] | str]) -> list[LibraryMatch]: ...


class JobMatches:
    """The library as one diagnosis sees it: each distinct line is searched once, and the
    extractor (which boosts known faults) and the evidence (which the reasoner reads) use
    the same per-line result instead of matching the library twice. Valid while the
    library's patterns do not change, i.e. for one diagnosis."""

    def __init__(self, library: FaultLibrary) -> None:
        self.library = library
        self.warnings = library.warnings
        self._hits: dict[str, list[int]] = {}

    def match(self, lines: Iterable[tuple[str, str] | str]) -> list[LibraryMatch]:
        return self.library.match(lines, memo=self._hits)
