"""Find and render the prompt files; format evidence as prompt text.

Prompts are plain Markdown files under ``prompts/`` (the wheel ships them as
``agent/_data/prompts``), so they can be reviewed and diffed like code. Rendering is
deliberately tiny and strict rather than Jinja: ``$name`` or ``${name}`` substitutes a
variable, ``$$`` is a literal dollar, and a line ``@include _piece.md`` pastes a shared
piece. A missing variable, an unused one or a stray ``$`` is an error, so a prompt and its
caller cannot drift apart silently. Substitution is one pass: a value is never scanned
again, so a log line containing ``$name`` stays text.

A file may open with an HTML comment documenting its variables (``$name  meaning``); it
is stripped when rendering and a test checks it lists exactly the variables used.

Log text is untrusted. ``Fence`` delimits it with markers carrying a random nonce the log
cannot know, so no line in a log can close the data block and speak as the prompt, and
every formatter here runs the text through a ``Redactor`` before it reaches a prompt.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import PromptError
from .schema import STAGES, SUBCATEGORIES, SYMPTOMS, Diagnosis, Occurrence

if TYPE_CHECKING:
    from .extract import Extraction
    from .knowledge import Hit, KnowledgeDoc
    from .library import LibraryMatch
    from .redact import Redactor

_TOKEN = re.compile(r"\$(?:(?P<escaped>\$)|(?P<named>[A-Za-z_][A-Za-z0-9_]*)|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)\}|(?P<invalid>))")
_INCLUDE = re.compile(r"^[ \t]*@include[ \t]+(?P<name>[\w.\-]+)[ \t]*$", re.MULTILINE)
_DOC_COMMENT = re.compile(r"\A\s*<!--(?P<doc>.*?)-->[ \t]*\n?", re.DOTALL)


def prompt_dir() -> Path:
    """The folder of bundled prompt files."""
    from .config import data_dir

    return data_dir("prompts")


def list_prompts() -> list[str]:
    """File names of the renderable prompts (shared ``_pieces`` excluded)."""
    return sorted(p.name for p in prompt_dir().glob("*.md") if not p.name.startswith("_") and p.name != "README.md")


def _read(name: str) -> str:
    path = prompt_dir() / name
    if not path.is_file():
        raise PromptError(f"prompt file {name!r} not found in {path.parent}", "reinstall l4-agent or restore the file")
    return path.read_text(encoding="utf-8")


def documented_variables(name: str) -> frozenset[str]:
    """Variables named in the file's leading comment (its own documentation)."""
    match = _DOC_COMMENT.match(_read(name))
    return frozenset(re.findall(r"\$([A-Za-z_]\w*)", match.group("doc"))) if match else frozenset()


def load(name: str) -> str:
    """The template text of a prompt with includes expanded and doc comments removed."""
    return _expand(name, ())  # a few small files: not worth a cache that could go stale


def _expand(name: str, stack: tuple[str, ...]) -> str:
    if name in stack:
        raise PromptError(f"prompt include cycle: {' -> '.join((*stack, name))}", "remove the circular @include")
    text = _DOC_COMMENT.sub("", _read(name), count=1)
    return _INCLUDE.sub(lambda m: _expand(m.group("name"), (*stack, name)).rstrip("\n"), text)


def variables(name: str) -> frozenset[str]:
    """The variables a prompt uses (after includes)."""
    found: set[str] = set()
    for match in _TOKEN.finditer(load(name)):
        if match.group("invalid") is not None:
            raise _invalid(name, load(name), match.start())
        var = match.group("named") or match.group("braced")
        if var:
            found.add(var)
    return frozenset(found)


def _invalid(name: str, text: str, pos: int) -> PromptError:
    line = text.count("\n", 0, pos) + 1
    return PromptError(f"stray '$' in prompt {name!r} (expanded line {line})", "write $$ for a literal dollar sign")


def render(name: str, /, **values: object) -> str:
    """Render a prompt; every variable it uses must be given, and nothing else."""
    template = load(name)
    used = variables(name)
    missing = sorted(used - values.keys())
    unused = sorted(values.keys() - used)
    if missing:
        raise PromptError(f"prompt {name!r} needs variable(s) {', '.join(missing)}", "pass them to render()")
    if unused:
        raise PromptError(f"prompt {name!r} does not use variable(s) {', '.join(unused)}", "remove them or use them in the prompt")

    def sub(match: re.Match[str]) -> str:
        if match.group("escaped"):
            return "$"
        return str(values[match.group("named") or match.group("braced")])

    return _TOKEN.sub(sub, template)


