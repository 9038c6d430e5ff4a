"""The `l4` command line: parse arguments, call the library, render. Nothing else.

This is the only module that exits. Heavy modules are imported inside commands so that
`l4 --help` starts fast. Results go to stdout, progress and warnings to stderr.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import __version__
from .errors import AgentError

app = typer.Typer(
    name="l4",
    help="Tells you why a distributed LLM training job failed, from its logs.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
    rich_markup_mode=None,
)
out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


def _fail(message: str, code: int = 1) -> None:
    err.print(f"Error: {message}", markup=False)
    raise typer.Exit(code)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn library errors into one line on stderr and exit 1."""
    try:
        yield
    except AgentError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        err.print("Interrupted.")
        raise typer.Exit(130) from None


@contextmanager
def _progress(enabled: bool = True) -> Iterator[Any]:
    """A progress bar on stderr; yields a callback ``(stage, done, total)``."""
    if not enabled or not err.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err,
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update


def _print_warnings(warnings: list[str]) -> None:
    for warning in warnings:
        err.print(f"warning: {warning}", markup=False, style="yellow")


def _version_callback(value: bool) -> None:
    if value:
        out.print(f"l4 {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True, help="More log output on stderr (-vv for debug).")] = 0,
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    for noisy in ("httpx", "openai", "chromadb", "drain3", "bm25s", "langchain"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))


# ------------------------------------------------------------------------------- parse


@app.command()
def parse(
    job: Annotated[Path, typer.Argument(help="A job: a directory of per-node/per-rank logs (recursive, .gz ok) or one log file.")],
    top: Annotated[int, typer.Option(help="How many of the most frequent templates to show.")] = 10,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="text or json.")] = OutputFormat.text,
    workers: Annotated[int | None, typer.Option(help="Worker processes for reading (default: all cores).")] = None,
) -> None:
    """Read a job's logs and mine message templates: nodes, lines, templates, timings."""
    from .mining import parse_job
    from .render import escape_controls

    with _user_errors(), _progress(fmt is OutputFormat.text) as progress:
        summary = parse_job(job, top=top, workers=workers, progress=progress)
    _print_warnings(summary.warnings)
    if fmt is OutputFormat.json:
        out.print_json(json.dumps(summary.to_json_dict()))
        return
    rate = summary.lines / max(sum(summary.timings.values()), 1e-9)
    out.print(
        f"{summary.job}: {summary.files} file(s), {summary.nodes} node(s), {summary.lines:,} lines, "
        f"{summary.templates:,} templates ({rate:,.0f} lines/s)",
        markup=False,
    )
    table = Table(title=f"Top {len(summary.top_templates)} templates", show_lines=False)
    table.add_column("id", justify="right")
    table.add_column("count", justify="right")
    table.add_column("template", overflow="fold")
    for tid, count, template in summary.top_templates:
        table.add_row(str(tid), f"{count:,}", Text(escape_controls(template)))  # data, never markup
    out.print(table)
    nodes = summary.per_node_lines
    if nodes:
        sizes = sorted(nodes.values())
        out.print(f"lines per node: min {sizes[0]:,}, median {sizes[len(sizes) // 2]:,}, max {sizes[-1]:,}", markup=False)
    out.print("timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in summary.timings.items()), markup=False)


# ------------------------------------------------------------------------------- synth


class Preset(str, Enum):
    default = "default"
    small = "small"


@app.command()
def synth(
    dataset: Annotated[Path, typer.Argument(help="Output folder for the corpus (must be empty or absent); with --check, the corpus to verify.")],
    cases: Annotated[int, typer.Option(help="Number of failed cases to generate.")] = 100,
    seed: Annotated[int, typer.Option(help="Random seed; the same seed gives byte-identical files.")] = 0,
    preset: Annotated[Preset, typer.Option(help="default (realistic sizes) or small (seconds, for tests).")] = Preset.default,
    check: Annotated[bool, typer.Option("--check", help="Verify an existing corpus: every label line exists and matches.")] = False,
    workers: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="text or json summary.")] = OutputFormat.text,
) -> None:
    """Generate a labeled corpus of failed multi-node training jobs (CUDA and Ascend) with normal jobs."""
    from . import synth as synthesis

    with _user_errors():
        if check:
            if not dataset.is_dir():
                _fail(f"{dataset} is not a directory — give the corpus folder written by `l4 synth`", 2)
            problems = synthesis.check_corpus(dataset)
            for problem in problems[:50]:
                err.print(problem, markup=False)
            if problems:
                _fail(f"{len(problems)} problem(s) in {dataset}")
            summary = synthesis.corpus_summary(dataset)
            out.print(f"OK: {summary.get('cases', '?')} cases verified in {dataset}", markup=False)
            return
        if cases < 1:
            _fail("--cases must be at least 1", 2)
        with _progress(fmt is OutputFormat.text) as progress:
            callback = (lambda done, total: progress("generate", done, total)) if progress else None
            try:
                summary = synthesis.generate_corpus(
                    dataset, cases=cases, seed=seed, preset=preset.value, workers=workers, progress=callback
                )
            except ValueError as exc:
                _fail(str(exc), 2)
    if fmt is OutputFormat.json:
        out.print_json(json.dumps(summary))
        return
    _render_corpus_summary(dataset, summary)


