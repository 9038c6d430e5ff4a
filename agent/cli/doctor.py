"""`l4 doctor`: check the state under L4_HOME and move aside what is damaged."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from . import _user_errors, out

_STYLE = {"ok": "green", "repaired": "yellow", "problem": "red"}


def doctor(
    check_only: Annotated[bool, typer.Option("--check", help="Only report; move nothing.")] = False,
) -> None:
    """Check L4_HOME (writable, config, normal pools, user patterns, cache, knowledge store); move damaged files aside."""
    from ..doctor import examine
    from ..render import escape_controls

    with _user_errors():
        findings = examine(repair=not check_only)
    for finding in findings:
        line = Text(f"{finding.state:>8}  ", style=_STYLE[finding.state])
        line.append(escape_controls(finding.what))
        out.print(line)
    if any(f.state == "problem" for f in findings):
        raise typer.Exit(1)
