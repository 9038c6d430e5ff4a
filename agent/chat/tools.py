"""Tools over one job for follow-up questions: grep, windows, first errors, comparisons.

``l4 chat`` answers "why not worker-3?" or "what changed at iteration 1520?" from the
evidence, not from memory. Each tool reads the job (streaming its files, or the mined
arrays of a finished analysis) and returns plain text in which every log line is cited as
``node:line`` (CONTRACTS.md line numbers: console logs cite the console file's lines), plus
the citations as data. The same tools serve the offline command grammar and the LLM's
tool calls (agent/chat/session.py), so both see the same, checkable evidence.

Jobs can be 10 GB: reading streams and stops as early as it can, and every output is
bounded (lines clipped, hits capped, a character budget per answer) so nothing a tool
returns can flood a terminal or a model's context. Tools raise ``ToolError`` (with what to
do instead) for bad input: an unknown node, an invalid regex, a line out of range.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any

import numpy as np

from ..errors import ToolError
from ..ingest import SourceFile, natural_key, read_lines
from ..records import LogLine
from .jobview import JobView, _first_positions
from .output import (
    ERROR_LEVEL,
    MAX_GREP_HITS,
    MAX_LISTED_NODES,
    MAX_WINDOW,
    Citation,
    Output,
    ToolResult,
    _excerpt,
    _list_names,
    _short_template,
    clip,
)
from .registry import Node, tool, tools_of


class JobTools(JobView):
    """The tools over one job: each returns text that cites every log line it shows."""

    @tool
    def grep(self, pattern: str, node: Node | None = None, max_hits: int = 50, *, ignore_case: bool = True) -> ToolResult:
        """Search the job's log lines with a Python regex (case-insensitive). Returns node:line and text, at most max_hits."""
        try:
            rx = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise ToolError(
                f"invalid regular expression {pattern!r}: {exc}",
                "escape special characters such as ( [ * + ? with a backslash",
            ) from None
        max_hits = max(1, min(int(max_hits), MAX_GREP_HITS))
        out = Output()
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

    @tool
    def window(self, node: Node, line: int, before: int = 5, after: int = 5) -> ToolResult:
        """A node's log lines around node:line (before/after lines of that node).

        For console logs: that rank's lines near it."""
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
        out = Output()
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

    @tool
    def first_error(self, node: Node) -> ToolResult:
        """The first ERROR or CRITICAL line of a node.

        Else says there is none."""
        name = self.resolve(node)
        log = self._log(name)
        pos = np.flatnonzero(log.level >= ERROR_LEVEL)
        if not len(pos):
            last = int(log.lineno[-1]) if len(log) else 0
            return ToolResult(f"{name} logged no ERROR or CRITICAL line ({len(log)} lines, the last is {name}:{last})")
        lineno = int(log.lineno[pos[0]])
        text = self._texts({name: {lineno}}).get((name, lineno), "")
        out = Output()
        out.add(f"first ERROR/CRITICAL line of {name} ({len(pos)} such lines in all):")
        out.log(name, lineno, text)
        return out.result()

    @tool
    def compare(self, node: Node, *, top: int = 10) -> ToolResult:
        """Message types a node printed that most peers did not, and the reverse."""
        name = self.resolve(node)
        mined = self.mined
        peers = [n for n in mined.nodes if n != name]
        if not peers:
            return ToolResult(f"{name} is the only node of this job: nothing to compare with")
        own = _first_positions(mined.nodes[name])
        share: dict[int, int] = {}
        first_peer: dict[int, tuple[str, int]] = {}
        for peer in sorted(peers, key=natural_key):
            for tid, pos in _first_positions(mined.nodes[peer]).items():
                share[tid] = share.get(tid, 0) + 1
                first_peer.setdefault(tid, (peer, int(mined.nodes[peer].lineno[pos])))
        half = len(peers) / 2
        extra = sorted((t for t in own if share.get(t, 0) < half), key=lambda t: (share.get(t, 0), own[t]))
        missing = sorted((t for t in share if t not in own and share[t] > half), key=lambda t: (-share[t], t))
        log = mined.nodes[name]
        counts = dict(zip(*np.unique(log.template, return_counts=True), strict=True))
        out = Output()
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

    @tool
    def why(self, node: Node) -> ToolResult:
        """Why the diagnosis suspects a node, or why it did not single it out."""
        name = self.resolve(node)
        d = self.diagnosis
        out = Output()
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

    def _why_events(self, name: str, out: Output) -> None:
        printed = False
        for i, event in enumerate(self.diagnosis.events, 1):
            occ = [o for o in event.occurrences if o.node == name]
            if occ:
                printed = True
                out.add(f"it prints failure-indicating event {i} ({len(occ)}x), first at:")
                out.log(occ[0].node, occ[0].line, occ[0].text, indent="    ")
        if not printed and self.diagnosis.events:
            root = self.diagnosis.events[0]
            where = ", ".join(sorted({o.node for o in root.occurrences}, key=natural_key)[:5])
            out.add(f"it does not print the root event (printed on {where or 'no node'}):")
            if root.occurrences:
                o = root.occurrences[0]
                out.log(o.node, o.line, o.text, indent="    ")

    def _why_signals(self, name: str, suspected: bool, out: Output) -> None:
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

    @tool
    def events(self) -> ToolResult:
        """The diagnosis' failure-indicating events with their first lines."""
        d = self.diagnosis
        out = Output()
        if not d.events:
            out.add("the diagnosis found no failure-indicating events.")
            return out.result()
        for i, ev in enumerate(d.events, 1):
            nodes = sorted({o.node for o in ev.occurrences}, key=natural_key)
            out.add(
                f"{i}. {_short_template(ev.template)}  [score {ev.score:.2f}; {len(ev.occurrences)} line(s) on {_list_names(nodes, 4)}]"
            )
            for o in ev.occurrences[:2]:
                out.log(o.node, o.line, o.text, indent="     ")
        out.add("(`show N` for one event in full)")
        return out.result()

    @tool
    def show(self, n: int) -> ToolResult:
        """One failure-indicating event in full (1-based number).

        Template, reasons, occurrences (bounded)."""
        events = self.diagnosis.events
        if not events:
            raise ToolError("the diagnosis has no events", "try `grep PATTERN` or `first error on NODE`")
        if not 1 <= n <= len(events):
            raise ToolError(f"no event {n}", f"events are numbered 1 to {len(events)}")
        ev = events[n - 1]
        out = Output()
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
        out = Output()
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

    @tool
    def nodes(self) -> ToolResult:
        """The job's nodes with line counts, suspects first."""
        counts = {n: len(log) for n, log in self.mined.nodes.items()}
        suspects = [n.node for n in self.diagnosis.faulty_nodes if n.node in counts]
        rest = [n for n in self.node_names if n not in suspects]
        out = Output()
        out.add(f"{len(counts)} node(s); suspects first:")
        for n in suspects:
            out.add(f"  * {n}  ({counts[n]} lines)")
        for n in rest[:MAX_LISTED_NODES]:
            out.add(f"    {n}  ({counts[n]} lines)")
        if len(rest) > MAX_LISTED_NODES:
            out.add(f"    … {len(rest) - MAX_LISTED_NODES} more")
        return out.result()

    @tool
    def iteration(self, n: int, *, max_groups: int = 12) -> ToolResult:
        """Lines naming training iteration n and what else was logged around it.

        Its progress lines, then every other message type printed from just before it
        until the next iteration was logged."""
        from ..extract.progress import progress_templates

        n = int(n)
        mined = self.mined
        if self._progress is None:
            self._progress = progress_templates(mined)
        progress = np.array(sorted(self._progress), dtype=np.int64)
        mentions: list[Citation] = []
        groups: dict[int, list[Citation]] = {}
        logged: list[int] = []
        for name in sorted(mined.nodes, key=natural_key):
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
        out = Output()
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
                nodes = sorted({c[0] for c in cites}, key=natural_key)
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

    @tool
    def kb(self, query: str, *, top: int = 3) -> ToolResult:
        """Search the fault knowledge base: id, title, excerpt."""
        query = query.strip()
        if not query:
            raise ToolError("empty knowledge query", "give words or a log line, e.g. `kb NCCL completion status 12`")
        kb = self._knowledge()
        hits = kb.search(query, top=max(1, min(int(top), 5)), mode=self.kb_mode)
        if not hits:
            return ToolResult(f"no knowledge doc matches {query!r}")
        out = Output()
        for hit in hits:
            doc = kb.get(hit.id)
            out.add(f"{hit.id}  (score {hit.score:.2f}) {clip(hit.title, 160)}")
            out.add(f"  {_excerpt(doc.body)}")
            if doc.remediation:
                out.add(f"  first step: {clip(doc.remediation[0], 200)}")
        return out.result()


# --------------------------------------------------------------- the registry

TOOLS = tools_of(JobTools)
TOOL_SPECS: list[dict[str, Any]] = [t.spec for t in TOOLS.values()]
TOOL_NAMES = tuple(TOOLS)


def run_tool(tools: JobTools, name: str, args: dict[str, Any]) -> ToolResult:
    """Call a tool by name with JSON arguments (as a model sends them)."""
    found = TOOLS.get(name)
    if found is None:
        raise ToolError(f"no tool {name!r}", f"tools: {', '.join(TOOL_NAMES)}")
    result: ToolResult = found.call(tools, args)
    return result