def _render_corpus_summary(dataset: Path, summary: dict[str, Any]) -> None:
    out.print(f"Wrote {dataset}", markup=False)
    for key, value in summary.items():
        if isinstance(value, dict):
            table = Table(title=key)
            table.add_column(key)
            table.add_column("value", justify="right")
            for k, v in value.items():
                table.add_row(str(k), str(v))
            out.print(table)
        else:
            out.print(f"{key}: {value}", markup=False)


# ---------------------------------------------------------------------------- diagnose


class ReportFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class ReasonerChoice(str, Enum):
    auto = "auto"
    offline = "offline"
    llm = "llm"


JobArg = Annotated[
    Path, typer.Argument(help="The failed job: a directory of per-node/per-rank logs (recursive, .gz ok) or one log file.")
]
SettingOpt = Annotated[str | None, typer.Option(help="Compare with the stored normal jobs of this setting (see `l4 normal`).")]
NormalOpt = Annotated[
    list[Path] | None,
    typer.Option("--normal", help="A successful job of the same setting to compare with (repeatable); overrides --setting's pool."),
]
ReasonerOpt = Annotated[
    ReasonerChoice,
    typer.Option(help="offline (rules + knowledge), llm (OpenAI-compatible endpoint), auto (llm when configured)."),
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Diagnose again even if a cached diagnosis exists.")]
NoRedactOpt = Annotated[bool, typer.Option("--no-redact", help="Send log text to the LLM without redacting secrets (not recommended).")]


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
    from . import cache
    from .pipeline import analyze
    from .reasoners import get_reasoner

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


@app.command()
def diagnose(
    job: JobArg,
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", help="text (report), json (CONTRACTS.md) or markdown.")] = ReportFormat.text,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    top: Annotated[int, typer.Option(help="At most this many events in the output.")] = 10,
    workers: Annotated[int | None, typer.Option(help="Worker processes for reading (default: all cores).")] = None,
    all_lines: Annotated[bool, typer.Option("--all-lines", help="Show every occurrence in the text report.")] = False,
    no_cache: NoCacheOpt = False,
    no_redact: NoRedactOpt = False,
) -> None:
    """Diagnose a failed job: root cause, faulty node, stage, iteration, evidence lines, remediation."""
    from . import render

    with _user_errors(), _progress(fmt is ReportFormat.text) as progress:
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


@app.command()
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
    from . import render

    with _user_errors(), _progress() as progress:
        diagnosis, _ = _diagnosis(job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache, progress=progress)
        sources = _doc_sources([k.id for k in diagnosis.knowledge])
    text = (
        json.dumps(render.ticket(diagnosis, sources), indent=2, ensure_ascii=False) + "\n"
        if fmt is TicketFormat.json
        else render.ticket_markdown(diagnosis, sources)
    )
    if out_file is not None:
        out_file.write_text(text, encoding="utf-8")
        err.print(f"Wrote {out_file}", markup=False)
    else:
        sys.stdout.write(text)


def _doc_sources(ids: list[str]) -> dict[str, list[str]]:
    from .knowledge import load_docs

    docs = {d.id: d for d in load_docs(strict=False)}
    return {i: list(docs[i].sources) for i in ids if i in docs}


# --------------------------------------------------------------------------- ask/chat


def _session(job: Path, setting: str | None, normal: list[Path] | None, reasoner: ReasonerChoice, no_cache: bool) -> Any:
    from .chat import ChatSession

    diagnosis, analysis = _diagnosis(job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache)
    return ChatSession.from_settings(job, diagnosis, analysis)


def _print_answer(answer: Any) -> None:
    out.print(answer.text, markup=False, highlight=False)


@app.command()
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


@app.command()
def chat(
    job: JobArg,
    setting: SettingOpt = None,
    normal: NormalOpt = None,
    reasoner: ReasonerOpt = ReasonerChoice.auto,
    no_cache: NoCacheOpt = False,
) -> None:
    """Interactive follow-up questions over a diagnosed job (exit with Ctrl-D or `exit`)."""
    from . import render

    with _user_errors(), _progress() as progress:
        diagnosis, _ = _diagnosis(job, setting=setting, normal=normal, reasoner=reasoner, no_cache=no_cache, progress=progress)
    render.render_terminal(diagnosis, out)
    with _user_errors():
        from .chat import ChatSession

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


# ------------------------------------------------------------------------------ normal

normal_app = typer.Typer(help="The pool of successful jobs per setting, used to filter what is normal.", no_args_is_help=True)
app.add_typer(normal_app, name="normal")


@normal_app.command("add")
def normal_add(
    job: Annotated[Path, typer.Argument(help="A successful job (directory of logs or one file).")],
    setting: Annotated[str, typer.Option(help="The setting it belongs to, e.g. llama70b-megatron-cuda.")],
) -> None:
    """Learn a successful job into the normal pool of a setting."""
    from .pools import add_normal_job

    with _user_errors():
        profile = add_normal_job(setting, job)
    out.print(f"{setting}: {len(profile.jobs)} normal job(s), {len(profile.miner)} templates", markup=False)


@normal_app.command("list")
def normal_list(
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="text or json.")] = OutputFormat.text,
) -> None:
    """List the settings that have normal jobs, and their jobs."""
    from .pools import list_pools

    with _user_errors():
        pools = list_pools()
    if fmt is OutputFormat.json:
        out.print_json(json.dumps([{"setting": s, "jobs": [{"job": j.job, "nodes": j.nodes, "lines": j.lines} for j in jobs]} for s, jobs in pools]))
        return
    if not pools:
        out.print("No normal jobs stored. Add one with `l4 normal add JOB --setting NAME`.", markup=False)
        return
    table = Table()
    for col in ("setting", "job", "nodes", "lines"):
        table.add_column(col)
    for setting_name, jobs in pools:
        for j in jobs:
            table.add_row(Text(setting_name), Text(j.job), str(j.nodes), f"{j.lines:,}")
    out.print(table)


