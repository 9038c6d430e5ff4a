"""Tools over one job for follow-up questions: grep, windows, first errors, comparisons.

``l4 chat`` answers "why not worker-3?" or "what changed at iteration 1520?" from the
evidence, not from memory. Each tool reads the job (streaming its files, or the mined
arrays of a finished analysis) and returns plain text in which every log line is cited as
``node:line`` (CONTRACTS.md line numbers: console logs cite the console file's lines), plus
the citations as data. The same tools serve the offline command grammar and the LLM's
tool calls (agent/chat.py), so both see the same, checkable evidence.

Jobs can be 10 GB: reading streams and stops as early as it can, and every output is
bounded (lines clipped, hits capped, a character budget per answer) so nothing a tool
returns can flood a terminal or a model's context. Tools raise ``ToolError`` (with what to
do instead) for bad input: an unknown node, an invalid regex, a line out of range.
"""

from __future__ import annotations

import difflib
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .errors import ToolError
from .ingest import Job, SourceFile, open_job, read_lines
from .mining import LEVEL_CODES
from .records import LogLine
from .schema import Diagnosis

if TYPE_CHECKING:
    from .knowledge import Hit, KnowledgeDoc
    from .mining import MinedJob
    from .pipeline import Analysis
    from .records import NodeLog

Citation = tuple[str, int]  # (node, 1-based line)

MAX_LINE_CHARS = 240  # one log line as shown; real lines can be 16 kB
MAX_OUTPUT_CHARS = 6_000  # one tool's whole output (~1.5k tokens)
MAX_GREP_HITS = 200
MAX_WINDOW = 50  # lines before/after in a window
MAX_LISTED_NODES = 40
ERROR_LEVEL = LEVEL_CODES["ERROR"]
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class KnowledgeSearch(Protocol):
    """What the ``kb`` tool needs of ``agent.knowledge.KnowledgeBase``."""

    def search(self, query: str, top: int = 5, stack: str | None = None, *, mode: Any = "hybrid") -> list[Hit]: ...

    def get(self, doc_id: str) -> KnowledgeDoc: ...


def terminal_safe(text: str) -> str:
    """Drop ANSI escapes and control characters (keeping newlines and tabs)."""
    return _CONTROL.sub("", _ANSI.sub("", text))


