"""`l4 library`: confirm, list and remove the user patterns of the fault library."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from . import JobArg, NormalOpt, OutputFormat, ReasonerChoice, SettingOpt, _fail, _print_warnings, _user_errors, out
from .diagnose import _diagnosis

library_app: typer.Typer = typer.Typer(help="The fault library: known signatures plus the patterns you confirm.", no_args_is_help=True)


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
    from ..library import FaultLibrary
    from ..schema import subcategory_of

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
    from ..library import FaultLibrary

    with _user_errors():
        library = FaultLibrary.load()
        patterns = library.list_user_patterns()
    _print_warnings([f"{w} (`l4 doctor` moves damaged patterns aside)" for w in library.warnings])
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
    from ..library import FaultLibrary

    with _user_errors():
        FaultLibrary.load().remove_user_pattern(pattern_id)
    out.print(f"Removed {pattern_id}.", markup=False)
