"""Log text is data in every rendering: escape sequences and markup in a log line never
reach the terminal, the Markdown or the ticket as live codes (probe I20a/I20c)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agent.cli import app
from agent.render import displayable, escape_controls, to_markdown
from agent.schema import Diagnosis, EventOut, NodeOut, Occurrence

EVIL = "RuntimeError: CUDA error \x1b[31mRED\x1b[0m \x1b]0;PWNED\x07 \x1b]52;c;Y2xpcA==\x07 \x1b[2J"


def test_control_characters_become_visible_escapes() -> None:
    assert escape_controls("a\x1b[31mb\x07c\x00d\te") == "a\\x1b[31mb\\x07c\\x00d\te"
    assert escape_controls("node\nforged:1") == "node\\x0aforged:1"


def test_a_diagnosis_renders_without_escape_sequences() -> None:
    d = Diagnosis(job="j", root_cause=EVIL, faulty_nodes=[NodeOut(node="n\x1b[2J", score=1.0, reason=EVIL)],
                  events=[EventOut(template=EVIL, score=1.0, occurrences=[Occurrence(node="n", line=3, text=EVIL)])])
    for text in (to_markdown(d), displayable(d).model_dump_json()):
        assert "\x1b" not in text and "\x07" not in text


def test_the_cli_report_and_parse_print_no_escapes_or_live_markup(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "worker-0.log").write_text(
        "2024-05-12 10:00:00 INFO iteration 1 loss 2.0\n"
        f"2024-05-12 10:00:01 ERROR {EVIL}\n"
        "2024-05-12 10:00:02 ERROR C:\\[bold red]INJECTED[/bold red]\n"
    )
    runner = CliRunner()
    for args in (["diagnose", str(logs), "--no-cache"], ["diagnose", str(logs), "--no-cache", "-f", "markdown"],
                 ["ticket", str(logs)], ["parse", str(logs)]):
        result = runner.invoke(app, args, env={"L4_HOME": str(tmp_path / "home"), "COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.stdout and "\x07" not in result.stdout, args
    parsed = runner.invoke(app, ["parse", str(logs)], env={"L4_HOME": str(tmp_path / "home"), "COLUMNS": "200"})
    assert "[bold red]INJECTED" in parsed.stdout  # the tag is printed, not applied


def test_markdown_shows_log_markup_as_text() -> None:
    from agent.render import ticket_markdown

    markup = "RuntimeError: <img src=x onerror=alert(1)> [click](javascript:alert(1)) **loud** __init__ | a"
    fenced = "ValueError: bad ``` quote"
    d = Diagnosis(job="j", root_cause=markup, remediation=[f"Check `{markup}` and {markup}"],
                  events=[EventOut(template=fenced, score=1.0, occurrences=[Occurrence(node="n", line=3, text=fenced)])])
    for text in (to_markdown(d), ticket_markdown(d)):
        assert f"`{markup}`" in text  # inside a code span the line is shown as it is
        prose = text.replace(f"`{markup}`", "")
        assert "<img" not in prose.replace("\\<img", "") and "](javascript" not in prose.replace("\\](javascript", "")
        assert "\\*\\*loud\\*\\*" in prose and "\\_\\_init\\_\\_" in prose
        assert "````text" in text  # the fence is longer than the line's own backticks
    assert "- ````ValueError: bad ``` quote````" in to_markdown(d)  # a code span its own backticks cannot end


def test_the_ticket_names_a_suspect_by_the_host_its_lines_name() -> None:
    from agent.render import ticket_markdown

    # One console for the whole job: the host the lines name leads (dlrover's "worker-116 restart 0 fails").
    d = Diagnosis(job="j", faulty_nodes=[NodeOut(node="console", score=0.5, reason="prints the root", aliases=["worker-116"])])
    assert "- Suspect node(s): worker-116 (console)" in ticket_markdown(d)
