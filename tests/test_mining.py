"""Template mining: named masks give back parameters; learn on one job, match another."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.mining import NOVEL_OFFSET, Masker, Miner, mine_job, scan_lines
from agent.records import LogLine


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[Rank 3] step=120, skipped=0", {"RANK": "3", "ITER": "120"}),
        ("notify wait from rank_12 timeout", {"RANK": "12"}),
        (" iteration      100/  500000 | lm loss: 2.3", {"ITER": "100"}),
        ("  2%|▏         | 775/33687 [36:09<24:45:22,  2.71s/it]", {"ITER": "775"}),
        ('{"epoch": 18, "update": 17.884, "num_updates": "14200", "lr": "8.029e-06"}', {"ITER": "14200"}),
        ("steps: 200 loss: 5.5508 lm loss: 5.5103 moe loss: 0.0405 iter time (s): 0.936 samples/sec: 136.706", {"ITER": "200"}),
        ("[epoch=0][batch=16/625]: wall_clock/train: 17.1607", {"ITER": "16"}),
        ("  Total optimization steps = 1,000", {}),
        ("tick 1938  kimg 96993.1   time 6d 23h 54m   sec/tick 307.0", {"ITER": "1938"}),
        ("01/29 21:35:34 - mmengine - INFO - Iter(train) [ 10/720]  lr: 9.0001e-05  loss: 2.6900", {"ITER": "10"}),
        ("connect to 10.0.3.17:29500 failed", {"IP": "10.0.3.17:29500"}),
        ("peer worker-7 closed the connection", {"NODE": "worker-7"}),
        ("saving /mnt/ckpt/iter_0001000/model.pt", {"PATH": "/mnt/ckpt/iter_0001000/model.pt"}),
        ("NVRM: Xid (PCI:0000:3b:00): 79, pid=1", {"PCI": "0000:3b:00"}),
    ],
)
def test_named_masks_give_back_parameters(text: str, expected: dict[str, str]) -> None:
    params = dict(Masker().params(text))
    for name, value in expected.items():
        assert params.get(name) == value
    if not expected:
        assert "ITER" not in params


@pytest.mark.parametrize(
    "line",
    [
        # AWS host names hold the IP in dashes (awslabs/awsome-distributed-ai#540).
        "ip-10-1-100-254:18990:18990 [3] NCCL INFO NET/Plugin : dlerror=libnccl-net.so",
        # A rack-and-node name (independent corpus E), an Ascend name with the chip in it (corpus A).
        "hpc-h100-r1n01:18990:18990 [3] NCCL INFO NET/Plugin : dlerror=libnccl-net.so",
        "ascend-910b-17:18990:18990 [3] NCCL INFO NET/Plugin : dlerror=libnccl-net.so",
        "gpu-a17:18990:18990 [3] NCCL INFO NET/Plugin : dlerror=libnccl-net.so",
    ],
)
def test_host_names_of_any_scheme_mask_alike(line: str) -> None:
    # A normal run on another cluster's hosts must share the failed job's templates.
    host = line.split(":")[0]
    assert Masker().mask(line).startswith("<NODE>:<NUM>:<NUM> [<NUM>] NCCL INFO")
    assert dict(Masker().params(line))["NODE"] == host


def test_error_codes_survive_masking() -> None:
    masked = Masker().mask("[ERROR] RUNTIME(1,python):2024-05-12-10:45:12.123.456 EZ9999: Inner Error! EI0002 worker12")
    assert "EZ9999" in masked and "EI0002" in masked
    assert "worker<NUM>" in masked and "<TS>" in masked


def _line(node: str, i: int, text: str) -> LogLine:
    return LogLine(node, i, None, None, text)


def test_scan_dedupes_shapes_and_keeps_iterations() -> None:
    lines = [_line("a", i, f"iteration {i} loss {i * 0.5}") for i in range(1, 101)]
    lines.append(_line("a", 101, "NCCL WARN something odd 0x1f"))
    (scan,) = scan_lines(lines)
    assert len(scan.keys) == 2
    assert list(scan.iteration[:3]) == [1, 2, 3]
    assert scan.iteration[-1] == -1
    assert len(scan.samples[0]) == 3 and scan.last_sample[0] == "iteration 100 loss 50.0"


def test_learn_then_match_keeps_templates_and_marks_novel() -> None:
    masker = Masker()
    normal = Miner()
    for text in ["worker-1 iteration 5 ok", "worker-2 iteration 6 ok", "checkpoint saved to /a/b"]:
        normal.learn(masker.mask(text))
    before = normal.templates()
    failed = Miner(base=normal)
    known = failed.classify(masker.mask("worker-9 iteration 77 ok"))
    novel = failed.classify(masker.mask("NET/IB : Got completion from peer 10.0.0.7 with status=12"))
    assert known < NOVEL_OFFSET <= novel
    assert normal.templates() == before  # matching never changed the frozen miner
    assert "Got completion" in failed.template(novel)


def test_miner_round_trips_through_bytes() -> None:
    masker = Masker()
    miner = Miner()
    tid = miner.learn(masker.mask("loading checkpoint from /ckpt/x shard 3"))
    again = Miner.loads(miner.dumps())
    assert again.match(masker.mask("loading checkpoint from /ckpt/y shard 9")) == tid


def test_parallel_and_sequential_mining_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(3):
        rows = [f"[2024-05-12 10:00:{i % 60:02d},000] INFO [Rank {n}] iteration {i} loss {i / 7:.3f}" for i in range(300)]
        rows += [f"worker-{n}:1:2 [0] NCCL INFO comm 0x{n}f rank {n} nranks 3 - Init COMPLETE"]
        (tmp_path / f"worker-{n}.log").write_text("\n".join(rows) + "\n")
    sequential = mine_job(tmp_path, workers=1)
    monkeypatch.setattr("agent.mining.PARALLEL_MIN_BYTES", 0)
    parallel = mine_job(tmp_path, workers=2)
    for name, log in sequential.nodes.items():
        other = parallel.nodes[name]
        seq_templates = [sequential.miner.template(t) for t in log.template.tolist()]
        par_templates = [parallel.miner.template(t) for t in other.template.tolist()]
        assert seq_templates == par_templates
    assert len(sequential.template_counts()) == 2


def test_two_consoles_of_one_job_keep_their_own_ranks_and_lines(tmp_path: Path) -> None:
    # Reliability probe I16b: restarts leave two consoles that both hold rank0/rank1 with
    # different messages; one file's template ids must never land on the other's lines.
    a = [f"[rank{r}]: 2024-05-12 11:00:{i:02d} INFO step{i % 20}kind message variant {chr(65 + i % 20) * 3} rank {r}"
         for i in range(60) for r in range(2)]
    b = [f"[rank{r}]: 2024-05-12 11:10:{i:02d} INFO iteration {i} loss 2.5 rank {r}" for i in range(60) for r in range(2)]
    b.append("[rank1]: 2024-05-12 11:11:00 ERROR RuntimeError: CUDA error: an illegal memory access was encountered")
    (tmp_path / "slurm-1.out").write_text("\n".join(a) + "\n")
    (tmp_path / "slurm-2.out").write_text("\n".join(b) + "\n")
    mined = mine_job(tmp_path, workers=1)
    assert sorted(mined.nodes) == ["slurm-1/rank0", "slurm-1/rank1", "slurm-2/rank0", "slurm-2/rank1"]
    log = mined.nodes["slurm-2/rank1"]
    last = mined.miner.template(int(log.template[-1]))
    assert "illegal memory access" in last and int(log.lineno[-1]) == 121 and log.stream == "rank1"
    assert not any("illegal memory access" in mined.miner.template(int(t)) for t in mined.nodes["slurm-1/rank1"].template)


def test_a_consoles_streams_share_its_first_timestamp(tmp_path: Path) -> None:
    # sparticlesteve/nersc-pytorch-testing slurm-pm-test-8596.out (srun -l): rank 3's NCCL WARN and
    # the ranks' tracebacks carry no time; the only stamp is Slurm's, printed by rank 0 at the end.
    rows = [f"{r}: nid001028:12949{r}:12956{r} [{r}] NCCL INFO Channel {c:02d} : {r} -> {(r + 1) % 4} via P2P/IPC/read"
            for c in range(8) for r in range(4)]
    rows += ["3: nid001028:129497:129564 [3] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed",
             "0: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8",
             "0: slurmstepd: error: *** STEP 8596.0 ON nid001028 CANCELLED AT 2021-06-01T20:48:18 ***"]
    (tmp_path / "slurm-pm-test-8596.out").write_text("\n".join(rows) + "\n")
    mined = mine_job(tmp_path, workers=1)
    stamp = mined.nodes["rank0"].ts[-1]
    assert mined.nodes["rank3"].ts[-1] == stamp == mined.nodes["rank0"].ts[0]  # one clock for the file's streams