# ------------------------------------------------------------------ untrusted text


@dataclass(frozen=True)
class Fence:
    """Markers around untrusted log text, with a nonce the text cannot contain."""

    nonce: str

    @classmethod
    def new(cls, *texts: str) -> Fence:
        """A fence whose nonce occurs in none of ``texts``."""
        while True:
            nonce = secrets.token_hex(8)
            if not any(nonce in t for t in texts):
                return cls(nonce)

    @property
    def begin(self) -> str:
        return f"<<<LOG-DATA {self.nonce}>>>"

    @property
    def end(self) -> str:
        return f"<<<END-LOG-DATA {self.nonce}>>>"

    def wrap(self, text: str) -> str:
        """``text`` between the markers (for tool results and other late log text)."""
        if self.nonce in text:
            raise ValueError("text contains the fence nonce; make a new Fence with Fence.new(text)")
        return f"{self.begin}\n{text}\n{self.end}"

    def variables(self) -> dict[str, str]:
        return {"fence_begin": self.begin, "fence_end": self.end}


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_line(text: str, redactor: Redactor | None, limit: int = 500) -> str:
    """One log text made safe for a prompt: redacted, on one line, bounded."""
    if redactor is not None:
        text = redactor.redact(text)  # before cutting, so a secret is never cut in half and missed
    text = _CONTROL.sub(" ", text.replace("\r\n", "\n").replace("\n", " ⏎ ").replace("\t", " "))
    if len(text) > limit:
        text = f"{text[:limit]}…[+{len(text) - limit} chars]"
    return text


def vocabulary_text() -> str:
    """The allowed category/subcategory, symptom and stage values, from agent.schema."""
    lines = ["category: subcategories"]
    lines += [f"- {cat}: {', '.join(subs)}" for cat, subs in SUBCATEGORIES.items()]
    lines.append(f"symptom: {', '.join(SYMPTOMS)}")
    lines.append(f"stage: {', '.join(STAGES)}")
    return "\n".join(lines)


def signals_text(diagnosis: Diagnosis, extraction: Extraction | None, redactor: Redactor | None) -> str:
    """What the extractor concluded about the job as a whole."""
    its = ", ".join(str(i) for i in diagnosis.iterations[:5]) or "unknown"
    lines = [
        f"job: {clean_line(diagnosis.job, redactor, 200)}",
        f"symptom (from the extractor): {diagnosis.symptom}",
        f"stage at failure: {diagnosis.stage}",
        f"failure-indicating iteration(s): {its}",
    ]
    if extraction is not None:
        lines.append(f"scope of the root events: {extraction.scope}")
        lines.append(f"normal jobs compared against: {extraction.normal_jobs}")
        if extraction.abnormal_iterations:
            lines.append(f"iterations with abnormal duration: {len(extraction.abnormal_iterations)}")
        if extraction.cascades:
            lines.append("cascade and teardown events (context, usually consequences rather than the root):")
            for ev in extraction.cascades[:5]:
                nodes = ", ".join(ev.nodes[:4]) + (f" (+{len(ev.nodes) - 4})" if len(ev.nodes) > 4 else "")
                lines.append(f"- [{ev.role}] {clean_line(ev.template, redactor, 300)}  on {nodes}")
    return "\n".join(lines)


