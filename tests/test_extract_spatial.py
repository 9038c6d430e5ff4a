"""Spatial comparison (``agent.extract.spatial``): node identities, the blame graph and
the Isolation Forest."""

from __future__ import annotations

from pathlib import Path

from agent.extract import spatial
from agent.extract.table import EventTable, build_table
from agent.mining import Masker, MinedJob, mine_job

NODES = ["n0", "n1", "n2", "n3"]


def _identities(logs: Path) -> tuple[MinedJob, EventTable, Masker, dict[tuple[str, str], tuple[str, ...]]]:
    """The job mined, its event table, the masker and the node identities its lines tell."""
    mined = mine_job(logs, workers=1)
    table = build_table(mined)
    masker = Masker()
    return mined, table, masker, spatial.node_identities(mined, table, masker)


def test_peers_naming_a_rank_blame_the_node_that_owns_it(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for i, node in enumerate(NODES):
        lines = [f"2024-10-02 10:00:00 INFO [Rank {i}] init done"]
        if node != "n2":
            lines.append("2024-10-02 10:05:00 ERROR heartbeat lost from rank 2")
        (logs / f"{node}.log").write_text("\n".join(lines) + "\n")
    mined, table, masker, identities = _identities(logs)
    assert identities[("RANK", "2")] == ("n2",)
    lost = [t for t, s in table.events.items() if "heartbeat" in s.template]
    blame = spatial.blame_graph(mined, table, lost, identities, masker)
    assert blame.edges == {"n2": {"n0", "n1", "n3"}}
    assert blame.score == {"n0": 0.0, "n1": 0.0, "n2": 1.0, "n3": 0.0}


def test_a_host_address_shared_by_its_rank_files_blames_all_of_them(tmp_path: Path) -> None:
    # One file per rank, four ranks per host: each host's ranks print the host's address, and
    # the peers of a host that died name that address ("Got completion from peer 10.0.0.2<...>").
    logs = tmp_path / "logs"
    logs.mkdir()
    for rank in range(8):
        host = "10.0.0.1" if rank < 4 else "10.0.0.2"
        lines = [f"2024-10-02 10:00:00 INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:{host}<0>"]
        if rank < 4:
            lines.append("2024-10-02 10:05:00 WARN NET/IB : Got completion from peer 10.0.0.2<38936> with status=12")
        (logs / f"rank_{rank}.log").write_text("\n".join(lines) + "\n")
    mined, table, masker, identities = _identities(logs)
    assert identities[("IP", "10.0.0.2")] == ("rank_4", "rank_5", "rank_6", "rank_7")
    lost = [t for t, s in table.events.items() if "completion" in s.template]
    blame = spatial.blame_graph(mined, table, lost, identities, masker)
    assert set(blame.edges) == {"rank_4", "rank_5", "rank_6", "rank_7"}
    assert blame.edges["rank_5"] == {"rank_0", "rank_1", "rank_2", "rank_3"}


def test_a_communicator_named_by_its_roots_address_blames_no_one(tmp_path: Path) -> None:
    # HCCL names the collective by its communicator, and that by the master's address: every
    # peer's timeout carries "tag[AllReduce_90.90.92.240%enp189s0f0_...]" (the format of an Ascend
    # troubleshooting page's EI0002 example), which is not the peer it waits on.
    logs = tmp_path / "logs"
    logs.mkdir()
    for i, node in enumerate(NODES):
        host = f"90.90.92.{240 + i}"
        lines = [f"2024-10-02 10:00:00 INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:{host}<0>"]
        if node != "n3":
            lines.append(
                "EI0002: [PID: 3282] 2024-10-02-10:35:00.827.681 The wait execution of the Notify register times out. "
                "Reason: The Notify register has not received the Notify record from remote rank [unknown].base "
                "information: [streamID:[2282987520], taskID[5], tag[AllReduce_90.90.92.240%enp189s0f0_60000_0_"
                "1732766162316022], AlgType(level 0-1-2):[fullmesh-ring-ring].] group information: "
                "[group:[90.90.92.240%enp189s0f0_60000_0_1732766162316022], rankSize[32]]")
        (logs / f"{node}.log").write_text("\n".join(lines) + "\n")
    mined, table, masker, identities = _identities(logs)
    assert identities[("IP", "90.90.92.240")] == ("n0",)
    waits = [t for t, s in table.events.items() if "Notify" in s.template]
    assert spatial.blame_graph(mined, table, waits, identities, masker).edges == {}


def test_a_peer_named_by_its_file_name_is_blamed_without_a_hyphen(tmp_path: Path) -> None:
    # "cn0441" is no NODE to the masker (it wants a hyphen), but the peers' messages name the
    # node whose file is cn0441.log; a node's own name in its NCCL prefix is not a peer.
    logs = tmp_path / "logs"
    logs.mkdir()
    for node in ("cn0440", "cn0441", "cn0442", "cn0443"):
        lines = ["2024-10-02 10:00:00 INFO step 1"]
        if node != "cn0441":
            lines.append(f"{node}:41790:42191 [1] misc/socket.cc:47 NCCL WARN socketProgress: Connection closed by "
                         "remote peer cn0441<58191>")
        (logs / f"{node}.log").write_text("\n".join(lines) + "\n")
    mined, table, masker, identities = _identities(logs)
    closed = [t for t, s in table.events.items() if "closed" in s.template]
    assert spatial.blame_graph(mined, table, closed, identities, masker).edges == {"cn0441": {"cn0440", "cn0442", "cn0443"}}


def test_the_isolation_forest_isolates_the_node_that_counts_differently(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for node in [*NODES, "n4", "n5"]:
        lines = ["2024-10-02 10:00:00 INFO step done"] * 5
        if node == "n4":
            lines += ["2024-10-02 10:00:01 WARNING ECC error corrected on device 0"] * 40
        (logs / f"{node}.log").write_text("\n".join(lines) + "\n")
    mined = mine_job(logs, workers=1)
    table = build_table(mined)
    forest = spatial.isolation_forest(table, list(table.events))
    assert max(forest.score, key=lambda n: forest.score[n]) == "n4"
    assert forest.score["n4"] == 1.0
    assert spatial.isolation_forest(table, []).score == dict.fromkeys(table.node_names, 0.0)
