"""The HTML report: log text stays inert, 1,000 nodes fold, a 64-node page stays small,
and the command line writes it (or says clearly why not)."""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.pipeline import analyze
from agent.report import render_html
from agent.report.lanes import FOLD_ABOVE, TOP_LANES
from agent.schema import Diagnosis, EventOut, NodeOut, Occurrence
from l4synth import generate_job

runner = CliRunner()
START = datetime(2024, 5, 12, 10, 0, 0, tzinfo=timezone.utc)

# Everything a log line could try on a page: a script, a template expression, an attribute
# break-out, ANSI colour, OSC title and clipboard writes, Rich markup.
NASTY = (
    'RuntimeError: CUDA error: an illegal memory access was encountered <script>alert(1)</script> {{ 7*7 }} '
    '{% if 1 %}X{% endif %} "><img src=x onerror=alert(2)> </title></svg> \x1b[31mRED\x1b[0m \x1b]0;PWNED\x07 '
    '\x1b]52;c;ZXZpbA==\x07 [bold red]x[/] [link=https://evil.example]click[/link]'
)


def _stamp(seconds: float) -> str:
    return (START + timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S")


def write_job(root: Path, nodes: int, faulty: int, root_text: str = NASTY, names: dict[int, str] | None = None) -> Path:
    """A training job of ``nodes`` node files: every node logs progress, ``faulty`` prints
    ``root_text`` and stops, the others time out on it a while later."""
    root.mkdir(parents=True)
    for i in range(nodes):
        lines = [f"{_stamp(0)} INFO [Rank {i}] NCCL INFO Bootstrap : Using eth0:10.0.{i // 250}.{i % 250}<0>"]
        lines += [
            f"{_stamp(5 + 10 * k)} INFO [Rank {i}] iteration {10 * k} | loss {2.5 - k / 100:.4f} | "
            f"elapsed time per iteration (ms): {10000 + (i * 7 + k * 13) % 300:.1f}"
            for k in range(30)
        ]
        if i == faulty:
            lines.append(f"{_stamp(301)} ERROR [Rank {i}] {root_text}")
        else:
            lines.append(
                f"{_stamp(900 + i % 7)} ERROR [Rank {i}] Watchdog caught collective operation timeout: "
                f"WorkNCCL(SeqNum=42, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out (peer rank {faulty})."
            )
            lines.append(f"{_stamp(905 + i % 7)} ERROR [Rank {i}] Process group watchdog thread terminated with exception")
        name = (names or {}).get(i, f"node-{i:04d}")
        (root / f"{name}.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def nasty_page(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Diagnosis]:
    job = write_job(tmp_path_factory.mktemp("nasty") / "logs", 6, 2, names={4: "w<i>4"})
    analysis = analyze(job)
    # The precondition of every assertion below: the nasty line is the evidence on the page.
    assert "<script>alert(1)</script>" in analysis.diagnosis.events[0].occurrences[0].text
    return render_html(analysis.diagnosis, analysis, warnings=["skipped bad.log: binary \x1b[2J content <b>"]), analysis.diagnosis


def test_log_text_is_inert_on_the_page(nasty_page: tuple[str, Diagnosis]) -> None:
    page, _ = nasty_page
    assert page.count("<script") == 1  # the page's own, nothing from the log
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img" not in page and "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "{{ 7*7 }}" in page and "{% if 1 %}X{% endif %}" in page  # shown, never evaluated
    assert "[bold red]x[/]" in page and "[link=https://evil.example]click[/link]" in page
    assert 'href="https://evil.example' not in page
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", page), "a control character reached the page"
    # Colour codes are removed when the log is read (presentation, not content); any other
    # escape sequence is shown, never live.
    assert "RED" in page and "[31m" not in page and "\\x1b]0;PWNED\\x07" in page
    assert "w&lt;i&gt;4" in page and "w<i>4" not in page  # a node name is log data too
    assert "skipped bad.log: binary \\x1b[2J content &lt;b&gt;" in page


def test_page_is_self_contained_and_locked_down(nasty_page: tuple[str, Diagnosis]) -> None:
    page, _ = nasty_page
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page), "the page must fetch nothing"
    assert "@import" not in page and "url(http" not in page
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    policy = html.unescape(csp.group(1)) if csp else ""
    assert "default-src 'none'" in policy and "script-src 'sha256-" in policy and "unsafe-inline" not in policy


def test_page_carries_verdict_swimlanes_and_evidence(nasty_page: tuple[str, Diagnosis]) -> None:
    page, diagnosis = nasty_page
    assert diagnosis.faulty_nodes[0].node == "node-0002"
    assert re.search(r'<div class="fact node"><dt>Faulty node</dt><dd>\s*<strong>node-0002</strong>', page)
    assert 'id="lanes"' in page and 'class="m-root"' in page and 'id="ev-1"' in page
    assert page.count('class="lane') - page.count('class="lane-label') == 6  # one lane per node
    assert "node-0002:32" in page  # the root line's citation (header, lane tooltip, evidence)
    assert 'id="progress"' in page and 'class="series' in page


def test_page_without_the_job_renders_the_verdict_only() -> None:
    d = Diagnosis(
        job="j", category="hardware", subcategory="network", symptom="training_crash",
        faulty_nodes=[NodeOut(node="worker-7", score=0.9, reason="prints the root event", aliases=["10.0.0.7"])],
        events=[EventOut(template="NCCL WARN <*>", score=0.9, reasons=["only on worker-7"],
                         occurrences=[Occurrence(node="worker-7", line=12, text="NCCL WARN <b>x</b>")])],
    )
    page = render_html(d)
    assert "<strong>worker-7</strong>" in page and "also 10.0.0.7" in page
    assert "worker-7:12" in page and "NCCL WARN &lt;b&gt;x&lt;/b&gt;" in page
    assert 'id="lanes"' not in page  # no mined job: no chart pretends to know the times


def test_thousand_nodes_fold_into_an_others_band(tmp_path: Path) -> None:
    nodes = 1000
    assert nodes > FOLD_ABOVE
    analysis = analyze(write_job(tmp_path / "logs", nodes, 777, root_text="RuntimeError: CUDA error: an illegal memory access was encountered"))
    page = render_html(analysis.diagnosis, analysis)
    lanes = re.findall(r'<g class="lane(?: suspect)?">\s*(?:<rect class="stripe"[^>]*>\s*)?<text class="lane-label"[^>]*>([^<]*)<', page)
    assert len(lanes) == TOP_LANES
    assert lanes[0].endswith("(node-0777)")  # the faulty node keeps the top lane, under the address NCCL names
    assert f"{nodes - TOP_LANES} other nodes" in page
    assert len(page.encode()) < 1_000_000


def test_a_64_node_page_stays_under_3_mb(tmp_path: Path) -> None:
    job = generate_job(tmp_path / "j64", hosts=64, lines=2000)
    analysis = analyze(job)
    assert len(analysis.mined.nodes) == 64
    page = render_html(analysis.diagnosis, analysis)
    size = len(page.encode())
    assert size < 3 * 1024 * 1024, f"{size} bytes"
    assert page.count('<g class="lane') == 64  # below the fold limit every node has its lane
    assert analysis.diagnosis.faulty_nodes[0].node in page


def test_cli_writes_the_page_or_says_why_not(tmp_path: Path) -> None:
    job = write_job(tmp_path / "logs", 4, 1, root_text="RuntimeError: CUDA error: an illegal memory access was encountered")
    page = tmp_path / "report.html"
    made = runner.invoke(app, ["diagnose", str(job), "--format", "html", "--out", str(page), "--reasoner", "offline"])
    assert made.exit_code == 0, made.output
    assert page.read_text(encoding="utf-8").startswith("<!doctype html>")
    # A cached diagnosis still gets its charts (the job is mined again, the verdict kept).
    again = runner.invoke(app, ["diagnose", str(job), "-f", "html", "-o", str(tmp_path / "again.html"), "--reasoner", "offline"])
    assert again.exit_code == 0 and "cached diagnosis" in again.stderr
    assert (tmp_path / "again.html").read_text(encoding="utf-8") == page.read_text(encoding="utf-8")
    piped = runner.invoke(app, ["diagnose", str(job), "-f", "html", "--reasoner", "offline"])
    assert piped.exit_code == 0 and piped.stdout.startswith("<!doctype html>")  # stdout is not a terminal here
    for bad, why in ((tmp_path / "no" / "such" / "r.html", "no folder"), (tmp_path, "it is a folder")):
        result = runner.invoke(app, ["diagnose", str(job), "-f", "html", "-o", str(bad), "--reasoner", "offline"])
        said = " ".join(result.stderr.split())  # the console wraps long paths at any space
        assert result.exit_code == 1 and "cannot write" in said and why in said
        assert "Traceback" not in result.output
    text = runner.invoke(app, ["diagnose", str(job), "-o", str(tmp_path / "r.txt"), "--reasoner", "offline"])
    assert text.exit_code == 0 and re.search(r"faulty node: (\S+ \()?node-0001", (tmp_path / "r.txt").read_text(encoding="utf-8"))


def test_ticket_attaches_the_page(tmp_path: Path) -> None:
    job = write_job(tmp_path / "logs", 4, 1, root_text="RuntimeError: CUDA error: an illegal memory access was encountered")
    page = tmp_path / "report.html"
    md = runner.invoke(app, ["ticket", str(job), "--html", str(page), "--reasoner", "offline"])
    assert md.exit_code == 0, md.output
    assert "Attached: `report.html`" in md.stdout and page.read_text(encoding="utf-8").startswith("<!doctype html>")
    js = runner.invoke(app, ["ticket", str(job), "--html", str(page), "-f", "json", "--reasoner", "offline"])
    assert '"report": "report.html"' in js.stdout
    bad = runner.invoke(app, ["ticket", str(job), "--html", str(tmp_path / "no" / "r.html"), "--reasoner", "offline"])
    assert bad.exit_code == 1 and "--html" in bad.stderr
