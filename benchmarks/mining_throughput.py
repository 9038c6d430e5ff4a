"""Mining throughput: l4's masker + cache + Drain vs. drain3 alone, same lines, same run.

The baseline is what most users of drain3 write: ``TemplateMiner.add_log_message`` on every
line with drain3's own regex masking (the masking instructions of drain3's example config).
Both sides get the same in-memory lines (reading files is excluded from both), so the
figure that matters is the ratio, measured in one run on this machine.

    python benchmarks/mining_throughput.py [JOB] [--max-lines N]

Without JOB, a synthetic failed job is generated with `l4synth.generate_demo`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from drain3.masking import MaskingInstruction
from drain3.template_miner import TemplateMiner
from drain3.template_miner_config import TemplateMinerConfig

from agent.ingest import open_job
from agent.mining import Masker, Miner, assign_templates, scan_lines

# drain3's example masking (examples/drain3.ini), the usual starting point of its users.
DRAIN3_MASKS = [
    (r"((?<=[^A-Za-z0-9])|^)(([0-9a-f]{2,}:){3,}([0-9a-f]{2,}))((?=[^A-Za-z0-9])|$)", "ID"),
    (r"((?<=[^A-Za-z0-9])|^)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})((?=[^A-Za-z0-9])|$)", "IP"),
    (r"((?<=[^A-Za-z0-9])|^)([0-9a-f]{6,} ?){3,}((?=[^A-Za-z0-9])|$)", "SEQ"),
    (r"((?<=[^A-Za-z0-9])|^)([0-9A-F]{4} ?){4,}((?=[^A-Za-z0-9])|$)", "SEQ"),
    (r"((?<=[^A-Za-z0-9])|^)(0x[a-f0-9A-F]+)((?=[^A-Za-z0-9])|$)", "HEX"),
    (r"((?<=[^A-Za-z0-9])|^)([\-\+]?\d+)((?=[^A-Za-z0-9])|$)", "NUM"),
    (r"(?<=executed cmd )(\".+?\")", "CMD"),
]


def baseline_miner() -> TemplateMiner:
    config = TemplateMinerConfig()
    config.masking_instructions = [MaskingInstruction(p, name) for p, name in DRAIN3_MASKS]
    config.profiling_enabled = False
    return TemplateMiner(config=config)


def load_lines(job: Path, max_lines: int) -> list:
    opened = open_job(job)
    lines = []
    for source in opened.sources:
        for line in opened.lines(source):
            lines.append(line)
            if len(lines) >= max_lines:
                return lines
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job", nargs="?", type=Path)
    parser.add_argument("--max-lines", type=int, default=300_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        job = args.job
        if job is None:
            from l4synth import generate_demo

            job, _, _ = generate_demo(Path(tmp) / "demo")
        lines = load_lines(job, args.max_lines)
        texts = [line.text for line in lines]

        t0 = time.perf_counter()
        scans = scan_lines(lines, Masker())
        miner = Miner()
        assign_templates(scans, miner)
        ours = time.perf_counter() - t0

        t0 = time.perf_counter()
        base = baseline_miner()
        for text in texts:
            base.add_log_message(text)
        theirs = time.perf_counter() - t0

    n = len(texts)
    print(f"lines: {n:,} from {job}")
    print(f"l4 mining (named masks + cache + Drain): {n / ours:>12,.0f} lines/s  ({ours:.2f} s, {len(miner)} templates)")
    print(f"drain3 add_log_message, drain3 masking:  {n / theirs:>12,.0f} lines/s  ({theirs:.2f} s, "
          f"{len(base.drain.clusters)} templates)")
    print(f"speed-up: {theirs / ours:.1f}x")


if __name__ == "__main__":
    main()