def events_text(diagnosis: Diagnosis, redactor: Redactor | None, max_events: int = 8, lines_per_event: int = 5) -> str:
    """The ranked failure-indicating events with node:line and raw lines."""
    if not diagnosis.events:
        return "(no failure-indicating events found)"
    out: list[str] = []
    for i, ev in enumerate(diagnosis.events[:max_events], 1):
        nodes = list(dict.fromkeys(o.node for o in ev.occurrences))
        total = f"{len(ev.occurrences)}{'+' if ev.occurrences_truncated else ''}"
        out.append(f"E{i}  score {ev.score:.2f}  {total} occurrence(s) on {len(nodes)} node(s)")
        out.append(f"  template: {clean_line(ev.template, redactor)}")
        if ev.reasons:
            out.append(f"  ranked because: {clean_line('; '.join(ev.reasons), redactor)}")
        # One line per node first (spread), then more lines of the first nodes.
        first: dict[str, Occurrence] = {}
        for occ in ev.occurrences:
            first.setdefault(occ.node, occ)
        picked = list(first.values())[:lines_per_event]
        for occ in ev.occurrences:
            if len(picked) >= lines_per_event:
                break
            if occ not in picked:
                picked.append(occ)
        for occ in sorted(picked, key=lambda o: (nodes.index(o.node), o.line)):
            out.append(f"  {occ.node}:{occ.line} | {clean_line(occ.text, redactor)}")
    if len(diagnosis.events) > max_events:
        out.append(f"(+{len(diagnosis.events) - max_events} lower-ranked events not shown)")
    return "\n".join(out)


def nodes_text(diagnosis: Diagnosis, all_nodes: Sequence[str], redactor: Redactor | None, max_listed: int = 64) -> str:
    """The node ranking with reasons, and the job's node names."""
    out: list[str] = []
    if diagnosis.faulty_nodes:
        out.append("suspect nodes, ranked:")
        for i, n in enumerate(diagnosis.faulty_nodes[:20], 1):
            out.append(f"{i}. {n.node}  score {n.score:.2f}: {clean_line(n.reason, redactor, 300)}")
    else:
        out.append("suspect nodes: none singled out by the statistics")
    if all_nodes:
        shown = ", ".join(all_nodes[:max_listed])
        more = f", … (+{len(all_nodes) - max_listed} more)" if len(all_nodes) > max_listed else ""
        out.append(f"all {len(all_nodes)} node(s) of the job: {shown}{more}")
    return "\n".join(out)


CONTEXT_LINES_SHOWN = 15  # a traceback's innermost frames and the message's rest; more is noise in a prompt


def context_text(
    root: str, before: Sequence[str], after: Sequence[str], advice: Sequence[str], redactor: Redactor | None
) -> str:
    """The root event's neighbours in its file (the traceback above, the message's rest below)
    and the fix the log itself prints: what the templates alone lost."""
    if not root:
        return "(no root event)"
    out = [f"  | {clean_line(t, redactor, 300)}" for t in list(before)[-CONTEXT_LINES_SHOWN:]]
    out.append(f"> | {clean_line(root, redactor, 300)}")
    out += [f"  | {clean_line(t, redactor, 300)}" for t in after]
    out += [f"the log's own advice: {clean_line(a, redactor, 300)}" for a in advice]
    return "\n".join(out)


def library_text(library: Sequence[LibraryMatch], redactor: Redactor | None, max_matches: int = 5) -> str:
    """Fault-library matches on the events, best first."""
    if not library:
        return "(no known fault pattern matched)"
    out: list[str] = []
    for i, m in enumerate(library[:max_matches], 1):
        origin = "knowledge-doc signature" if m.source == "doc" else "pattern confirmed by an SRE"
        out.append(f"L{i}  {m.id}  ({origin}, confidence {m.confidence:.2f})  {m.category}/{m.subcategory}: {clean_line(m.title, redactor, 200)}")
        out.append(f"  matched {m.count} line(s) on: {', '.join(m.nodes[:8])}{' …' if len(m.nodes) > 8 else ''}")
        for sample in m.samples[:2]:
            out.append(f"  sample | {clean_line(sample, redactor)}")
    return "\n".join(out)


@dataclass(frozen=True)
class KnowledgeItem:
    """One knowledge document offered to the model."""

    id: str
    title: str
    category: str
    subcategory: str
    score: float
    excerpt: str
    remediation: tuple[str, ...]