@normal_app.command("remove")
def normal_remove(
    setting: Annotated[str, typer.Argument(help="The setting whose pool to change.")],
    job: Annotated[Path | None, typer.Argument(help="The job to remove; without it the whole pool is removed.")] = None,
) -> None:
    """Remove a job from a setting's normal pool, or the whole pool."""
    from .pools import remove_normal

    with _user_errors():
        left = remove_normal(setting, job)
    out.print(f"{setting}: {left} normal job(s) left", markup=False)


# ------------------------------------------------------------------------------- bench


class Split(str, Enum):
    train = "train"
    dev = "dev"
    test = "test"
    leave_out = "leave-out"
    all = "all"


@app.command()
def bench(
    dataset: Annotated[Path, typer.Argument(help="A labeled dataset (cases/<id>/logs + label.json, normal/<setting>/...), e.g. from `l4 synth`.")],
    split: Annotated[Split, typer.Option(help=(
        "Which cases. Generated corpora: train/test by case id (same fault types on both sides), or leave-out "
        "(in-catalogue and held-out fault types side by side). Real corpora with splits.json: dev/test by source "
        "repository. Tune on train/dev, report test."))] = Split.all,
    no_normal: Annotated[bool, typer.Option("--no-normal", help="Ignore normal jobs (the paper's no-history fallback).")] = False,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", help="text (tables), json or markdown.")] = ReportFormat.text,
    workers: Annotated[int | None, typer.Option(help="Cases analysed in parallel (default: all cores).")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N cases (after the split).")] = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="Also write the report to this file.")] = None,
    per_case: Annotated[bool, typer.Option("--cases", help="Also print one row per case in the text report.")] = False,
) -> None:
    """Score l4 on labeled failures beside the paper's baselines (Error_time, Error_count, error-level,
    rare-event) and grep + signatures (every line against l4's own knowledge signatures)."""
    from .bench import SUMMARY_COLUMNS, run_bench
    from .bench.report import summary_rows

    if not dataset.is_dir():
        _fail(f"{dataset} is not a directory — give a dataset folder (see `l4 synth --help`)", 2)
    with _user_errors(), _progress(fmt is ReportFormat.text) as progress:
        callback = (lambda done, total: progress("cases", done, total)) if progress else None
        report = run_bench(
            dataset, split=None if split is Split.all else split.value, use_normal=not no_normal,
            workers=workers, progress=callback, limit=limit,
        )
    if fmt is ReportFormat.json:
        text = json.dumps(report.to_json_dict(), indent=2)
    elif fmt is ReportFormat.markdown:
        text = report.to_markdown()
    else:
        text = None
    if out_file is not None:
        out_file.write_text(text if text is not None else report.to_markdown())
    if text is not None:
        sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))
        return
    # Eight columns side by side: never squeeze them into a narrow pipe's 80 characters.
    wide = out if out.is_terminal and out.width >= 120 else Console(highlight=False, width=140)
    for side, summary in report.side_by_side().items():
        title = f"l4 bench: {dataset} (split {side}{', no normal jobs' if no_normal else ''})"
        table = Table(title=Text(title))
        for i, col in enumerate(SUMMARY_COLUMNS):
            table.add_column(col, justify="left" if i == 0 else "right", no_wrap=i == 0)
        for row in summary_rows(summary):
            table.add_row(*[Text(str(c)) for c in row])
        wide.print(table)
    if per_case:
        out.print(report.to_markdown().split("## Cases", 1)[-1], markup=False)


