"""Renderings of a ``Diagnosis``: terminal report, JSON, Markdown.

Log text is data: it is printed with Rich markup disabled (``[rank3]:`` would otherwise be
eaten as a style tag) and never interpreted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .schema import Diagnosis

MAX_LINES_PER_EVENT = 3


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def escape_controls(text: str) -> str:
    """Log text is data: control characters (ESC, BEL, NUL, newlines in a name) become
    visible ``\\xNN`` escapes, so a log line can never drive the terminal or forge a line."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


# Markdown acts on these outside code spans: emphasis, links and images, raw HTML, tables,
# strike-through. A log line ("<img src=x onerror=...>", "[x](javascript:...)", "__init__")
# must reach a ticket as the characters it holds.
_MD_SPECIAL = re.compile(r"([\\*_\[\]<>|~])")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def md_text(text: str) -> str:
    """Prose holding log text, made inert for Markdown: specials are backslash-escaped outside
    code spans (inside them Markdown shows every character as it is)."""
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_MD_SPECIAL.sub(r"\\\1", text[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_MD_SPECIAL.sub(r"\\\1", text[last:]))
    return "".join(out)


def _longest_backticks(texts: list[str]) -> int:
    return max((len(run) for text in texts for run in re.findall(r"`+", text)), default=0)


def md_code(text: str) -> str:
    """An inline code span that holds ``text`` whatever backticks it contains."""
    fence = "`" * (_longest_backticks([text]) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(lines: list[str]) -> str:
    """A fence no line inside can close (a log line may itself hold a run of backticks)."""
    return "`" * max(3, _longest_backticks(lines) + 1)


def displayable(d: Diagnosis) -> Diagnosis:
    """A copy of ``d`` whose every string is safe to print (JSON needs none: it escapes itself)."""

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return escape_controls(value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return Diagnosis.model_validate(walk(d.model_dump(by_alias=True)))


def to_json(diagnosis: Diagnosis) -> str:
    return json.dumps(diagnosis.to_json_dict(), indent=2, ensure_ascii=False)


def _verdict(d: Diagnosis) -> Text:
    text = Text()
    cat = f"{d.category}/{d.subcategory}" if d.category != "unknown" else "category not determined"
    text.append(cat, style="bold")
    text.append(f"  ·  {d.symptom.replace('_', ' ')}  ·  stage {d.stage}")
    if d.iterations:
        text.append(f"  ·  iteration {d.iterations[0]}")
    if d.confidence is not None:
        text.append(f"  ·  confidence {d.confidence:.0%}")
    text.append("\nfaulty node: ")
    if d.faulty_nodes:
        text.append(d.faulty_nodes[0].display, style="bold red")
        others = [n.display for n in d.faulty_nodes[1:4]]
        if others:
            text.append(f"  (then {', '.join(others)})")
    else:
        text.append("none singled out (the fault looks job-wide)")
    if d.root_cause and d.root_cause != "unknown":
        text.append("\n")
        text.append(d.root_cause)
    return text


def render_terminal(d: Diagnosis, console: Console, verbose: bool = False) -> None:
    """The report an SRE reads at 3 a.m.: verdict first, then the evidence."""
    d = displayable(d)
    console.print(Panel(_verdict(d), title=f"l4 diagnosis: {d.job}", title_align="left", border_style="red"))
    if d.events:
        console.print(Text("Evidence (failure-indicating events)", style="bold"))
        for i, event in enumerate(d.events, 1):
            head = Text(f"{i}. ", style="bold")
            head.append(event.template)
            head.append(f"   [{event.score:.2f}; {'; '.join(event.reasons)}]", style="dim")
            console.print(head)
            shown = event.occurrences if verbose else event.occurrences[:MAX_LINES_PER_EVENT]
            for occ in shown:
                line = Text("   ")
                line.append(f"{occ.node}:{occ.line}", style="cyan")
                line.append("  ")
                line.append(occ.text)
                console.print(line, soft_wrap=True)
            hidden = len(event.occurrences) - len(shown)
            if hidden > 0:
                console.print(Text(f"   … {hidden} more occurrence(s) (--all-lines or --format json shows them)", style="dim"))
    else:
        console.print(Text("No failure-indicating events stood out.", style="yellow"))
    if d.faulty_nodes:
        table = Table(title="Suspect nodes", title_justify="left", show_edge=False)
        table.add_column("node")
        table.add_column("score", justify="right")
        table.add_column("why", overflow="fold")
        for node in d.faulty_nodes:
            table.add_row(Text(node.display), f"{node.score:.2f}", Text(node.reason))
        console.print(table)
    if d.remediation:
        console.print(Text("Remediation", style="bold"))
        for i, step in enumerate(d.remediation, 1):
            console.print(Text(f"  {i}. {step}"))
    if d.collect_next:
        console.print(Text("Collect next", style="bold"))
        for step in d.collect_next:
            console.print(Text(f"  - {step}"))
    if d.knowledge:
        console.print(Text("Knowledge used: " + ", ".join(f"{k.id} ({k.score:.2f})" for k in d.knowledge), style="dim"))
    if d.warnings:
        console.print(Text("Read problems (the verdict may be incomplete)", style="bold yellow"))
        for warning in d.warnings:
            console.print(Text(f"  - {warning}", style="yellow"))
    console.print(Text(f"reasoner: {d.reasoner}", style="dim"))


def to_markdown(d: Diagnosis) -> str:
    d = displayable(d)
    lines = [f"# l4 diagnosis: {md_code(d.job)}", ""]
    lines.append(f"- **Category:** {d.category}/{d.subcategory}")
    lines.append(f"- **Symptom:** {d.symptom}; **stage:** {d.stage}; **iterations:** {', '.join(map(str, d.iterations)) or 'n/a'}")
    lines.append(f"- **Faulty node(s):** {md_text(', '.join(n.display for n in d.faulty_nodes)) or 'none singled out'}")
    if d.confidence is not None:
        lines.append(f"- **Confidence:** {d.confidence:.0%}")
    lines += ["", "## Root cause", "", md_text(d.root_cause), "", "## Evidence", ""]
    for event in d.events:
        lines.append(f"- {md_code(event.template)} ({md_text('; '.join(event.reasons))})")
        shown = [f"{occ.node}:{occ.line}  {occ.text}" for occ in event.occurrences[:MAX_LINES_PER_EVENT]]
        fence = md_fence(shown)
        lines.append(f"  {fence}text")
        lines += [f"  {line}" for line in shown]
        lines.append(f"  {fence}")
    lines += _steps_markdown(d)
    if d.knowledge:
        lines += ["", "## Knowledge", ""] + [f"- {k.id}: {md_text(k.title)}" for k in d.knowledge]
    lines += _warnings_markdown(d.warnings)
    return "\n".join(lines) + "\n"


def _warnings_markdown(warnings: list[str]) -> list[str]:
    if not warnings:
        return []
    return ["", "## Read problems (the verdict may be incomplete)", "", *(f"- {md_text(w)}" for w in warnings)]



def _steps_markdown(d: Diagnosis) -> list[str]:
    """The Remediation and Collect-next sections shared by the report and the ticket."""
    lines: list[str] = []
    if d.remediation:
        lines += ["", "## Remediation", ""] + [f"{i}. {md_text(s)}" for i, s in enumerate(d.remediation, 1)]
    if d.collect_next:
        lines += ["", "## Collect next", ""] + [f"- {md_text(s)}" for s in d.collect_next]
    return lines


def ticket_title(d: Diagnosis) -> str:
    """One line for a Jira/GitHub title: verdict, where, when."""
    verdict = f"{d.category}/{d.subcategory}" if d.category != "unknown" else "cause undetermined"
    where = f" on {d.faulty_nodes[0].display}" if d.faulty_nodes else ""
    when = f" at iteration {d.iterations[0]}" if d.iterations else f" during {d.stage}"
    what = d.symptom.replace("_", " ")
    return f"[l4] Training job {what}: {verdict}{where}{when}"


def ticket(d: Diagnosis, sources: dict[str, list[str]] | None = None, report: str | None = None) -> dict[str, Any]:
    """A ticket summary as data (the JSON form of `l4 ticket`); ``report``: the HTML page's file name."""
    d = displayable(d)
    sources = sources or {}
    evidence = []
    for event in d.events[:3]:
        evidence.append(
            {"template": event.template, "lines": [f"{o.node}:{o.line}  {o.text}" for o in event.occurrences[:3]],
             "occurrences": len(event.occurrences)}
        )
    return {
        "title": ticket_title(d),
        "impact": {
            "symptom": d.symptom,
            "stage": d.stage,
            "iterations": d.iterations[:3],
            "faulty_nodes": [n.node for n in d.faulty_nodes[:5]],
        },
        "verdict": {
            "category": d.category,
            "subcategory": d.subcategory,
            "confidence": d.confidence,
            "root_cause": d.root_cause,
        },
        "evidence": evidence,
        "remediation": d.remediation,
        "collect_next": d.collect_next,
        "knowledge": [{"id": k.id, "title": k.title, "sources": sources.get(k.id, [])} for k in d.knowledge],
        "job": d.job,
        "reasoner": d.reasoner,
        "warnings": d.warnings,
        **({"report": escape_controls(report)} if report else {}),
    }


def ticket_markdown(d: Diagnosis, sources: dict[str, list[str]] | None = None, report: str | None = None) -> str:
    """The ticket an SRE pastes into Jira or GitHub (naming the HTML report to attach, if any)."""
    d = displayable(d)
    t = ticket(d, sources, report)
    impact = t["impact"]
    verdict = t["verdict"]
    lines = [f"# {t['title']}", "", "## Impact", ""]
    lines.append(f"- Symptom: {str(impact['symptom']).replace('_', ' ')}; stage: {impact['stage']}")
    if impact["iterations"]:
        lines.append(f"- Iteration: {', '.join(map(str, impact['iterations']))}")
    nodes = [n.display for n in d.faulty_nodes[:5]]  # the host an SRE drains, l4's node name beside it
    lines.append(f"- Suspect node(s): {md_text(', '.join(nodes)) if nodes else 'none singled out (job-wide)'}")
    lines += ["", "## Verdict", ""]
    conf = f" (confidence {verdict['confidence']:.0%})" if verdict["confidence"] is not None else ""
    lines.append(f"**{verdict['category']}/{verdict['subcategory']}**{conf}: {md_text(verdict['root_cause'])}")
    lines += ["", "## Evidence", ""]
    for item in t["evidence"]:
        fence = md_fence(item["lines"])
        lines.append(f"{fence}text")
        lines.extend(item["lines"])
        more = item["occurrences"] - len(item["lines"])
        if more > 0:
            lines.append(f"... and {more} more occurrence(s)")
        lines.append(fence)
    lines += _steps_markdown(d)
    if d.knowledge:
        lines += ["", "## Knowledge", ""]
        for k in t["knowledge"]:
            links = ", ".join(k["sources"][:2])
            lines.append(f"- `{k['id']}`: {md_text(k['title'])}" + (f" ({links})" if links else ""))
    lines += _warnings_markdown(d.warnings)
    if t.get("report"):
        lines += ["", "## Report", "", f"Attached: {md_code(t['report'])} (one self-contained HTML page: swimlanes, progress, blame, evidence)."]
    lines += ["", f"_Generated by l4 ({d.reasoner}) from {md_code(d.job)}._", ""]
    return "\n".join(lines)
