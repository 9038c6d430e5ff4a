"""The `l4` command line: parse arguments, call the library, render. Nothing else.

This is the only package that exits. Heavy modules are imported inside commands so that
`l4 --help` starts fast. Results go to stdout, progress and warnings to stderr.

This module holds what every command shares: the typer `app`, the consoles, the error
boundary, the progress bar and the common options. The commands live in one module per
group (`diagnose`, `corpus`, `kb`, `normal`, `library`) and are registered at the bottom,
in the order `l4 --help` lists them.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from .. import __version__
from ..errors import AgentError

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
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=err, transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage == "lines":  # lines read so far, reported beside the "read" stage's files
                if "read" in tasks:
                    elapsed = bar.tasks[tasks["read"]].elapsed or 0.0
                    bar.update(tasks["read"], rate=f"{done / elapsed:,.0f} lines/s" if elapsed > 0 else "")
                return
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total, rate="")
            bar.update(tasks[stage], completed=done, total=total)

        yield update


@contextmanager
def _stdin_job() -> Iterator[Path]:
    """``-`` as the job is standard input (``kubectl logs POD | l4 diagnose -``): spooled to a
    temporary file, so it is read like a job of one console log."""
    import shutil
    import sys
    import tempfile

    with tempfile.TemporaryDirectory(prefix="l4-stdin-") as tmp:
        path = Path(tmp) / "stdin.log"
        with path.open("wb") as fh:
            shutil.copyfileobj(sys.stdin.buffer, fh)
        yield path


def _check_writable(path: Path, option: str = "--out") -> None:
    """Fail before the work, not after it, when ``path`` cannot be written."""
    if path.is_dir():
        _fail(f"cannot write {path} (it is a folder) — give a file name for {option}")
    if not path.parent.is_dir():
        _fail(f"cannot write {path} (no folder {path.parent}) — create the folder, or choose another path for {option}")


def _write_file(path: Path, text: str, option: str = "--out") -> None:
    """Write ``text`` to ``path`` and say so on stderr; one-line error if the write fails."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {path} ({exc.strerror or exc}) — give a writable path for {option}")
    err.print(f"Wrote {path}", markup=False)


def _print_warnings(warnings: list[str]) -> None:
    from ..render import escape_controls

    for warning in warnings:
        err.print(f"warning: {escape_controls(warning)}", markup=False, style="yellow")


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


# ----------------------------------------------------------------------- shared options


class ReportFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class ReasonerChoice(str, Enum):
    auto = "auto"
    offline = "offline"
    llm = "llm"


JobArg = Annotated[
    Path, typer.Argument(help="The failed job: a directory of per-node/per-rank logs (recursive, .gz ok), one log file, or - for standard input.")
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
PriorOpt = Annotated[bool, typer.Option("--prior/--no-prior", help=(
    "Without normal jobs, set aside messages that healthy public runs also print (the shipped prior; `l4 doctor` lists it)."))]


def main() -> None:
    import signal

    from ..workers import exit_on_sigterm

    # `kill PID` unwinds like Ctrl-C does (finally blocks run: no temp file or worker left).
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    app()


# Imported last: the command modules use the names above. Commands are registered here, not
# where they are defined, so that `l4 --help` keeps one deliberate order.
from . import corpus, diagnose, doctor, kb, library, normal  # noqa: E402

for _command in (
    corpus.parse, corpus.synth, diagnose.diagnose, diagnose.ticket, diagnose.ask, diagnose.chat, corpus.bench, corpus.demo,
    doctor.doctor,
):
    app.command()(_command)
app.add_typer(normal.normal_app, name="normal")
app.add_typer(kb.kb_app, name="kb")
app.add_typer(library.library_app, name="library")
