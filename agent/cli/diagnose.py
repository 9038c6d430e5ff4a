"""Commands over one diagnosed job: `diagnose`, `ticket`, `ask`, `chat`.

They share `_diagnosis`, the one place that picks the reasoner; the cache policy (a cached
diagnosis is reused, a fallback verdict is never cached) is `pipeline.Diagnoser.run`'s.
"""

from __future__ import annotations

import io
import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from ..config import USE_PRIOR_BY_DEFAULT
from . import (
    JobArg,
    NoCacheOpt,
    NoRedactOpt,
    NormalOpt,
    PriorOpt,
    ReasonerChoice,
    ReasonerOpt,
    SettingOpt,
    _check_writable,
    _fail,
    _print_warnings,
    _progress,
    _stdin_job,
    _user_errors,
    _write_file,
    err,
    out,
)
from .engine import EngineChoice, EngineOpt, PathMapOpt, RayAddressOpt, engine_scope


class ReportFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


def _diagnosis(
    job: Path,
    *,
    setting: str | None,
    normal: list[Path] | None,
    reasoner: ReasonerChoice,
    no_cache: bool = False,
    no_redact: bool = False,
    top: int = 10,
    workers: int | None = None,
    progress: Any = None,
    warnings: list[str] | None = None,
    prior: bool = USE_PRIOR_BY_DEFAULT,
) -> tuple[Any, Any]:
    """(Diagnosis, Analysis or None when it came from the cache); warnings printed (and
    added to ``warnings`` when given, for a rendering that shows them)."""
    from ..cache import DiagnosisCache
    from ..pipeline import SHARED, Diagnoser
    from ..reasoners import get_reasoner

    if str(job) == "-":  # standard input: never cached (there is no file to key on)
        with _stdin_job() as spooled:
            diagnosis, analysis = _diagnosis(
                spooled, setting=setting, normal=normal, reasoner=reasoner, no_cache=True, no_redact=no_redact,
                top=top, workers=workers, progress=progress, warnings=warnings, prior=prior,
            )
        return diagnosis.model_copy(update={"job": "-"}), analysis

    chosen = get_reasoner(reasoner.value, **({"redact": False} if no_redact else {}))
    diagnoser = Diagnoser(reasoner=chosen, cache=DiagnosisCache(), prior=SHARED if prior else None)
    run = diagnoser.run(
        job, normal_jobs=normal, setting=setting, top=top, workers=workers, progress=progress, reuse=not no_cache
    )
    if run.cached:
        err.print(f"(cached diagnosis of {job}; --no-cache to redo it)", style="dim", markup=False)
    _print_warnings(run.warnings)
    if warnings is not None:
        warnings.extend(run.warnings)
    benign = run.analysis.extraction.prior_benign if run.analysis is not None else {}
    if benign:
        err.print(f"(no normal jobs: {len(benign)} message type(s) that healthy public runs also print were set aside — "
                  "the shipped prior, see `l4 doctor`)", style="dim", markup=False)
    if run.analysis is not None and run.analysis.redacted is not None:
        err.print(f"Redacted {run.analysis.redacted} item(s) before sending to the LLM.", style="dim", markup=False)
    return run.diagnosis, run.analysis


OutOpt = Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file instead of stdout.")]


def diagnose(
    job: JobArg,
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    fmt: Annotated[
        ReportFormat,
        typer.Option("--format", "-f", help="text (report), json (CONTRACTS.md), markdown, or html (one self-contained page; use --out)."),
    ] = ReportFormat.text,
    out_file: OutOpt = None,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    top: Annotated[int, typer.Option(min=1, help="At most this many events in the output.")] = 10,
    workers: Annotated[int | None, typer.Option(help="Worker processes for reading (default: all cores).")] = None,
    all_lines: Annotated[bool, typer.Option("--all-lines", help="Show every occurrence in the text report.")] = False,
    no_cache: NoCacheOpt = False,
    no_redact: NoRedactOpt = False,
    prior: PriorOpt = USE_PRIOR_BY_DEFAULT,
    engine: EngineOpt = EngineChoice.local,
    ray_address: RayAddressOpt = None,
    path_map: PathMapOpt = None,
) -> None:
    """Diagnose a failed job: root cause, faulty node, stage, iteration, evidence lines, remediation."""
    from .. import render

    if out_file is not None:
        _check_writable(out_file)
    elif fmt is ReportFormat.html and sys.stdout.isatty():
        _fail("--format html writes a whole page: give --out FILE (or redirect stdout to a file)", 2)
    warnings: list[str] = []
    with _user_errors(), engine_scope(engine, ray_address, path_map), \
            _progress(fmt in (ReportFormat.text, ReportFormat.html)) as progress:
        diagnosis, analysis = _diagnosis(
            job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache, no_redact=no_redact,
            top=top, workers=workers, progress=progress, warnings=warnings, prior=prior,
        )
        if fmt is ReportFormat.html:
            text = _html_page(job, diagnosis, analysis, warnings, setting=setting, normal=normal, top=top,
                              workers=workers, progress=progress, prior=prior)
    if fmt is ReportFormat.json:
        text = render.to_json(diagnosis) + "\n"
    elif fmt is ReportFormat.markdown:
        text = render.to_markdown(diagnosis)
    elif fmt is ReportFormat.text:
        if out_file is None:
            render.render_terminal(diagnosis, out, verbose=all_lines)
            return
        capture = Console(width=120, highlight=False, no_color=True, record=True, file=io.StringIO())
        render.render_terminal(diagnosis, capture, verbose=all_lines)
        text = capture.export_text()
    if out_file is not None:
        _write_file(out_file, text)
    else:
        sys.stdout.write(text)


