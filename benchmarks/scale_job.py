"""End-to-end scale benchmark: a big failed job through `l4 diagnose`, against drain3 and `cat`.

Generates (once, cached under --dir) a failed multi-node job with the labeled generator,
sized to --lines over --nodes plain-text files, then measures in this one run:

- `cat` floor: `cat FILES | wc -l`, page-cached (the fastest any reader could go);
- drain3: `TemplateMiner.add_log_message` with drain3's example masking, on --drain3-lines
  lines sampled evenly over the job's files (drain3 alone is too slow for the whole job);
- l4: `l4 diagnose JOB --format json --no-cache` in a fresh L4_HOME (all of it: discovery,
  reading, mining, extraction, reasoning), its wall time, and the peak RSS of its process
  tree (the CLI plus its reader processes, sampled from /proc every 20 ms);

and prints lines/s of each, l4's ratio to drain3 and to `cat`, and whether the labeled
faulty node is ranked first. Only the ratios mean much: the machine's speed varies by run.

    python benchmarks/scale_job.py                       # 10M lines, 64 nodes
    python benchmarks/scale_job.py --nodes 1000 --lines 2000000
    python benchmarks/scale_job.py --engine ray          # the same through a local Ray
    python benchmarks/scale_job.py --also /tmp/l4-before # and another l4 checkout, same run
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

FAULT = "nccl-ib-completion-error"


def generate(dest: Path, nodes: int, lines: int, seed: int) -> Path:
    """A failed job of about ``lines`` lines over ``nodes`` node files (plain text)."""
    from l4synth import corpus
    from l4synth.corpus import CaseTask, run_task
    from l4synth.job import Shape

    rng = random.Random(f"scale:{seed}")
    setting = corpus._setting(rng, "cuda", "megatron", small=False, layout="node")
    setting = replace(setting, name=f"{setting.model}-megatron-cuda", per_host=1)
    per_stream = max(200, int(lines / nodes * 2.5))  # the generator logs ~40% of its planned lines per host
    task = CaseTask("case", "case", setting, FAULT, Shape(nodes, per_stream, 7200.0, max_lines=per_stream * 2),
                    f"scale:{seed}:case")
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    run_task(str(tmp), task)
    for packed in (tmp / "case" / "logs").rglob("*.gz"):  # the generator gzips some files; measure plain text
        packed.with_suffix("").write_bytes(gzip.decompress(packed.read_bytes()))
        packed.unlink()
    tmp.rename(dest)
    return dest


def files_of(job: Path) -> list[Path]:
    return sorted(p for p in job.rglob("*") if p.is_file())


def cat_floor(files: list[Path]) -> tuple[int, float]:
    for f in files:  # warm the page cache, as for every other reader below
        f.read_bytes()
    t0 = time.perf_counter()
    proc = subprocess.run(f"cat {' '.join(map(str, files))} | wc -l", shell=True, capture_output=True, text=True,
                          check=True)
    return int(proc.stdout.strip()), time.perf_counter() - t0


def drain3_rate(files: list[Path], n: int) -> tuple[int, float, int]:
    sys.path.insert(0, str(Path(__file__).parent))
    from mining_throughput import baseline_miner

    per_file = max(1, n // len(files))
    texts: list[str] = []
    for f in files:
        with f.open(encoding="utf-8", errors="replace") as fh:
            for i, line in enumerate(fh):
                if i >= per_file:
                    break
                texts.append(line.rstrip("\n"))
    miner = baseline_miner()
    t0 = time.perf_counter()
    for text in texts:
        miner.add_log_message(text)
    return len(texts), time.perf_counter() - t0, len(miner.drain.clusters)


def tree_rss(root: int) -> int:
    """Resident bytes of a process and all its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
            rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


def run_l4(job: Path, extra: list[str], source: Path | None = None) -> tuple[float, int, dict]:
    """``l4 diagnose`` from ``source`` (another checkout of l4; default this one), timed."""
    env = {**os.environ, "L4_HOME": tempfile.mkdtemp(prefix="l4-scale-home-")}
    source = source or Path(__file__).resolve().parent.parent
    env["PYTHONPATH"] = str(source)  # and run from there: `python -m` puts the cwd first on sys.path
    cmd = [sys.executable, "-m", "agent", "diagnose", str(job), "--format", "json", "--no-cache",
           "--reasoner", "offline", *extra]
    peak = 0
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=source)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    elapsed = time.perf_counter() - t0
    done.set()
    sampler.join()
    if proc.returncode:
        sys.exit(f"l4 diagnose failed ({proc.returncode}):\n{err.decode(errors='replace')[-2000:]}")
    return elapsed, peak, json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "l4-scale-jobs",
                        help="where generated jobs are kept between runs")
    parser.add_argument("--drain3-lines", type=int, default=1_200_000)
    parser.add_argument("--engine", default="local", help="local or ray (a local Ray is started by l4)")
    parser.add_argument("--also", type=Path, help="another l4 source tree to time in the same run (before/after)")
    args = parser.parse_args()

    dest = args.dir / f"job-{args.nodes}n-{args.lines}l-s{args.seed}"
    if not dest.exists():
        t0 = time.perf_counter()
        generate(dest, args.nodes, args.lines, args.seed)
        print(f"generated {dest} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    job = dest / "case" / "logs"
    label = json.loads((dest / "case" / "label.json").read_text())
    files = files_of(job)
    size = sum(f.stat().st_size for f in files)

    lines, cat_s = cat_floor(files)
    d_lines, d_s, d_templates = drain3_rate(files, args.drain3_lines)
    extra = ["--engine", args.engine] if args.engine != "local" else []
    l4_s, peak, diagnosis = run_l4(job, extra)
    if args.also:
        old_s, old_peak, old_diagnosis = run_l4(job, extra, args.also)

    first = diagnosis["faulty_nodes"][0]["node"] if diagnosis["faulty_nodes"] else None
    l4_rate, d_rate, cat_rate = lines / l4_s, d_lines / d_s, lines / cat_s
    print(f"job: {job}  {len(files)} files, {lines:,} lines, {size / 1e9:.2f} GB, cores: {os.cpu_count()}")
    print(f"cat | wc -l floor:            {cat_rate:>12,.0f} lines/s  ({cat_s:.2f} s)")
    print(f"drain3 per line, its masking: {d_rate:>12,.0f} lines/s  ({d_lines:,} lines, {d_s:.1f} s, "
          f"{d_templates} templates)")
    print(f"l4 diagnose (end to end):     {l4_rate:>12,.0f} lines/s  ({l4_s:.1f} s, engine {args.engine})")
    print(f"l4 / drain3: {l4_rate / d_rate:.1f}x   l4 / cat floor: {l4_rate / cat_rate:.3f}")
    print(f"peak RSS (l4 process tree): {peak / 2**20:,.0f} MiB")
    if args.also:
        print(f"l4 from {args.also}: {lines / old_s:,.0f} lines/s ({old_s:.1f} s, {(lines / old_s) / d_rate:.1f}x drain3, "
              f"peak RSS {old_peak / 2**20:,.0f} MiB); this tree is {old_s / l4_s:.1f}x faster; same diagnosis: "
              f"{'yes' if old_diagnosis == diagnosis else 'NO'}")
    print(f"faulty node ranked first: {first} (label: {', '.join(label['faulty_nodes'])}) -> "
          f"{'yes' if first in label['faulty_nodes'] else 'NO'}")


if __name__ == "__main__":
    main()
