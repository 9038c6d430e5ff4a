"""Reading one job for the chat tools: its nodes by name, streamed lines, the raw text of
chosen lines (each file read once and only as far as needed), and the mined arrays.

Jobs can be 10 GB: reading streams and stops as early as it can."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..errors import ToolError
from ..ingest import Job, SourceFile, natural_key, open_job, read_lines
from ..records import LogLine
from ..schema import Diagnosis
from .output import ERROR_LEVEL, Citation, Output, _list_names

if TYPE_CHECKING:
    from ..knowledge import Hit, KnowledgeDoc
    from ..mining import MinedJob
    from ..pipeline import Analysis
    from ..records import NodeLog


class KnowledgeSearch(Protocol):
    """What the ``kb`` tool needs of ``agent.knowledge.KnowledgeBase``."""

    def search(self, query: str, top: int = 5, stack: str | None = None, *, mode: Any = "hybrid") -> list[Hit]: ...

    def get(self, doc_id: str) -> KnowledgeDoc: ...


@dataclass(frozen=True)
class _NodeRef:
    source: SourceFile
    stream_node: str  # the node name ingest gives its lines (mining may qualify it with the file)


class JobView:
    """One job and its finished diagnosis (plus the analysis, when at hand), read on demand."""

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

    @property
    def mined(self) -> MinedJob:
        """The mined job: the analysis' own, else mined once now (reads the whole job)."""
        if self._mined is None:
            from ..mining import mine_job

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
        return sorted(self._node_refs(), key=natural_key)

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

    def _all_streams(self) -> list[tuple[SourceFile, dict[str, str]]]:
        per_source: dict[Path, tuple[SourceFile, dict[str, str]]] = {}
        for name, ref in self._node_refs().items():
            per_source.setdefault(ref.source.path, (ref.source, {}))[1][ref.stream_node] = name
        return [per_source[s.path] for s in self.job.sources if s.path in per_source]

    def first_error_line(self, node: str) -> int | None:
        """Line number of a node's first ERROR/CRITICAL line, or None."""
        log = self._log(self.resolve(node))
        pos = np.flatnonzero(log.level >= ERROR_LEVEL)
        return int(log.lineno[pos[0]]) if len(pos) else None

    def _cited_line(self, node: str, line: int, out: Output) -> None:
        text = self._texts({node: {line}}).get((node, line), "")
        out.log(node, line, text, indent="    ")

    def _knowledge(self) -> KnowledgeSearch:
        if self._kb is None:
            # The hashing embedder builds in ~2 s with no model download; BM25 does the work.
            from ..knowledge import KnowledgeBase

            self._kb = KnowledgeBase.open(embedder="hash")
        return self._kb


def _first_positions(log: NodeLog) -> dict[int, int]:
    """Template id -> first position in the node's arrays."""
    tids, first = np.unique(log.template, return_index=True)
    return dict(zip(tids.tolist(), first.tolist(), strict=True))