# ---------------------------------------------------------------------------------- kb

kb_app = typer.Typer(help="The troubleshooting knowledge base (Ascend and CUDA): build, search, show.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")

KnowledgeDirOpt = Annotated[
    list[Path] | None, typer.Option("--knowledge-dir", help="Extra folder of your own knowledge docs (repeatable).")
]


class Embedder(str, Enum):
    onnx = "onnx"
    lexical = "lexical"
    hash = "hash"


@kb_app.command("build")
def kb_build(
    knowledge_dir: KnowledgeDirOpt = None,
    embedder: Annotated[Embedder, typer.Option(help="onnx (semantic, MiniLM shipped in a package), lexical (BM25 only) or hash.")] = Embedder.onnx,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if the store is up to date.")] = False,
) -> None:
    """Build (or refresh) the vector store from the knowledge docs; diagnoses then use semantic retrieval too."""
    from .knowledge import KnowledgeBase

    with _user_errors():
        kb = KnowledgeBase.open(knowledge_dir, embedder.value)
        err.print("building the knowledge store (about half a minute for onnx)…", markup=False)
        info = kb.build(force=force)
    _print_warnings(list(info.warnings))
    state = "built" if info.rebuilt else "up to date"
    out.print(f"{info.docs} docs, {info.chunks} chunks, {info.embedder}: {state} in {info.seconds:.1f}s ({info.path})", markup=False)


