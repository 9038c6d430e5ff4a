"""The report as a person opens it: headless Chromium, offline, no console error, the answer
on screen, a tooltip on hover, context on click, dark mode and print.

Needs the `playwright` package (a dev dependency) and a Chromium on PATH (Debian's
`chromium`; `L4_CHROMIUM` names another). Without them the test skips, unless
`L4_REQUIRE_BROWSER=1` (set by `.ci/run`) makes their absence a failure.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.synth import generate_demo

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _unavailable(reason: str) -> None:
    if os.environ.get("L4_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason}; L4_REQUIRE_BROWSER=1 requires the browser test to run")
    pytest.skip(reason)


def _chromium() -> str:
    for name in (os.environ.get("L4_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name) if name else None
        if found:
            return found
    _unavailable("no Chromium on PATH (apt-get install chromium)")
    raise AssertionError  # unreachable: skip or fail raised


@pytest.fixture(scope="module")
def browser() -> Any:
    executable = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -e '.[dev]')")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    job, normals, _ = generate_demo(tmp_path_factory.mktemp("demo") / "demo")
    page = job.parent / "report.html"
    args = ["diagnose", str(job), *(a for n in normals for a in ("--normal", str(n))), "--reasoner", "offline"]
    runner = CliRunner()
    made = runner.invoke(app, [*args, "--format", "html", "--out", str(page)])
    assert made.exit_code == 0, made.output
    diagnosis = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
    label = json.loads((job.parent / "label.json").read_text())
    return page, diagnosis, label


def test_report_opens_offline_without_errors_and_shows_the_answer(browser: Any, demo_report: Any) -> None:
    path, diagnosis, label = demo_report
    context = browser.new_context(viewport={"width": 1240, "height": 900}, offline=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: None if r.url.startswith(("file:", "data:")) else problems.append(f"fetch: {r.url}"))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")

    faulty = label["faulty_nodes"][0]
    root = diagnosis["events"][0]["occurrences"][0]
    assert diagnosis["faulty_nodes"][0]["node"] == faulty  # the page shows the right answer, not just any
    assert page.locator(".fact.node strong").inner_text() == faulty
    assert page.locator(".rootline code").inner_text() == root["text"]
    assert page.locator(".rootline .cite").inner_text() == f"{root['node']}:{root['line']}"

    # Hover the root event's mark: the tooltip shows the raw line with node:line.
    page.locator("svg.chart .m-root").first.hover()
    tip = page.locator("#tip")
    assert tip.is_visible()
    assert f"{root['node']}:{root['line']}" in tip.inner_text() and root["text"][:60] in tip.inner_text()

    # Open the root's first cited line: its context, read back from the file, shows the line itself.
    page.locator("#ev-1 details summary").first.click()
    hit = page.locator("#ev-1 details .ctx .hit").first
    assert hit.is_visible() and root["text"] in hit.inner_text()

    # Dark mode reads dark; print renders.
    page.emulate_media(color_scheme="dark")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert sum(int(v) for v in background[background.index("(") + 1 : -1].split(",")[:3]) < 150, background
    page.emulate_media(media="print", color_scheme="light")
    assert len(page.pdf()) > 10_000
    assert not problems, problems
    context.close()
