"""Assemble and render the page: one HTML file with its CSS, JS and SVG inline.

Why SVG drawn from Python rather than an inlined chart library: the charts are a few
hundred shapes, so Python-side geometry costs milliseconds and a few kilobytes, where the
smallest capable libraries add 50–250 KB of minified JS to every page, need the data as a
JSON blob inside a ``<script>`` (one more place log text could break out of), and draw
nothing when a mail client or a printer runs no script. Plain SVG prints and scales.

Log text is data. Jinja autoescapes every value, and ``finalize`` first turns control
characters (ANSI/OSC escapes, NUL, newlines in a name) into visible ``\\xNN`` through
``render.escape_controls``, the same rule the terminal and Markdown renderings use. The
page carries a Content-Security-Policy that allows only its own inline style and script
(by hash) and no fetch at all, so even a line that slipped through could not run or load.
"""

from __future__ import annotations

import base64
import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from .. import __version__
from ..render import escape_controls
from ..schema import Diagnosis
from . import blame, evidence, lanes, pace
from .axis import clock
from .source import ReportSource

if TYPE_CHECKING:
    from ..pipeline import Analysis

TEMPLATES = Path(__file__).parent / "templates"


def _finalize(value: Any) -> Any:
    """Every ``{{ value }}``: strings lose their control characters before autoescape."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return escape_controls(value)
    return value


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["pct"] = lambda v: "n/a" if v is None else f"{v:.0%}"
    env.filters["words"] = lambda v: str(v).replace("_", " ")
    return env


@dataclass
class Knowledge:
    id: str
    title: str
    score: float
    links: list[str]  # http(s) sources, rendered as links
    refs: list[str]  # other sources (a doc path, owner/repo#123), rendered as text


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _failure_time(d: Diagnosis, src: ReportSource | None) -> str:
    """When the root line was printed, on its node's own clock."""
    if src is None or not d.events or not d.events[0].occurrences:
        return "unknown"
    first = d.events[0].occurrences[0]
    ts = src.line_time(first.node, first.line)
    return f"{clock(ts, with_date=True)} UTC" if math.isfinite(ts) else "unknown (the line carries no time)"


def _knowledge(d: Diagnosis, sources: dict[str, list[str]]) -> list[Knowledge]:
    out = []
    for k in d.knowledge:
        found = sources.get(k.id, [])
        links = [s for s in found if s.startswith(("https://", "http://"))]
        out.append(Knowledge(k.id, k.title, k.score, links, [s for s in found if s not in links]))
    return out


def render_html(
    diagnosis: Diagnosis,
    analysis: Analysis | None = None,
    *,
    warnings: Iterable[str] = (),
    sources: dict[str, list[str]] | None = None,
) -> str:
    """The report page of one diagnosis; without ``analysis`` only the verdict and evidence
    (the charts need the mined job)."""
    src = ReportSource.of(analysis) if analysis is not None else None
    items = evidence.build(diagnosis, src)
    swim = progress = graph = None
    if src is not None:
        order = lanes.suspicion_order(diagnosis, src)
        swim = lanes.build(diagnosis, src)
        progress = pace.build(diagnosis, src, order)
        graph = blame.build(src, order, {n.node for n in diagnosis.faulty_nodes})
        need = evidence.wanted(items, src)
        marks = [m for lane in (swim.lanes if swim else []) for m in lane.marks]
        for m in marks:
            need.setdefault(m.node, set()).add(m.line)
        texts = src.texts(need)
        evidence.attach_context(items, src, texts)
        for m in marks:
            m.text = texts.get((m.node, m.line), "")
    env = _environment()
    style = env.get_template("report.css").render()
    script = env.get_template("report.js").render()
    root = diagnosis.events[0].occurrences[0] if diagnosis.events and diagnosis.events[0].occurrences else None
    return env.get_template("report.html.j2").render(
        d=diagnosis,
        root=root,
        failure_time=_failure_time(diagnosis, src),
        lanes=swim,
        progress=progress,
        blame=graph,
        evidence=items,
        knowledge=_knowledge(diagnosis, sources or {}),
        warnings=list(warnings),
        analysed=src is not None,
        nodes=len(src.mined.nodes) if src is not None else None,
        version=__version__,
        style=Markup(style),
        script=Markup(script),
        csp=f"default-src 'none'; style-src {_csp_hash(style)}; script-src {_csp_hash(script)}; img-src data:",
    )
