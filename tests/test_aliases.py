"""Host and rank names read out of log lines (CONTRACTS: a faulty node's ``aliases``)."""

import pytest

from agent.aliases import NAME_PATTERNS, PEER_PATTERNS, aliases_from, names_in, peers_in, same_name, task_hosts


@pytest.mark.parametrize("pattern", [*NAME_PATTERNS, *PEER_PATTERNS], ids=lambda p: p.expected)
def test_every_name_pattern_names_what_its_real_example_names(pattern):
    m = pattern.regex.search(pattern.example)
    assert m is not None and m.group("name") == pattern.expected
    assert pattern.source


@pytest.mark.parametrize(
    ("line", "names"),
    [
        # the bootstrap line names the node's own address too
        ("gpu-node-17:1234:5678 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>",
         [("host", "gpu-node-17"), ("host", "10.0.0.7")]),
        ("srun: error: ip-26-0-146-100: task 12: Exited with exit code 1", [("host", "ip-26-0-146-100")]),
        ("srun: error: Node failure on jean-zay-iam49", [("host", "jean-zay-iam49")]),
        ("    host      : localhost", []),  # never a machine anyone can drain
        ("[default3]:[rank27]: torch.OutOfMemoryError: CUDA out of memory.", [("rank", "rank27")]),
        ("iteration 100 | loss 2.3 | host time 12:30:01", []),
        ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275", []),
    ],
)
def test_names_in_lines(line, names):
    assert names_in(line) == names


def test_aliases_put_hosts_first_skip_the_node_itself_and_stay_few():
    lines = [
        "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered",
        "node-a:1:2 [0] NCCL WARN Cuda failure 'an illegal memory access was encountered'",
        "srun: error: node-a: task 3: Exited with exit code 1",
        "srun: error: node-b: task 4: Exited with exit code 1",
        "srun: error: node-c: task 5: Exited with exit code 1",
        "srun: error: node-d: task 6: Exited with exit code 1",
    ]
    assert aliases_from(lines, "console") == ["node-a", "node-b", "node-c"]
    assert aliases_from(lines[:2], "node-a") == ["rank3"]


def test_names_compare_without_case_or_spaces():
    assert same_name("Rank 12", "rank12") and not same_name("rank1", "rank12")


def test_lost_peers_are_named_by_the_lines_that_lost_them():
    lines = [p.example for p in PEER_PATTERNS] + ["NCCL INFO Connected all rings"]
    assert peers_in(lines) == [p.expected for p in PEER_PATTERNS]


def test_a_loopback_address_is_no_peer_to_blame():
    # the Connect line of a flattened paste (awslabs/awsome-distributed-ai#192): NCCL dialled loopback
    assert peers_in(["socketStartConnect: Connect to 127.0.0.1<45069> failed : Software caused connection abort"]) == []


def test_srun_task_lines_tie_ranks_to_hosts():
    lines = [
        "srun: error: 292KF14: task 0: Exited with exit code 1",  # mlcommons/training_results_v4.0 (smc bert)
        "srun: error: ml-512-node-060: tasks 8-9: Out Of Memory",
        "srun: error: localhost: task 3: Exited with exit code 1",
    ]
    assert task_hosts(lines) == {0: "292KF14", 8: "ml-512-node-060", 9: "ml-512-node-060"}


def test_torchelastic_names_hosts_spelled_as_dashed_ips() -> None:
    # Cloud and Kubernetes hosts are often named after their address: "10-61-0-26".
    assert names_in("  host      : 10-61-0-26") == [("host", "10-61-0-26")]
    assert names_in("  host      : 10-61-0") == []


# modelscope/FunASR#2006: the OOM is on [rank2]; only NCCL's lines name the machine.
FUNASR = [
    "[rank2]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 336.00 MiB. GPU  has a total capacity of 79.15 GiB",
    "liangxianchen-funasr-15wh-train-lxc0-w-0:15325:16199 [2] NCCL INFO [Service thread] Connection closed by localRank 2",
    "liangxianchen-funasr-15wh-train-lxc0-w-0:15323:16203 [0] NCCL INFO [Service thread] Connection closed by localRank 2",
    "[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=15734, "
    "OpType=ALLREDUCE, NumelIn=220084533, NumelOut=220084533, Timeout(ms)=600000) ran for 600037 milliseconds before timing out.",
]


def test_a_console_naming_one_machine_names_it_for_its_ranks(tmp_path) -> None:
    from agent.pipeline import diagnose

    (tmp_path / "console.log").write_text("\n".join(FUNASR) + "\n")
    d = diagnose(tmp_path, reasoner="offline", workers=1)
    assert d.faulty_nodes[0].node == "rank2"
    assert "liangxianchen-funasr-15wh-train-lxc0-w-0" in d.faulty_nodes[0].aliases
    # Two machines in the console: which one ran rank 2 is not known, so neither is named.
    other = FUNASR[2].replace("lxc0-w-0", "lxc0-w-1")
    (tmp_path / "console.log").write_text("\n".join([*FUNASR[:2], other, FUNASR[3]]) + "\n")
    d = diagnose(tmp_path, reasoner="offline", workers=1)
    assert not any("lxc0-w" in a for a in d.faulty_nodes[0].aliases)


