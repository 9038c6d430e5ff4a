"""`l4 normal`: the pools of successful jobs per setting that filter out what is normal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from . import OutputFormat, _user_errors, out
from .engine import EngineChoice, EngineOpt, PathMapOpt, RayAddressOpt, engine_scope

normal_app: typer.Typer = typer.Typer(help="The pool of successful jobs per setting, used to filter what is normal.", no_args_is_help=True)


@normal_app.command("add")
def normal_add(
    job: Annotated[Path, typer.Argument(help="A successful job (directory of logs or one file).")],
    setting: Annotated[str, typer.Option(help="The setting it belongs to, e.g. llama70b-megatron-cuda.")],
    force: Annotated[bool, typer.Option("--force", help="Add it even if it shows signs of a failure (tracebacks, ends on errors, ends early).")] = False,
    engine: EngineOpt = EngineChoice.local,
    ray_address: RayAddressOpt = None,
    path_map: PathMapOpt = None,
) -> None:
    """Learn a successful job into the normal pool of a setting (a job that looks failed is refused)."""
    from ..pools import add_normal_job

    with _user_errors(), engine_scope(engine, ray_address, path_map):
        profile = add_normal_job(setting, job, force=force)
    out.print(f"{setting}: {len(profile.jobs)} normal job(s), {len(profile.miner)} templates", markup=False)


@normal_app.command("list")
def normal_list(
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="text or json.")] = OutputFormat.text,
) -> None:
    """List the settings that have normal jobs, and their jobs."""
    from ..pools import list_pools

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
    from ..pools import remove_normal

    with _user_errors():
        left = remove_normal(setting, job)
    out.print(f"{setting}: {left} normal job(s) left", markup=False)