def _excerpt(body: str, limit: int) -> str:
    text = " ".join(line.strip().lstrip("#").strip() for line in body.splitlines() if line.strip())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def knowledge_items(
    hits: Iterable[Hit],
    docs: Mapping[str, KnowledgeDoc],
    library: Iterable[LibraryMatch] = (),
    excerpt_chars: int = 300,
    max_items: int = 6,
) -> list[KnowledgeItem]:
    """Retrieved docs, then docs named by library matches; de-duplicated, best first."""
    items: dict[str, KnowledgeItem] = {}
    candidates: list[tuple[str, str, str, str, float]] = [(h.id, h.title, h.category, h.subcategory, h.score) for h in hits]
    candidates += [(m.id, m.title, m.category, m.subcategory, m.confidence) for m in library if m.source == "doc"]
    for doc_id, title, cat, sub, score in candidates:
        if doc_id in items or len(items) >= max_items:
            continue
        doc = docs.get(doc_id)
        items[doc_id] = KnowledgeItem(
            id=doc_id,
            title=doc.title if doc else title,
            category=doc.category if doc else cat,
            subcategory=doc.subcategory if doc else sub,
            score=float(score),
            excerpt=_excerpt(doc.body, excerpt_chars) if doc else "",
            remediation=tuple(doc.remediation) if doc else (),
        )
    return list(items.values())


def knowledge_text(items: Sequence[KnowledgeItem], redactor: Redactor | None) -> str:
    """The knowledge documents as prompt text."""
    if not items:
        return "(no knowledge document retrieved)"
    out: list[str] = []
    for i, k in enumerate(items, 1):
        kind = f"{k.category}/{k.subcategory}: " if k.category else ""
        out.append(f"K{i}  id={k.id}  (relevance {k.score:.2f})  {kind}{clean_line(k.title, redactor, 200)}")
        if k.excerpt:
            out.append(f"  excerpt: {clean_line(k.excerpt, redactor, 600)}")
        if k.remediation:
            steps = " | ".join(clean_line(s, redactor, 200) for s in k.remediation[:5])
            out.append(f"  remediation: {steps}")
    return "\n".join(out)


def verdict_text(diagnosis: Diagnosis, redactor: Redactor | None) -> str:
    """The verdict fields of a diagnosis as JSON (events and node details are shown elsewhere)."""
    verdict = {
        "category": diagnosis.category,
        "subcategory": diagnosis.subcategory,
        "symptom": diagnosis.symptom,
        "stage": diagnosis.stage,
        "iterations": diagnosis.iterations[:3],
        "faulty_nodes": [n.node for n in diagnosis.faulty_nodes],
        "root_cause": diagnosis.root_cause,
        "remediation": diagnosis.remediation,
        "collect_next": diagnosis.collect_next,
        "confidence": diagnosis.confidence,
        "knowledge": [k.id for k in diagnosis.knowledge],
        "reasoner": diagnosis.reasoner,
    }
    text = json.dumps(verdict, indent=2, ensure_ascii=False)
    return redactor.redact(text) if redactor is not None else text


def chat_variables(
    diagnosis: Diagnosis,
    *,
    redactor: Redactor | None = None,
    fence: Fence | None = None,
    all_nodes: Sequence[str] = (),
    docs: Mapping[str, KnowledgeDoc] | None = None,
    extraction: Extraction | None = None,
    library: Sequence[LibraryMatch] = (),
    context: str = "(not read)",
) -> dict[str, str]:
    """Exactly the variables of ``chat.md`` for a finished diagnosis.

    ``render("chat.md", **chat_variables(d, redactor=Redactor(), fence=fence))``; keep the
    fence to wrap later tool results (``fence.wrap(text)``), so they are data too.
    """
    from .redact import Redactor

    redactor = redactor if redactor is not None else Redactor()
    fence = fence or Fence.new(*(o.text for e in diagnosis.events for o in e.occurrences))
    refs = [(k.id, k.title, k.score) for k in diagnosis.knowledge]
    items = [
        KnowledgeItem(
            id=i,
            title=(docs[i].title if docs and i in docs else t),
            category=docs[i].category if docs and i in docs else "",
            subcategory=docs[i].subcategory if docs and i in docs else "",
            score=s,
            excerpt=_excerpt(docs[i].body, 300) if docs and i in docs else "",
            remediation=tuple(docs[i].remediation) if docs and i in docs else (),
        )
        for i, t, s in refs
    ]
    return {
        **fence.variables(),
        "signals": signals_text(diagnosis, extraction, redactor),
        "events": events_text(diagnosis, redactor),
        "nodes": nodes_text(diagnosis, list(all_nodes), redactor),
        "library": library_text(library, redactor),
        "context": context,
        "verdict": verdict_text(diagnosis, redactor),
        "knowledge": knowledge_text(items, redactor),
        "vocabulary": vocabulary_text(),
    }