def test_sole_host() -> None:
    from agent.aliases import sole_host

    assert sole_host(FUNASR) == "liangxianchen-funasr-15wh-train-lxc0-w-0"
    assert sole_host(FUNASR[:1]) is None


def test_a_folder_of_rank_files_among_several_names_its_host() -> None:
    from pathlib import Path

    from agent.aliases import host_folder

    per_host = [Path(f"job/ms-train-{h}/worker_{h * 8 + r}.log") for h in (33, 14) for r in range(2)]
    assert host_folder(per_host, per_host[1]) == "ms-train-33"
    # One folder of files (msrun_log/worker_N.log) names no host; nor does a folder holding one file.
    flat = [Path(f"job/msrun_log/worker_{r}.log") for r in range(4)]
    assert host_folder(flat, flat[0]) is None
    mixed = [*per_host, Path("job/launcher/console.log")]
    assert host_folder(mixed, mixed[-1]) is None
    # A log folder under each host's folder names the host above it (a blind author's msrun job).
    nested = [Path(f"job/node-0{h}/msrun_log/worker_{h * 8 + r}.log") for h in (3, 6) for r in range(2)]
    assert host_folder(nested, nested[2]) == "node-06"


def test_a_consoles_own_srun_lines_give_the_lead_to_the_rank_on_the_host_they_name(tmp_path) -> None:
    """srun's "Node failure on dgx130" is printed by the launcher, no machine; the console rank
    whose NCCL lines run on dgx130 is the node to look at (a blind author's Slurm console)."""
    from agent.pipeline import _launcher_after_its_rank, analyze
    from agent.schema import NodeOut

    lines = [*(f"{r}: dgx1{28 + r}:{4000 + r}:{4000 + r} [0] NCCL INFO Bootstrap : Using ib0:10.10.20.{38 + r}<0>"
               for r in range(3)),
             *(f"{r}: [2024-08-23 13:{m}:00] iteration {m * 10}/ 5000 | lm loss: 2.1" for m in range(10, 20)
               for r in ((0, 1, 2) if m < 15 else (0, 1))),  # rank 2's host went silent
             "0: dgx128:4000:4100 [0] transport/net_ib.cc:1615 NCCL WARN NET/IB : Got completion from peer "
             "10.10.20.40<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv)",
             "srun: error: Node failure on dgx130",
             "slurmstepd: error: *** STEP 667887.0 ON dgx128 CANCELLED AT 2024-08-23T14:01:41 DUE TO NODE FAILURE, "
             "SEE SLURMCTLD LOG FOR DETAILS ***"]
    (tmp_path / "slurm-667887.out").write_text("\n".join(lines) + "\n")
    mined = analyze(tmp_path, workers=1).mined
    launcher = NodeOut(node="slurm-667887", score=0.63, reason="prints the root event", aliases=["dgx130"])
    peer = NodeOut(node="rank0", score=0.4, reason="deviated first", aliases=["dgx128"])
    lost = NodeOut(node="rank2", score=0.33, reason="stopped logging before the others", aliases=["dgx130", "10.10.20.40"])
    assert [n.node for n in _launcher_after_its_rank(mined, [launcher, peer, lost])] == ["rank2", "slurm-667887", "rank0"]
    assert [n.node for n in _launcher_after_its_rank(mined, [peer, launcher, lost])] == ["rank0", "slurm-667887", "rank2"]
    # The rank on the failed host need not be ranked at all (it died without a word): it is found by
    # the host its own lines name, and leads; with no rank on that host the order stays.
    ranked = [n.node for n in _launcher_after_its_rank(mined, [launcher, peer])]
    assert ranked == ["rank2", "slurm-667887", "rank0"]
    elsewhere = NodeOut(node="slurm-667887", score=0.63, reason="prints the root event", aliases=["dgx999"])
    assert [n.node for n in _launcher_after_its_rank(mined, [elsewhere, peer])] == ["slurm-667887", "rank0"]


def test_a_consoles_rank_is_not_called_by_the_peer_it_lost(tmp_path) -> None:
    # Independent corpus I, c01: srun -l console; task 23 reports its transfers to 172.18.93.32
    # failing, and 172.18.93.32 is task 22's own address (its NCCL bootstrap line).
    from agent.pipeline import diagnose

    lines = [
        "22: gpu-st-p4d-24xlarge-25:262124:262124 [0] NCCL INFO Bootstrap : Using eth0:172.18.93.32<0>",
        "23: gpu-st-p4d-24xlarge-26:65526:65526 [0] NCCL INFO Bootstrap : Using eth0:172.18.93.33<0>",
        *[f"{t}:  iteration     {i}/  100000 | consumed samples: {i * 8} | lm loss: 4.1E+00 |" for i in range(1, 30) for t in (22, 23)],
        "23: gpu-st-p4d-24xlarge-26:65526:65736 [4] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
        "172.18.93.32<52769> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:172.18.93.33 remoteGids::ffff:172.18.93.32",
    ]
    (tmp_path / "slurm-200057.out").write_text("\n".join(lines) + "\n")
    d = diagnose(tmp_path, reasoner="offline", workers=1)
    aliases = {n.node: n.aliases for n in d.faulty_nodes}
    assert aliases["rank22"][:2] == ["gpu-st-p4d-24xlarge-25", "172.18.93.32"]
    assert "172.18.93.32" not in aliases.get("rank23", [])
