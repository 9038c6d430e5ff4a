"""The `l4` command line end to end on generated jobs, and drift guards for help and README."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.schema import Diagnosis
from l4synth import generate_demo

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[list[str]]:
    names: list[list[str]] = []
    for info in app.registered_commands:
        names.append([info.name or info.callback.__name__])  # type: ignore[union-attr]
    for group in app.registered_groups:
        sub = group.typer_instance
        for info in sub.registered_commands:
            names.append([group.name, info.name or info.callback.__name__])  # type: ignore[union-attr, list-item]
    return names


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c))
def test_every_command_has_help_and_is_in_the_readme(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
    readme = (ROOT / "README.md").read_text()
    assert f"l4 {' '.join(command)}" in readme, f"`l4 {' '.join(command)}` is not documented in README.md"


def test_readme_test_command_matches_ci() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    match = re.search(r"pip install -e '\.\[dev\]' && python -m pytest", readme)
    assert match, "README must show the test command"
    assert match.group(0) in ci


@pytest.fixture(scope="module")
def demo_job(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path], str]:
    return generate_demo(tmp_path_factory.mktemp("demo") / "demo")


def test_diagnose_json_follows_the_contract_and_is_cached(demo_job: tuple[Path, list[Path], str]) -> None:
    job, normals, _ = demo_job
    normal_args = [arg for n in normals for arg in ("--normal", str(n))]
    args = ["diagnose", str(job), "--format", "json", "--reasoner", "offline", *normal_args]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    diagnosis = Diagnosis.model_validate(data)
    assert data["schema"] == "l4-diagnosis/1"
    label = json.loads((job.parent / "label.json").read_text())
    assert diagnosis.category == label["category"]
    assert diagnosis.faulty_nodes and diagnosis.faulty_nodes[0].node == label["faulty_nodes"][0]
    labeled = {(n, line) for e in label["fault_events"] for n, lines in e["lines"].items() for line in lines}
    assert any((o.node, o.line) in labeled for o in diagnosis.events[0].occurrences)
    second = runner.invoke(app, args)
    assert second.exit_code == 0
    assert "cached diagnosis" in second.stderr
    assert json.loads(second.stdout) == data


def test_ticket_markdown_and_json(demo_job: tuple[Path, list[Path], str], tmp_path: Path) -> None:
    job, _, _ = demo_job
    md = runner.invoke(app, ["ticket", str(job), "--reasoner", "offline"])
    assert md.exit_code == 0, md.output
    assert md.stdout.startswith("# [l4] Training job")
    assert "## Evidence" in md.stdout and "## Remediation" in md.stdout
    out = tmp_path / "t.json"
    js = runner.invoke(app, ["ticket", str(job), "--format", "json", "--out", str(out), "--reasoner", "offline"])
    assert js.exit_code == 0
    ticket = json.loads(out.read_text())
    assert {"title", "impact", "verdict", "evidence", "remediation", "knowledge"} <= set(ticket)


def test_ask_offline_cites_lines(demo_job: tuple[Path, list[Path], str]) -> None:
    job, _, _ = demo_job
    result = runner.invoke(app, ["ask", str(job), "events", "--reasoner", "offline"])
    assert result.exit_code == 0, result.output
    assert re.search(r"[\w./-]+:\d+", result.stdout)
    refusal = runner.invoke(app, ["ask", str(job), "summarise the mood of the cluster", "--reasoner", "offline"])
    assert refusal.exit_code == 0
    assert "L4_BASE_URL" in refusal.stdout


def test_demo_runs_offline() -> None:
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "Ground truth" in result.stdout


def test_demo_never_writes_into_the_users_l4_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("L4_HOME", str(tmp_path / "mine"))
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "mine").exists()


def test_demo_stderr_is_only_progress(tmp_path: Path) -> None:
    # A real process: libraries that configure their own loggers on import (bm25s sets
    # DEBUG) must not leak debug lines into what an SRE sees.
    import os
    import subprocess
    import sys

    env = {**os.environ, "L4_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "agent", "demo"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Ground truth" in done.stdout
    assert not [line for line in done.stderr.splitlines() if line.startswith(("DEBUG", "INFO"))], done.stderr


def test_normal_pool_round_trip(demo_job: tuple[Path, list[Path], str]) -> None:
    _, normals, setting = demo_job
    added = runner.invoke(app, ["normal", "add", str(normals[0]), "--setting", setting])
    assert added.exit_code == 0, added.output
    listed = runner.invoke(app, ["normal", "list", "--format", "json"])
    assert setting in listed.stdout
    again = runner.invoke(app, ["normal", "add", str(normals[0]), "--setting", setting])
    assert again.exit_code == 1 and "already in the pool" in again.stderr
    removed = runner.invoke(app, ["normal", "remove", setting])
    assert removed.exit_code == 0


def test_library_confirm_then_list(demo_job: tuple[Path, list[Path], str]) -> None:
    job, _, _ = demo_job
    bad = runner.invoke(app, ["library", "confirm", str(job), "--category", "hardware/banana", "--note", "x"])
    assert bad.exit_code == 2
    ok = runner.invoke(app, ["library", "confirm", str(job), "--category", "hardware/accelerator", "--note", "bad GPU"])
    assert ok.exit_code == 0, ok.output
    listed = runner.invoke(app, ["library", "list", "--format", "json"])
    assert "bad GPU" in listed.stdout


def test_kb_search_json_shape() -> None:
    result = runner.invoke(
        app, ["kb", "search", "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.", "-f", "json", "--embedder", "lexical"]
    )
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert hits[0]["id"].startswith("xid-79")
    assert set(hits[0]) == {"id", "title", "category", "subcategory", "stack", "score"}


def test_bad_input_is_one_clear_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["diagnose", str(tmp_path / "missing"), "--reasoner", "offline"])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error:") and "Traceback" not in result.output
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["parse", str(tmp_path / "empty")])
    assert result.exit_code == 1 and "no log files" in result.stderr


def test_synth_small_and_check(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    made = runner.invoke(app, ["synth", str(out), "--preset", "small", "--cases", "6", "--seed", "3", "-f", "json"])
    assert made.exit_code == 0, made.output
    checked = runner.invoke(app, ["synth", str(out), "--check"])
    assert checked.exit_code == 0, checked.output
    bench = runner.invoke(app, ["bench", str(out), "--workers", "1", "-f", "json"])
    assert bench.exit_code == 0, bench.output
    assert "overall" in json.loads(bench.stdout)


@pytest.mark.slow
def test_wheel_contains_prompts_knowledge_vocab_prior_and_templates(tmp_path: Path) -> None:
    import subprocess
    import sys
    import zipfile

    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(ROOT), "-w", str(tmp_path)], check=True, timeout=300
    )
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("agent/_data/knowledge/cuda/") for n in names)
    assert any(n.startswith("agent/_data/prompts/") and n.endswith("diagnose.md") for n in names)
    assert "agent/_vocab/vocab.txt" in names
    assert {"agent/_prior/healthy_templates.jsonl", "agent/_prior/sources.json"} <= set(names)  # the shipped prior
    assert "l4synth/__init__.py" in names and "l4synth/demo.py" in names  # `l4 synth` and `l4 demo` need it
    for part in ("report.html.j2", "report.css", "report.js"):  # the HTML report's template
        assert f"agent/report/templates/{part}" in names


def test_bad_arguments_get_one_line_errors_not_tracebacks(tmp_path: Path) -> None:
    """Probe A10 and the argument checks: --top 0, an unknown --stack, --out into a missing folder."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "w.log").write_text("2024-05-12 10:00:05 ERROR RuntimeError: CUDA error: an illegal memory access was encountered\n")
    runner = CliRunner()
    env = {"L4_HOME": str(tmp_path / "home")}
    assert runner.invoke(app, ["diagnose", str(logs), "--top", "0"], env=env).exit_code == 2
    stack = runner.invoke(app, ["kb", "search", "x", "--stack", "gpu"], env=env)
    assert stack.exit_code == 2 and "unknown stack" in stack.stderr
    ticket = runner.invoke(app, ["ticket", str(logs), "--out", str(tmp_path / "no" / "such" / "t.md")], env=env)
    assert ticket.exit_code == 1 and "cannot write" in ticket.stderr and "Traceback" not in ticket.output