def _html_page(job: Path, diagnosis: Any, analysis: Any, warnings: list[str], **again: Any) -> str:
    """The report page. A cached diagnosis has no mined job: the job is mined and extracted
    again for the charts (no reasoner: the verdict stays the cached one, no LLM call)."""
    if str(job) == "-":  # the page re-reads the job's lines, and standard input was read once
        _fail("the HTML report needs the job on disk — save standard input to a file (… > job.log) first", 2)
    from ..pipeline import analyze
    from ..report import render_html

    if analysis is None:
        normal = again.pop("normal")
        analysis = analyze(job, normal_jobs=normal or None, reasoner=None, use_prior=again.pop("prior"), **again)
    sources = _doc_sources([k.id for k in diagnosis.knowledge])
    return render_html(diagnosis, analysis, warnings=warnings, sources=sources)


class TicketFormat(str, Enum):
    markdown = "markdown"
    json = "json"


def ticket(
    job: JobArg,
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    fmt: Annotated[TicketFormat, typer.Option("--format", "-f", help="markdown (paste into Jira/GitHub) or json.")] = TicketFormat.markdown,
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="Write the ticket to this file instead of stdout.")] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write the HTML report to this file; the ticket names it as its attachment.")
    ] = None,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    no_cache: NoCacheOpt = False,
    prior: PriorOpt = USE_PRIOR_BY_DEFAULT,
) -> None:
    """A ticket summary of a failed job: title, impact, verdict, evidence, remediation, knowledge links."""
    from .. import render

    for path, option in ((out_file, "--out"), (html, "--html")):
        if path is not None:
            _check_writable(path, option)
    warnings: list[str] = []
    with _user_errors(), _progress() as progress:
        diagnosis, analysis = _diagnosis(
            job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache, progress=progress, warnings=warnings,
            prior=prior,
        )
        sources = _doc_sources([k.id for k in diagnosis.knowledge])
        page = None
        if html is not None:
            page = _html_page(job, diagnosis, analysis, warnings, setting=setting, normal=normal, top=10, workers=None,
                              progress=progress, prior=prior)
    if page is not None and html is not None:
        _write_file(html, page, "--html")
    report = html.name if html is not None else None
    text = (
        json.dumps(render.ticket(diagnosis, sources, report=report), indent=2, ensure_ascii=False) + "\n"
        if fmt is TicketFormat.json
        else render.ticket_markdown(diagnosis, sources, report=report)
    )
    if out_file is not None:
        _write_file(out_file, text)
    else:
        sys.stdout.write(text)


def _doc_sources(ids: list[str]) -> dict[str, list[str]]:
    from ..knowledge import load_docs

    docs = {d.id: d for d in load_docs(strict=False)}
    return {i: list(docs[i].sources) for i in ids if i in docs}


# --------------------------------------------------------------------------- ask/chat


def _session(
    job: Path, setting: str | None, normal: list[Path] | None, reasoner: ReasonerChoice, no_cache: bool, prior: bool
) -> Any:
    from ..chat import ChatSession

    diagnosis, analysis = _diagnosis(job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache, prior=prior)
    return ChatSession.from_settings(job, diagnosis, analysis)


def _no_stdin(job: Path) -> None:
    if str(job) == "-":  # answers re-read the job's lines, and standard input can be read once
        _fail("questions need the job on disk — save standard input to a file (… > job.log) and ask about that", 2)


def _print_answer(answer: Any) -> None:
    out.print(answer.text, markup=False, highlight=False)


def ask(
    job: JobArg,
    question: Annotated[str, typer.Argument(help='A question, e.g. "why not worker-3?" or "show the lines around worker-7:8812".')],
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    no_cache: NoCacheOpt = False,
    prior: PriorOpt = USE_PRIOR_BY_DEFAULT,
) -> None:
    """One follow-up question about a diagnosed job (answers cite node:line). Type `help` for the commands."""
    _no_stdin(job)
    with _user_errors():
        session = _session(job, setting, normal, reasoner, no_cache, prior)
        answer = session.ask(question)
    _print_answer(answer)


def chat(
    job: JobArg,
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    no_cache: NoCacheOpt = False,
    prior: PriorOpt = USE_PRIOR_BY_DEFAULT,
) -> None:
    """Interactive follow-up questions over a diagnosed job (exit with Ctrl-D or `exit`)."""
    from .. import render

    _no_stdin(job)
    with _user_errors(), _progress() as progress:
        diagnosis, _ = _diagnosis(
            job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache, progress=progress, prior=prior
        )
    render.render_terminal(diagnosis, out)
    with _user_errors():
        from ..chat import ChatSession

        session = ChatSession.from_settings(job, diagnosis, None)
    err.print("Ask about this job (`help` lists what works offline; Ctrl-D to leave).", markup=False)
    while True:
        try:
            question = input("l4> ").strip()
        except (EOFError, KeyboardInterrupt):
            err.print("")
            return
        if question in ("exit", "quit", ":q"):
            return
        if not question:
            continue
        with _user_errors():
            _print_answer(session.ask(question))
