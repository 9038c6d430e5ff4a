"""Commands over whole corpora and jobs without a diagnosis: `parse`, `synth`, `bench`, `demo`.

They share the generator and the miner rather than the diagnosis path, so they sit apart
from `diagnose.py`; each still only parses, calls the library and renders.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..config import USE_PRIOR_BY_DEFAULT
from . import (
    OutputFormat,
    PriorOpt,
    ReportFormat,
    _fail,
    _print_warnings,
    _progress,
    _stdin_job,
    _user_errors,
    err,
    out,
)
from .engine import EngineChoice, EngineOpt, PathMapOpt, RayAddressOpt, engine_scope

# ------------------------------------------------------------------------------- parse


def parse(
    job: Annotated[Path, typer.Argument(help="A job: a directory of per-node/per-rank logs (recursive, .gz ok), one log file, or - for standard input.")],
    top: Annotated[int, typer.Option(min=1, help="How many of the most frequent templates to show.")] = 10,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="text or json.")] = OutputFormat.text,
    workers: Annotated[int | None, typer.Option(help="Worker processes for reading (default: all cores).")] = None,
    engine: EngineOpt = EngineChoice.local,
    ray_address: RayAddressOpt = None,
    path_map: PathMapOpt = None,
) -> None:
    """Read a job's logs and mine message templates: nodes, lines, templates, timings."""
    from ..mining import parse_job
    from ..render import escape_controls

    with _user_errors(), engine_scope(engine, ray_address, path_map), _progress(fmt is OutputFormat.text) as progress:
        if str(job) == "-":
            with _stdin_job() as spooled:
                summary = parse_job(spooled, top=top, workers=workers, progress=progress)
            summary.job = "-"
        else:
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
    import l4synth as synthesis

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


# ------------------------------------------------------------------------------- bench


class Split(str, Enum):
    train = "train"
    dev = "dev"
    test = "test"
    leave_out = "leave-out"
    all = "all"


def bench(
    dataset: Annotated[Path, typer.Argument(help="A labeled dataset (cases/<id>/logs + label.json, normal/<setting>/...), e.g. from `l4 synth`.")],
    split: Annotated[Split, typer.Option(help=(
        "Which cases. Generated corpora: train/test by case id (same fault types on both sides), or leave-out "
        "(in-catalogue and held-out fault types side by side). Real corpora with splits.json: dev/test by source "
        "repository. Tune on train/dev, report test."))] = Split.all,
    no_normal: Annotated[bool, typer.Option("--no-normal", help="Ignore normal jobs (the paper's no-history fallback).")] = False,
    prior: PriorOpt = USE_PRIOR_BY_DEFAULT,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", help="text (tables), json or markdown.")] = ReportFormat.text,
    workers: Annotated[int | None, typer.Option(help="Cases analysed in parallel (default: all cores).")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N cases (after the split).")] = None,
    out_file: Annotated[Path | None, typer.Option("--out", help="Also write the report to this file.")] = None,
    per_case: Annotated[bool, typer.Option("--cases", help="Also print one row per case in the text report.")] = False,
) -> None:
    """Score l4 on labeled failures beside the paper's baselines (Error_time, Error_count, error-level,
    rare-event) and grep + signatures (every line against l4's own knowledge signatures)."""
    from ..bench import SUMMARY_COLUMNS, run_bench
    from ..bench.report import summary_rows

    if not dataset.is_dir():
        _fail(f"{dataset} is not a directory — give a dataset folder (see `l4 synth --help`)", 2)
    with _user_errors(), _progress(fmt is ReportFormat.text) as progress:
        callback = (lambda done, total: progress("cases", done, total)) if progress else None
        report = run_bench(
            dataset, split=None if split is Split.all else split.value, use_normal=not no_normal,
            workers=workers, progress=callback, limit=limit, use_prior=prior,
            warn=lambda message: _print_warnings([message]),
        )
    if fmt is ReportFormat.json:
        text = json.dumps(report.to_json_dict(), indent=2)
    elif fmt is ReportFormat.markdown:
        text = report.to_markdown()
    else:
        text = None
    if out_file is not None:
        try:
            out_file.write_text(text if text is not None else report.to_markdown())
        except OSError as exc:
            _fail(f"cannot write {out_file} ({exc.strerror or exc}) — give a writable path for --out")
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


# -------------------------------------------------------------------------------- demo


def demo(
    keep: Annotated[Path | None, typer.Option(help="Keep the generated job here (default: a temporary folder).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the generated job.")] = 7,
) -> None:
    """End to end on a built-in failed job: generate it with normal jobs, learn them, diagnose. Offline, seconds."""
    import tempfile

    from l4synth.demo import run_demo

    from .. import render

    with _user_errors(), tempfile.TemporaryDirectory(prefix="l4-demo-") as tmp:
        base = keep or Path(tmp)
        if keep is not None and keep.exists() and any(keep.iterdir()):
            _fail(f"{keep} is not empty — give an empty or new folder to --keep", 2)
        demo_run = run_demo(base / "demo", seed=seed, progress=lambda note: err.print(note, markup=False))
        analysis, job, label = demo_run.analysis, demo_run.job, demo_run.label
        render.render_terminal(analysis.diagnosis, out)
        if label is not None:
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
