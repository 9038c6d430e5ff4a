"""The Ray engine: same diagnosis as the local engine, against a real Ray started for the test.

Ray must touch loopback only, and it turns 127.0.0.1 into the machine's own address; so the
Ray run happens inside a private network namespace (``unshare -n``, loopback up), where
``l4 diagnose --engine ray`` starts its private local Ray and shuts it down. Skipped when the
``ray`` extra is not installed or namespaces cannot be made (not root)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from agent.engine_ray import PathMapping, RayEngine
from agent.errors import InputError
from agent.ingest import SourceFile


def test_path_map_parses_and_places():
    mapping = PathMapping.parse("/mnt/hosts/node-07=node-07:/var/log/train")
    assert mapping.place(Path("/mnt/hosts/node-07/rank3.log")) == Path("/var/log/train/rank3.log")
    assert mapping.place(Path("/mnt/hosts/node-08/rank3.log")) is None
    assert PathMapping.parse("/var/log/train=node-07").place(Path("/var/log/train/a.log")) == Path("/var/log/train/a.log")
    for bad in ("node-07", "=node-07", "/x="):
        with pytest.raises(InputError):
            PathMapping.parse(bad)


def test_placement_prefers_the_node_that_holds_the_file():
    pytest.importorskip("ray")
    id7, id8 = "07" * 28, "08" * 28  # Ray node ids are 28-byte hex
    hosts = {"node-07": id7, "10.0.0.8": id8}
    engine = RayEngine(path_map=[PathMapping.parse("/mnt/n8=10.0.0.8:/var/log")])
    placed, strategy = engine._placement(SourceFile(Path("/mnt/n8/x/rank1.log"), "rank1"), hosts)
    assert placed.path == Path("/var/log/x/rank1.log") and strategy.node_id == id8 and not strategy.soft
    placed, strategy = engine._placement(SourceFile(Path("/shared/job/node-07.log"), "node-07"), hosts)
    assert placed.path == Path("/shared/job/node-07.log") and strategy.node_id == id7 and strategy.soft
    assert engine._placement(SourceFile(Path("/shared/job/node-09.log"), "node-09"), hosts)[1] == "DEFAULT"
    with pytest.raises(InputError, match="not a live node"):
        RayEngine(path_map=[PathMapping.parse("/mnt=ghost")])._placement(SourceFile(Path("/mnt/a.log"), "a"), hosts)


def test_local_engine_rejects_ray_options(tmp_path):
    (tmp_path / "a.log").write_text("hello\n")
    proc = subprocess.run([sys.executable, "-m", "agent", "parse", str(tmp_path), "--ray-address", "auto"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stderr.startswith("Error: --ray-address and --path-map need --engine ray")


def _namespaces_work() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return False
    return subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True).returncode == 0


def _sixteen_node_job(root: Path) -> tuple[Path, list[str]]:
    from l4synth import corpus
    from l4synth.corpus import CaseTask, run_task
    from l4synth.job import Shape

    rng = random.Random("ray-engine-test")
    setting = corpus._setting(rng, "cuda", "megatron", small=True, layout="node")
    setting = replace(setting, name="ray-test-megatron-cuda", per_host=1)
    run_task(str(root), CaseTask("case", "case", setting, "xid79-fallen-off-bus", Shape(16, 600, 3600.0), "ray-test"))
    label = json.loads((root / "case" / "label.json").read_text())
    return root / "case" / "logs", label["faulty_nodes"]


@pytest.mark.skipif(not _namespaces_work(), reason="needs root and `unshare -n` (a private network namespace)")
def test_ray_engine_gives_the_local_diagnosis(tmp_path):
    pytest.importorskip("ray")
    job, faulty = _sixteen_node_job(tmp_path / "data")
    assert len(list(job.iterdir())) == 16
    ray_tmp = tempfile.mkdtemp(prefix="l4r-", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    env = {**os.environ, "L4_HOME": str(tmp_path / "home"), "RAY_USAGE_STATS_ENABLED": "0", "RAY_TMPDIR": ray_tmp}
    command = [sys.executable, "-m", "agent", "-v", "diagnose", str(job), "--format", "json", "--no-cache",
               "--reasoner", "offline"]
    local = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert local.returncode == 0, local.stderr[-2000:]
    inner = "ip link set lo up && exec " + " ".join(f"'{c}'" for c in [*command, "--engine", "ray"])
    try:
        on_ray = subprocess.run(["unshare", "-n", "sh", "-c", inner], capture_output=True, text=True, env=env,
                                timeout=600)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    assert "16 file(s) scanned as Ray tasks" in on_ray.stderr  # the scans really ran on Ray
    assert json.loads(on_ray.stdout) == json.loads(local.stdout)
    assert json.loads(local.stdout)["faulty_nodes"][0]["node"] in faulty


def test_an_unreachable_head_fails_fast_with_one_line(tmp_path):
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    (tmp_path / "a.log").write_text("hello\n")
    proc = subprocess.run([sys.executable, "-m", "agent", "parse", str(tmp_path), "--engine", "ray",
                           "--ray-address", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"Error: the Ray cluster at 127.0.0.1:{port} does not answer")
    assert "Traceback" not in proc.stderr
