"""Tiny jobs for the extractor's table tests: write one log file per node and mine them."""

from __future__ import annotations

from pathlib import Path

from agent.mining import MinedJob, mine_job


def write_logs(tmp_path: Path, per_node: dict[str, list[str]]) -> Path:
    """A job folder with one ``<node>.log`` per node."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for node, lines in per_node.items():
        (logs / f"{node}.log").write_text("\n".join(lines) + "\n")
    return logs


def mine(tmp_path: Path, per_node: dict[str, list[str]]) -> MinedJob:
    return mine_job(write_logs(tmp_path, per_node), workers=1)