def clip(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """One line, terminal-safe, at most ``limit`` characters."""
    text = terminal_safe(text.replace("\r", " ").replace("\n", " "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cite(node: str, line: int) -> str:
    return f"{node}:{line}"


@dataclass
class ToolResult:
    """A tool's answer: plain text plus the ``node:line`` citations it contains."""

    text: str
    citations: list[Citation] = field(default_factory=list)

    def __str__(self) -> str:
        return self.text


class _Out:
    """Builds a bounded output: lines past the character budget are counted, not kept."""

    def __init__(self, budget: int = MAX_OUTPUT_CHARS) -> None:
        self.lines: list[str] = []
        self.citations: list[Citation] = []
        self.budget = budget
        self.used = 0
        self.dropped = 0

    def add(self, text: str = "") -> None:
        if self.dropped or self.used + len(text) + 1 > self.budget:
            self.dropped += 1
            return
        self.lines.append(text)
        self.used += len(text) + 1

    def log(self, node: str, line: int, text: str, indent: str = "  ", mark: str = "") -> None:
        """A cited log line: ``worker-7:8812  <text>``."""
        before = self.dropped
        self.add(f"{indent}{mark}{cite(node, line)}  {clip(text)}")
        if self.dropped == before:
            self.citations.append((node, line))

    def result(self) -> ToolResult:
        text = "\n".join(self.lines)
        if self.dropped:
            text += f"\n… output truncated ({self.dropped} more line(s)); narrow the question"
        return ToolResult(text, list(dict.fromkeys(self.citations)))


@dataclass(frozen=True)
class _NodeRef:
    source: SourceFile
    stream_node: str  # the node name ingest gives its lines (mining may qualify it with the file)


class JobTools:
    """The tools over one job and its finished diagnosis (plus the analysis, when at hand)."""

    def __init__(
        self,
        job: Path | str | Job,
        diagnosis: Diagnosis,
        analysis: Analysis | None = None,
        kb: KnowledgeSearch | None = None,
        kb_mode: str = "bm25",
    ) -> None:
        if analysis is not None:
            self.job = analysis.mined.job
        else:
            self.job = job if isinstance(job, Job) else open_job(job)
        self.diagnosis = diagnosis
        self.analysis = analysis
        self._mined: MinedJob | None = analysis.mined if analysis is not None else None
        self._kb = kb
        self.kb_mode = kb_mode
        self._refs: dict[str, _NodeRef] | None = None
        self._progress: set[int] | None = None

    # ------------------------------------------------------------------ job access

    @property
    def mined(self) -> MinedJob:
        """The mined job: the analysis' own, else mined once now (reads the whole job)."""
        if self._mined is None:
            from .mining import mine_job

            self._mined = mine_job(self.job, workers=1)
        return self._mined

    def _node_refs(self) -> dict[str, _NodeRef]:
        if self._refs is None:
            sources = {s.path: s for s in self.job.sources}
            refs: dict[str, _NodeRef] = {}
            for name, log in self.mined.nodes.items():
                source = sources[log.source]
                refs[name] = _NodeRef(source, log.stream or name)
            self._refs = refs
        return self._refs

    @property
    def node_names(self) -> list[str]:
        return sorted(self._node_refs(), key=_natural_key)

    def resolve(self, node: str) -> str:
        """The job's name for ``node`` (exact, then case-insensitive); else a ToolError listing nodes."""
        refs = self._node_refs()
        node = node.strip().strip("'\"`,.?!")
        if node in refs:
            return node
        folded = {n.lower(): n for n in refs}
        if node.lower() in folded:
            return folded[node.lower()]
        names = self.node_names
        close = difflib.get_close_matches(node, names, n=3, cutoff=0.6)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise ToolError(f"no node {node!r} in this job", f"{hint}nodes: {_list_names(names)}")

    def _stream(self, node: str) -> Iterator[LogLine]:
        """One node's lines, streamed from its file (warnings of a re-read are dropped)."""
        ref = self._node_refs()[node]
        for line in read_lines(ref.source, []):
            if line.node == ref.stream_node:
                yield line

    def _texts(self, wanted: dict[str, set[int]]) -> dict[Citation, str]:
        """Raw text of selected lines, each file read once and only as far as needed."""
        by_source: dict[Path, dict[str, set[int]]] = {}
        refs = self._node_refs()
        for node, lines in wanted.items():
            if lines:
                ref = refs[node]
                by_source.setdefault(ref.source.path, {})[ref.stream_node] = set(lines)
        out: dict[Citation, str] = {}
        stream_to_node = {(r.source.path, r.stream_node): n for n, r in refs.items()}
        sources = {s.path: s for s in self.job.sources}
        for path, per_node in by_source.items():
            last = max(max(v) for v in per_node.values())
            for line in read_lines(sources[path], []):
                if line.lineno in per_node.get(line.node, ()):
                    out[(stream_to_node[(path, line.node)], line.lineno)] = line.text
                if line.lineno >= last:
                    break
        return out

    def _log(self, node: str) -> NodeLog:
        return self.mined.nodes[node]

    # ----------------------------------------------------------------------- tools

    def grep(self, pattern: str, node: str | None = None, max_hits: int = 50, ignore_case: bool = True) -> ToolResult:
        """Lines matching a regex (case-insensitive by default), optionally on one node."""
        try:
            rx = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise ToolError(
                f"invalid regular expression {pattern!r}: {exc}",
                "escape special characters such as ( [ * + ? with a backslash",
            ) from None
        max_hits = max(1, min(int(max_hits), MAX_GREP_HITS))
        out = _Out()
        hits = 0
        if node is not None:
            name = self.resolve(node)
            ref = self._node_refs()[name]
            streams: list[tuple[SourceFile, dict[str, str]]] = [(ref.source, {ref.stream_node: name})]
        else:
            streams = self._all_streams()
        for source, names in streams:
            for line in read_lines(source, []):
                shown = names.get(line.node)
                if shown is None or not rx.search(line.text):
                    continue
                hits += 1
                if hits > max_hits:
                    break
                out.log(shown, line.lineno, line.text)
            if hits > max_hits:
                break
        where = f" on {self.resolve(node)}" if node is not None else ""
        if hits == 0:
            return ToolResult(f"no line matches /{pattern}/{where}")
        head = f"lines matching /{pattern}/{where}"
        if hits > max_hits:
            head += f" (first {max_hits}; more exist: add a node or narrow the pattern)"
        result = out.result()
        return ToolResult(f"{head}:\n{result.text}", result.citations)

    def _all_streams(self) -> list[tuple[SourceFile, dict[str, str]]]:
        per_source: dict[Path, tuple[SourceFile, dict[str, str]]] = {}
        for name, ref in self._node_refs().items():
            per_source.setdefault(ref.source.path, (ref.source, {}))[1][ref.stream_node] = name
        return [per_source[s.path] for s in self.job.sources if s.path in per_source]

    def window(self, node: str, line: int, before: int = 5, after: int = 5) -> ToolResult:
        """A node's lines around ``node:line`` (for console logs: that rank's lines near it)."""
        name = self.resolve(node)
        before = max(0, min(int(before), MAX_WINDOW))
        after = max(0, min(int(after), MAX_WINDOW))
        line = int(line)
        head: deque[LogLine] = deque(maxlen=before)
        tail: list[LogLine] = []
        target: LogLine | None = None
        last = 0
        for rec in self._stream(name):
            last = rec.lineno
            if target is None:
                if rec.lineno < line:
                    head.append(rec)
                    continue
                target = rec
                continue
            if len(tail) >= after:
                break
            tail.append(rec)
        if target is None:
            raise ToolError(
                f"{name} has no line {line}", f"its last line is {name}:{last}" if last else f"{name} is empty"
            )
        out = _Out()
        exact = target.lineno == line
        if not exact:
            out.add(f"(line {line} of that file is not a {name} line; nearest {name} line is {target.lineno})")
        out.add(f"{name} around line {line}:")
        for rec in head:
            out.log(name, rec.lineno, rec.text)
        out.log(name, target.lineno, target.text, mark="> ")
        for rec in tail:
            out.log(name, rec.lineno, rec.text)
        return out.result()

    def first_error(self, node: str) -> ToolResult:
        """The first ERROR/CRITICAL line of a node (else says there is none)."""
        name = self.resolve(node)
        log = self._log(name)
        pos = np.flatnonzero(log.level >= ERROR_LEVEL)
        if not len(pos):
            last = int(log.lineno[-1]) if len(log) else 0
            return ToolResult(f"{name} logged no ERROR or CRITICAL line ({len(log)} lines, the last is {name}:{last})")
        lineno = int(log.lineno[pos[0]])
        text = self._texts({name: {lineno}}).get((name, lineno), "")
        out = _Out()
        out.add(f"first ERROR/CRITICAL line of {name} ({len(pos)} such lines in all):")
        out.log(name, lineno, text)
        return out.result()

    def first_error_line(self, node: str) -> int | None:
        """Line number of a node's first ERROR/CRITICAL line, or None."""
        log = self._log(self.resolve(node))
        pos = np.flatnonzero(log.level >= ERROR_LEVEL)
        return int(log.lineno[pos[0]]) if len(pos) else None

    def compare(self, node: str, top: int = 10) -> ToolResult:
        """Message types this node printed that most peers did not, and the reverse."""
        name = self.resolve(node)
        mined = self.mined
        peers = [n for n in mined.nodes if n != name]
        if not peers:
            return ToolResult(f"{name} is the only node of this job: nothing to compare with")
        own = _first_positions(mined.nodes[name])
        share: dict[int, int] = {}
        first_peer: dict[int, tuple[str, int]] = {}
        for peer in sorted(peers, key=_natural_key):
            for tid, pos in _first_positions(mined.nodes[peer]).items():
                share[tid] = share.get(tid, 0) + 1
                first_peer.setdefault(tid, (peer, int(mined.nodes[peer].lineno[pos])))
        half = len(peers) / 2
        extra = sorted((t for t in own if share.get(t, 0) < half), key=lambda t: (share.get(t, 0), own[t]))
        missing = sorted((t for t in share if t not in own and share[t] > half), key=lambda t: (-share[t], t))
        log = mined.nodes[name]
        counts = dict(zip(*np.unique(log.template, return_counts=True), strict=True))
        out = _Out()
        out.add(f"{name} compared with its {len(peers)} peer(s), by message type:")
        out.add(f"printed by {name} but by fewer than half of its peers ({len(extra)}):")
        for tid in extra[:top]:
            line = int(log.lineno[own[tid]])
            out.log(
                name,
                line,
                f"{_short_template(mined.miner.template(tid))}  (x{int(counts[tid])}; "
                f"{share.get(tid, 0)}/{len(peers)} peers)",
            )
        if len(extra) > top:
            out.add(f"  … {len(extra) - top} more")
        if not extra:
            out.add("  (none)")
        out.add(f"printed by most peers but not by {name} ({len(missing)}):")
        for tid in missing[:top]:
            peer, line = first_peer[tid]
            out.log(peer, line, f"{_short_template(mined.miner.template(tid))}  ({share[tid]}/{len(peers)} peers)")
        if len(missing) > top:
            out.add(f"  … {len(missing) - top} more")
        if not missing:
            out.add("  (none)")
        return out.result()

    def why(self, node: str) -> ToolResult:
        """Why the diagnosis suspects this node, or why it did not single it out."""
        name = self.resolve(node)
        d = self.diagnosis
        out = _Out()
        ranked = [n.node for n in d.faulty_nodes]
        if name in ranked:
            entry = d.faulty_nodes[ranked.index(name)]
            out.add(f"{name} is suspect #{ranked.index(name) + 1} of {len(ranked)} (score {entry.score:.2f}).")
            out.add(f"reasons: {entry.reason or 'none recorded'}")
        else:
            top = (
                f"; the suspects are {', '.join(ranked[:5])}"
                if ranked
                else "; no node was singled out (the fault looks job-wide)"
            )
            out.add(f"{name} was not singled out{top}.")
        self._why_events(name, out)
        self._why_signals(name, name in ranked, out)
        return out.result()

    def _why_events(self, name: str, out: _Out) -> None:
        printed = False
        for i, event in enumerate(self.diagnosis.events, 1):
            occ = [o for o in event.occurrences if o.node == name]
            if occ:
                printed = True
                out.add(f"it prints failure-indicating event {i} ({len(occ)}x), first at:")
                out.log(occ[0].node, occ[0].line, occ[0].text, indent="    ")
        if not printed and self.diagnosis.events:
            root = self.diagnosis.events[0]
            where = ", ".join(sorted({o.node for o in root.occurrences}, key=_natural_key)[:5])
            out.add(f"it does not print the root event (printed on {where or 'no node'}):")
            if root.occurrences:
                o = root.occurrences[0]
                out.log(o.node, o.line, o.text, indent="    ")

    def _why_signals(self, name: str, suspected: bool, out: _Out) -> None:
        a = self.analysis
        if a is None:
            return
        ex = a.extraction
        tl = ex.timeline
        log = a.mined.nodes[name]
        if name in tl.silent_nodes:
            out.add(f"it stopped logging before the others (last line {name}:{int(log.lineno[-1])}).")
        elif name in tl.stalled_nodes:
            out.add("it stopped making progress before the others.")
        elif not suspected:
            out.add("it kept logging as long as its peers (not silent, not stalled).")
        for ev in ex.cascades:
            stats = ex.table.events.get(ev.tid)
            if ev.role not in ("wait", "teardown") or stats is None or name not in stats.per_node:
                continue  # a cascade message promoted to an event was reported above
            line = int(log.lineno[stats.per_node[name].first_pos])
            kind = "a timeout/wait, a consequence of a peer's fault" if ev.role_kind == "wait" else "teardown"
            out.add(f"it prints {kind} ({len(stats.per_node)}/{len(ex.table.node_names)} nodes do):")
            self._cited_line(name, line, out)
        candidate = next((c for c in ex.nodes if c.node == name), None)
        if candidate is None and not suspected:
            out.add("no signal (own root error, named by peers, silence, isolation forest) scored it above the bar.")
        first = self.first_error_line(name)
        if first is not None and (name, first) not in out.citations:
            out.add("its first ERROR/CRITICAL line:")
            self._cited_line(name, first, out)
        else:
            out.add("it logged no ERROR or CRITICAL line.")

    def _cited_line(self, node: str, line: int, out: _Out) -> None:
        text = self._texts({node: {line}}).get((node, line), "")
        out.log(node, line, text, indent="    ")

    def events(self) -> ToolResult:
        """The diagnosis' failure-indicating events, each with its first occurrences."""
        d = self.diagnosis
        out = _Out()
        if not d.events:
            out.add("the diagnosis found no failure-indicating events.")
            return out.result()
        for i, ev in enumerate(d.events, 1):
            nodes = sorted({o.node for o in ev.occurrences}, key=_natural_key)
            out.add(
                f"{i}. {_short_template(ev.template)}  [score {ev.score:.2f}; {len(ev.occurrences)} line(s) on {_list_names(nodes, 4)}]"
            )
            for o in ev.occurrences[:2]:
                out.log(o.node, o.line, o.text, indent="     ")
        out.add("(`show N` for one event in full)")
        return out.result()

    def show(self, n: int) -> ToolResult:
        """One event in full: template, reasons, occurrences (bounded)."""
        events = self.diagnosis.events
        if not events:
            raise ToolError("the diagnosis has no events", "try `grep PATTERN` or `first error on NODE`")
        if not 1 <= n <= len(events):
            raise ToolError(f"no event {n}", f"events are numbered 1 to {len(events)}")
        ev = events[n - 1]
        out = _Out()
        out.add(f"event {n}: {clip(ev.template, 400)}")
        out.add(f"score {ev.score:.2f}; reasons: {'; '.join(ev.reasons) or 'none'}")
        more = " (truncated in the diagnosis)" if ev.occurrences_truncated else ""
        out.add(f"{len(ev.occurrences)} occurrence(s){more}:")
        for o in ev.occurrences[:20]:
            out.log(o.node, o.line, o.text)
        if len(ev.occurrences) > 20:
            out.add(f"  … {len(ev.occurrences) - 20} more")
        return out.result()

    def overview(self) -> ToolResult:
        """The verdict in a few lines, then the events."""
        d = self.diagnosis
        out = _Out()
        cat = f"{d.category}/{d.subcategory}" if d.category != "unknown" else "category not determined"
        out.add(
            f"{cat}; symptom {d.symptom}; stage {d.stage}" + (f"; iteration {d.iterations[0]}" if d.iterations else "")
        )
        if d.faulty_nodes:
            out.add("suspect nodes: " + ", ".join(f"{n.node} ({n.score:.2f})" for n in d.faulty_nodes[:5]))
        else:
            out.add("no node singled out")
        if d.root_cause and d.root_cause != "unknown":
            out.add(f"root cause: {clip(d.root_cause, 600)}")
        for i, step in enumerate(d.remediation[:5], 1):
            out.add(f"remediation {i}: {clip(step, 300)}")
        ev = self.events()
        return ToolResult("\n".join([*out.lines, "events:", ev.text]), [*out.citations, *ev.citations])

    def nodes(self) -> ToolResult:
        """The job's nodes with line counts; suspects first."""
        counts = {n: len(log) for n, log in self.mined.nodes.items()}
        suspects = [n.node for n in self.diagnosis.faulty_nodes if n.node in counts]
        rest = [n for n in self.node_names if n not in suspects]
        out = _Out()
        out.add(f"{len(counts)} node(s); suspects first:")
        for n in suspects:
            out.add(f"  * {n}  ({counts[n]} lines)")
        for n in rest[:MAX_LISTED_NODES]:
            out.add(f"    {n}  ({counts[n]} lines)")
        if len(rest) > MAX_LISTED_NODES:
            out.add(f"    … {len(rest) - MAX_LISTED_NODES} more")
        return out.result()

    def iteration(self, n: int, max_groups: int = 12) -> ToolResult:
        """What was logged around iteration ``n``: its progress lines, then every other
        message type printed from just before it until the next iteration was logged."""
        from .extract.progress import progress_templates

        n = int(n)
        mined = self.mined
        if self._progress is None:
            self._progress = progress_templates(mined)
        progress = np.array(sorted(self._progress), dtype=np.int64)
        mentions: list[Citation] = []
        groups: dict[int, list[Citation]] = {}
        logged: list[int] = []
        for name in sorted(mined.nodes, key=_natural_key):
            log = mined.nodes[name]
            is_prog = np.isin(log.template, progress) & (log.iteration >= 0)
            prog_pos = np.flatnonzero(is_prog)
            logged.extend(np.unique(log.iteration[prog_pos]).tolist())
            mentions.extend((name, int(log.lineno[p])) for p in np.flatnonzero(log.iteration == n)[:3])
            if not len(prog_pos):
                continue
            iters = log.iteration[prog_pos]
            before = prog_pos[iters < n]
            after = prog_pos[iters > n]
            start = int(before[-1]) + 1 if len(before) else 0
            if not len(before) and not (iters == n).any():
                continue  # the node's training began after n: nothing of n here
            end = int(after[0]) if len(after) else len(log)
            for p in range(start, min(end, start + 5000)):
                if is_prog[p]:
                    continue
                groups.setdefault(int(log.template[p]), []).append((name, int(log.lineno[p])))
        out = _Out()
        if not logged:
            return ToolResult("this job logged no training iterations (it failed before training, or logs no progress)")
        lo, hi = min(logged), max(logged)
        d_iters = self.diagnosis.iterations
        note = f" (the diagnosis names iteration {', '.join(map(str, d_iters))})" if d_iters else ""
        out.add(f"iterations {lo}..{hi} were logged{note}.")
        if n > hi:
            out.add(f"iteration {n} was never logged: the last logged is {hi}; showing what came after it.")
        elif n < lo:
            out.add(f"iteration {n} is before the first logged one ({lo}).")
        if mentions:
            out.add(f"lines naming iteration {n}:")
            for node, line in mentions[:8]:
                self._cited_line(node, line, out)
            if len(mentions) > 8:
                out.add(f"  … on {len({m[0] for m in mentions})} node(s) in all")
        if groups:
            order = sorted(groups, key=lambda t: groups[t][0][1])
            wanted: dict[str, set[int]] = {}
            for tid in order[:max_groups]:
                node, line = groups[tid][0]
                wanted.setdefault(node, set()).add(line)
            texts = self._texts(wanted)
            out.add(
                f"other messages logged from the last progress line before {n} until the next ({len(groups)} type(s)):"
            )
            for tid in order[:max_groups]:
                cites = groups[tid]
                nodes = sorted({c[0] for c in cites}, key=_natural_key)
                node, line = cites[0]
                where = f"{len(cites)}x on {_list_names(nodes, 3)}"
                out.log(node, line, f"{texts.get((node, line), '')}  [{where}]")
            if len(groups) > max_groups:
                out.add(f"  … {len(groups) - max_groups} more type(s)")
        elif lo <= n <= hi:
            out.add("nothing but progress lines was logged in that span.")
        anomalies = [
            x for x in (self.analysis.extraction.abnormal_iterations if self.analysis else []) if x.iteration == n
        ]
        for x in anomalies[:3]:
            out.add(f"{x.node}'s iteration {n} looked unlike its previous ones (similarity {x.similarity:.2f}).")
        return out.result()

    def kb(self, query: str, top: int = 3) -> ToolResult:
        """Knowledge search: id, title and a short excerpt of the best docs."""
        query = query.strip()
        if not query:
            raise ToolError("empty knowledge query", "give words or a log line, e.g. `kb NCCL completion status 12`")
        kb = self._knowledge()
        hits = kb.search(query, top=max(1, min(int(top), 5)), mode=self.kb_mode)
        if not hits:
            return ToolResult(f"no knowledge doc matches {query!r}")
        out = _Out()
        for hit in hits:
            doc = kb.get(hit.id)
            out.add(f"{hit.id}  (score {hit.score:.2f}) {clip(hit.title, 160)}")
            out.add(f"  {_excerpt(doc.body)}")
            if doc.remediation:
                out.add(f"  first step: {clip(doc.remediation[0], 200)}")
        return out.result()

    def _knowledge(self) -> KnowledgeSearch:
        if self._kb is None:
            # The hashing embedder builds in ~2 s with no model download; BM25 does the work.
            from .knowledge import KnowledgeBase

            self._kb = KnowledgeBase.open(embedder="hash")
        return self._kb


# ---------------------------------------------------------------------- helpers


def _first_positions(log: NodeLog) -> dict[int, int]:
    """Template id -> first position in the node's arrays."""
    tids, first = np.unique(log.template, return_index=True)
    return dict(zip(tids.tolist(), first.tolist(), strict=True))


def _short_template(template: str) -> str:
    return clip(re.sub(r"^(?:<TS>\s*)+", "", template), 200)


def _excerpt(body: str, limit: int = 220) -> str:
    lines = [ln.strip() for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "```"))]
    return clip(" ".join(lines), limit)


def _natural_key(name: str) -> tuple[Any, ...]:
    """worker-2 before worker-10."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def _list_names(names: list[str], limit: int = 20) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", … ({len(names) - limit} more)"
