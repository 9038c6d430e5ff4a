"""Regenerate docs/report.png: the demo job's HTML report, as headless Chromium shows it.

    python docs/screenshot.py [--dark] [--out docs/report.png]

Needs the dev extras (playwright) and a Chromium on PATH (Debian: apt-get install chromium).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from agent.synth import generate_demo

HERE = Path(__file__).resolve().parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "report.png")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--height", type=int, default=1500, help="pixels from the top of the page")
    opts = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="l4-shot-") as tmp:
        job, normals, _ = generate_demo(Path(tmp) / "demo")
        page_file = Path(tmp) / "report.html"
        env = {**os.environ, "L4_HOME": str(Path(tmp) / "home")}
        normal_args = [a for n in normals for a in ("--normal", str(n))]
        subprocess.run([sys.executable, "-m", "agent", "diagnose", str(job), *normal_args, "--reasoner", "offline",
                        "--format", "html", "--out", str(page_file)], check=True, env=env)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=ARGS)
            page = browser.new_page(viewport={"width": 1240, "height": opts.height},
                                    color_scheme="dark" if opts.dark else "light")
            page.goto(page_file.as_uri())
            page.screenshot(path=str(opts.out))
            browser.close()
    print(f"wrote {opts.out}")


if __name__ == "__main__":
    main()