@kb_app.command("search")
def kb_search(
    query: Annotated[str, typer.Argument(help="A raw log line or a question.")],
    top: Annotated[int, typer.Option(help="How many results.")] = 5,
    stack: Annotated[str | None, typer.Option(help="Only docs for this stack: ascend, cuda (docs for any stack are always kept).")] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="text or json (CONTRACTS.md).")] = OutputFormat.text,
    knowledge_dir: KnowledgeDirOpt = None,
    embedder: Annotated[Embedder, typer.Option(help="onnx (semantic + lexical), lexical (BM25 only, no build wait) or hash.")] = Embedder.onnx,
) -> None:
    """Search the knowledge base: signature matches first, then BM25 and semantic retrieval fused."""
    from .knowledge import KnowledgeBase

    with _user_errors():
        kb = KnowledgeBase.open(knowledge_dir, embedder.value)
        if not kb.is_built():
            err.print(f"building the {embedder.value} knowledge store once (see `l4 kb build`)…", markup=False)
        hits = kb.search(query, top=top, stack=stack)
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps([h.to_json_dict() for h in hits], indent=2) + "\n")
        return
    if not hits:
        out.print("No matching docs.", markup=False)
        return
    table = Table(show_edge=False)
    for col in ("score", "id", "category", "stack", "title"):
        table.add_column(col, overflow="fold")
    for h in hits:
        table.add_row(f"{h.score:.2f}", Text(h.id), f"{h.category}/{h.subcategory}", h.stack, Text(h.title))
    out.print(table)


@kb_app.command("show")
def kb_show(
    doc_id: Annotated[str, typer.Argument(help="A doc id, e.g. nccl-ib-completion-error-12-retry-exceeded.")],
    knowledge_dir: KnowledgeDirOpt = None,
) -> None:
    """Show one knowledge doc: meaning, remediation, what to collect, sources."""
    from .knowledge import load_docs

    with _user_errors():
        docs = {d.id: d for d in load_docs(knowledge_dir)}
    doc = docs.get(doc_id)
    if doc is None:
        close = [d for d in docs if doc_id.lower() in d]
        hint = f"similar ids: {', '.join(close[:5])}" if close else "find ids with `l4 kb search QUERY`"
        _fail(f"no knowledge doc {doc_id!r} — {hint}")
        return
    out.print(Text(f"{doc.title}", style="bold"))
    out.print(Text(f"{doc.id} · {doc.category}/{doc.subcategory} · stack {doc.stack} · severity {doc.severity}"))
    out.print(Text(""))
    out.print(Text(doc.body))
    for heading, items in (("Remediation", doc.remediation), ("Collect next", doc.collect_next), ("Sources", doc.sources)):
        if items:
            out.print(Text(f"\n{heading}", style="bold"))
            for item in items:
                out.print(Text(f"  - {item}"))


# ----------------------------------------------------------------------------- library

library_app = typer.Typer(help="The fault library: known signatures plus the patterns you confirm.", no_args_is_help=True)
app.add_typer(library_app, name="library")


@library_app.command("confirm")
def library_confirm(
    job: JobArg,
    category: Annotated[str, typer.Option(help="The confirmed root cause, category/subcategory (e.g. hardware/network).")],
    note: Annotated[str, typer.Option(help="What the SRE found (shown when the pattern matches again).")],
    remediation: Annotated[list[str] | None, typer.Option(help="A remediation step (repeatable).")] = None,
    events: Annotated[int, typer.Option(help="How many of the diagnosis' top events the pattern uses.")] = 2,
    setting: SettingOpt = None,
    normal: NormalOpt = None,
) -> None:
    """Turn a diagnosed job's top events into a user pattern; later diagnoses match it first."""
    from .library import FaultLibrary
    from .schema import subcategory_of

    cat, _, sub = category.partition("/")
    with _user_errors():
        try:
            subcategory_of(cat, sub)
        except ValueError as exc:
            _fail(f"{exc} — give --category like hardware/network", 2)
        diagnosis, _ = _diagnosis(job, setting=setting, normal=normal, reasoner=ReasonerChoice.offline)
        if not diagnosis.events:
            _fail(f"the diagnosis of {job} has no events to learn a pattern from — nothing to confirm")
        library = FaultLibrary.load()
        pattern = library.confirm(
            [e.model_dump() for e in diagnosis.events[:events]], cat, sub, note, remediation=remediation, source_job=str(job)
        )
    out.print(f"Saved user pattern {pattern.id} ({cat}/{sub}) with {len(pattern.regexes)} regex(es).", markup=False)


