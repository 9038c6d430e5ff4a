"""The blame graph: who names whom in failure-time messages, drawn as two columns.

Timeouts and connection errors name the peer they wait on (a rank, an IP, a host); the
extractor maps those names back to nodes (``extract.spatial``) and keeps the graph in
``Extraction.blame``: the page draws the very edges the node ranking used (rebuilding
them would cost as much again, seconds on 1,000 nodes). Nodes that name someone are on
the left, the nodes named on the right; a node everyone names is the one everyone waits
on. Past ``MAX_NAMERS`` the namers fold into one "other nodes" entry so 1,000 ranks draw
as a few lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from .axis import WIDTH
from .source import ReportSource

MAX_TARGETS = 4
MAX_NAMERS = 14
ROW_H = 22.0
LEFT_X, RIGHT_X = 300.0, 700.0


@dataclass
class Vertex:
    label: str
    x: float
    y: float
    side: str  # left | right
    css: str  # suspect | peer | folded
    tip: str


@dataclass
class Edge:
    path: str
    weight: float
    tip: str


@dataclass
class BlameGraph:
    vertices: list[Vertex]
    edges: list[Edge]
    height: float
    named_in: list[tuple[str, list[str]]]  # blamed node -> the message shapes that name it
    width: float = WIDTH


def build(src: ReportSource, order: list[str], suspects: set[str]) -> BlameGraph | None:
    """The graph, or None when no failure-time message names a peer."""
    ex = src.extraction
    blame = ex.blame
    if blame is None or not blame.edges:
        return None
    rank = {n: i for i, n in enumerate(order)}
    targets = sorted(blame.edges, key=lambda n: (n not in suspects, -len(blame.edges[n]), rank.get(n, 0)))[:MAX_TARGETS]
    namers = sorted({m for t in targets for m in blame.edges[t]}, key=lambda n: rank.get(n, len(rank)))
    shown, folded = namers[:MAX_NAMERS], namers[MAX_NAMERS:]
    rows = max(len(shown) + (1 if folded else 0), len(targets))
    height = rows * ROW_H + 16
    left_y = _rows(len(shown) + (1 if folded else 0), rows)
    right_y = _rows(len(targets), rows)
    vertices = [
        Vertex(n, LEFT_X, left_y[i], "left", "suspect" if n in suspects else "peer", f"{n} names a peer")
        for i, n in enumerate(shown)
    ]
    if folded:
        vertices.append(Vertex(f"+{len(folded)} other nodes", LEFT_X, left_y[-1], "left", "folded",
                               ", ".join(folded[:40]) + (" …" if len(folded) > 40 else "")))
    for i, t in enumerate(targets):
        vertices.append(Vertex(t, RIGHT_X, right_y[i], "right", "suspect" if t in suspects else "peer",
                               f"{t} is named by {len(blame.edges[t])} node(s)"))
    edges = []
    for j, t in enumerate(targets):
        for i, m in enumerate(shown):
            if m in blame.edges[t]:
                edges.append(Edge(_curve(left_y[i], right_y[j]), 1.2, f"{m} names {t}"))
        count = sum(1 for m in folded if m in blame.edges[t])
        if count:
            edges.append(Edge(_curve(left_y[-1], right_y[j]), min(1.2 + count / 8, 6.0), f"{count} other nodes name {t}"))
    named_in = [(t, [ex.table.events[tid].template for tid in sorted(blame.events.get(t, ()))][:3]) for t in targets]
    return BlameGraph(vertices=vertices, edges=edges, height=height, named_in=named_in)


def _rows(count: int, rows: int) -> list[float]:
    """``count`` rows centred in a column of ``rows``."""
    offset = (rows - count) * ROW_H / 2
    return [round(8 + offset + ROW_H * (i + 0.5), 1) for i in range(count)]


def _curve(y0: float, y1: float) -> str:
    x0, x1 = LEFT_X + 7, RIGHT_X - 9
    mid = (x0 + x1) / 2
    return f"M{x0},{y0} C{mid},{y0} {mid},{y1} {x1},{y1}"
