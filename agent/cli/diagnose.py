"""Commands over one diagnosed job: `diagnose`, `ticket`, `ask`, `chat`.

They share `_diagnosis`, the one place that picks the reasoner and applies the cache
policy (a cached diagnosis is reused; a fallback verdict is never cached).
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from . import (
    JobArg,
    NoCacheOpt,
    NoRedactOpt,
    NormalOpt,
    ReasonerChoice,
    ReasonerOpt,
    ReportFormat,
    SettingOpt,
    _fail,
    _print_warnings,
    _progress,
    _user_errors,
    err,
    out,
)
from .engine import EngineChoice, EngineOpt, PathMapOpt, RayAddressOpt, engine_scope


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
) -> tuple[Any, Any]:
    """(Diagnosis, Analysis or None when it came from the cache); warnings printed."""
    from .. import cache
    from ..pipeline import analyze
    from ..reasoners import get_reasoner

    chosen = get_reasoner(reasoner.value, **({"redact": False} if no_redact else {}))
    identity = "|".join(str(getattr(chosen, attr, "")) for attr in ("name", "model", "base_url"))
    key = cache.job_key(job, normal_jobs=normal, setting=setting, reasoner=f"{identity}|top={top}")
    if not no_cache:
        cached = cache.load(key)
        if cached is not None:
            err.print(f"(cached diagnosis of {job}; --no-cache to redo it)", style="dim", markup=False)
            _print_warnings(cached.warnings)
            return cached.diagnosis, None
    analysis = analyze(
        job, normal_jobs=normal or None, setting=setting, top=top, workers=workers, progress=progress, reasoner=chosen
    )
    _print_warnings(analysis.warnings)
    redacted = getattr(chosen, "redacted_count", None)
    if redacted is not None and chosen.name != "offline":
        err.print(f"Redacted {redacted} item(s) before sending to the LLM.", style="dim", markup=False)
    # A fallback (the endpoint failed, the offline verdict was used) is never cached:
    # the next call must try the endpoint again.
    if analysis.diagnosis.reasoner == chosen.name:
        problem = cache.save(key, analysis.diagnosis, analysis.warnings)
        if problem:
            _print_warnings([problem])
    return analysis.diagnosis, analysis


def diagnose(
    job: JobArg,
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", help="text (report), json (CONTRACTS.md) or markdown.")] = ReportFormat.text,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    top: Annotated[int, typer.Option(min=1, help="At most this many events in the output.")] = 10,
    workers: Annotated[int | None, typer.Option(help="Worker processes for reading (default: all cores).")] = None,
    all_lines: Annotated[bool, typer.Option("--all-lines", help="Show every occurrence in the text report.")] = False,
    no_cache: NoCacheOpt = False,
    no_redact: NoRedactOpt = False,
    engine: EngineOpt = EngineChoice.local,
    ray_address: RayAddressOpt = None,
    path_map: PathMapOpt = None,
) -> None:
    """Diagnose a failed job: root cause, faulty node, stage, iteration, evidence lines, remediation."""
    from .. import render

    with _user_errors(), engine_scope(engine, ray_address, path_map), _progress(fmt is ReportFormat.text) as progress:
        diagnosis, _ = _diagnosis(
            job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache, no_redact=no_redact,
            top=top, workers=workers, progress=progress,
        )
    if fmt is ReportFormat.json:
        sys.stdout.write(render.to_json(diagnosis) + "\n")
    elif fmt is ReportFormat.markdown:
        sys.stdout.write(render.to_markdown(diagnosis))
    else:
        render.render_terminal(diagnosis, out, verbose=all_lines)


class TicketFormat(str, Enum):
    markdown = "markdown"
    json = "json"


def ticket(
    job: JobArg,
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    fmt: Annotated[TicketFormat, typer.Option("--format", "-f", help="markdown (paste into Jira/GitHub) or json.")] = TicketFormat.markdown,
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="Write the ticket to this file instead of stdout.")] = None,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    no_cache: NoCacheOpt = False,
) -> None:
    """A ticket summary of a failed job: title, impact, verdict, evidence, remediation, knowledge links."""
    from .. import render

    with _user_errors(), _progress() as progress:
        diagnosis, _ = _diagnosis(job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache, progress=progress)
        sources = _doc_sources([k.id for k in diagnosis.knowledge])
    text = (
        json.dumps(render.ticket(diagnosis, sources), indent=2, ensure_ascii=False) + "\n"
        if fmt is TicketFormat.json
        else render.ticket_markdown(diagnosis, sources)
    )
    if out_file is not None:
        try:
            out_file.write_text(text, encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write {out_file} ({exc.strerror or exc}) — give a writable path, or leave out --out to print it")
        err.print(f"Wrote {out_file}", markup=False)
    else:
        sys.stdout.write(text)


def _doc_sources(ids: list[str]) -> dict[str, list[str]]:
    from ..knowledge import load_docs

    docs = {d.id: d for d in load_docs(strict=False)}
    return {i: list(docs[i].sources) for i in ids if i in docs}


# --------------------------------------------------------------------------- ask/chat


def _session(job: Path, setting: str | None, normal: list[Path] | None, reasoner: ReasonerChoice, no_cache: bool) -> Any:
    from ..chat import ChatSession

    diagnosis, analysis = _diagnosis(job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache)
    return ChatSession.from_settings(job, diagnosis, analysis)


def _print_answer(answer: Any) -> None:
    out.print(answer.text, markup=False, highlight=False)


def ask(
    job: JobArg,
    question: Annotated[str, typer.Argument(help='A question, e.g. "why not worker-3?" or "show the lines around worker-7:8812".')],
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    no_cache: NoCacheOpt = False,
) -> None:
    """One follow-up question about a diagnosed job (answers cite node:line). Type `help` for the commands."""
    with _user_errors():
        session = _session(job, setting, normal, reasoner, no_cache)
        answer = session.ask(question)
    _print_answer(answer)


def chat(
    job: JobArg,
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    no_cache: NoCacheOpt = False,
) -> None:
    """Interactive follow-up questions over a diagnosed job (exit with Ctrl-D or `exit`)."""
    from .. import render

    with _user_errors(), _progress() as progress:
        diagnosis, _ = _diagnosis(job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache, progress=progress)
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