@library_app.command("list")
def library_list(fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="text or json.")] = OutputFormat.text) -> None:
    """List the patterns you confirmed."""
    from .library import FaultLibrary

    with _user_errors():
        patterns = FaultLibrary.load().list_user_patterns()
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps([p.to_json_dict() for p in patterns], indent=2) + "\n")
        return
    if not patterns:
        out.print("No user patterns yet. Add one with `l4 library confirm JOB --category C/S --note ...`.", markup=False)
        return
    table = Table(show_edge=False)
    for col in ("id", "category", "note", "regexes"):
        table.add_column(col, overflow="fold")
    for p in patterns:
        table.add_row(Text(p.id), f"{p.category}/{p.subcategory}", Text(p.note), str(len(p.regexes)))
    out.print(table)


@library_app.command("remove")
def library_remove(pattern_id: Annotated[str, typer.Argument(help="The id shown by `l4 library list`.")]) -> None:
    """Remove a pattern you confirmed."""
    from .library import FaultLibrary

    with _user_errors():
        FaultLibrary.load().remove_user_pattern(pattern_id)
    out.print(f"Removed {pattern_id}.", markup=False)


# -------------------------------------------------------------------------------- demo


@app.command()
def demo(
    keep: Annotated[Path | None, typer.Option(help="Keep the generated job here (default: a temporary folder).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the generated job.")] = 7,
) -> None:
    """End to end on a built-in failed job: generate it with normal jobs, learn them, diagnose. Offline, seconds."""
    import os
    import tempfile
    import time

    from . import render, synth
    from .pipeline import analyze
    from .pools import add_normal_job

    with _user_errors(), tempfile.TemporaryDirectory(prefix="l4-demo-") as tmp:
        base = keep or Path(tmp)
        if keep is not None and keep.exists() and any(keep.iterdir()):
            _fail(f"{keep} is not empty — give an empty or new folder to --keep", 2)
        os.environ.setdefault("L4_HOME", str(Path(tmp) / "home"))  # the demo never touches your own pool
        t0 = time.perf_counter()
        job, normals, setting = synth.generate_demo(base / "demo", seed=seed)
        err.print(f"1/3 generated a failed {setting} job and {len(normals)} successful ones in {base / 'demo'}", markup=False)
        for normal_job in normals:
            add_normal_job(setting, normal_job, workers=1)
        err.print(f"2/3 learned {len(normals)} normal job(s) into the pool of setting {setting!r}", markup=False)
        analysis = analyze(job, setting=setting, workers=1, reasoner="offline")
        err.print(f"3/3 diagnosed {job} in {time.perf_counter() - t0:.1f}s total", markup=False)
        render.render_terminal(analysis.diagnosis, out)
        label_path = job.parent / "label.json"
        if label_path.is_file():
            label = json.loads(label_path.read_text())
            out.print(
                Text(
                    f"\nGround truth of this generated job: {label['category']}/{label['subcategory']} on "
                    f"{', '.join(label['faulty_nodes']) or 'all nodes'}, {label['stage']}"
                    + (f", iteration {label['iterations'][0]}" if label["iterations"] else "")
                    + f" ({label['fault_type']}).",
                    style="dim",
                )
            )
        if keep is not None:
            err.print(f"Try: l4 ask {job} \"why {analysis.diagnosis.faulty_nodes[0].node if analysis.diagnosis.faulty_nodes else 'NODE'}\"", markup=False)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
