"""Node ranking (``agent.extract.nodes``) over hand-built statistics: who owns the root,
who is named by peers, who fell silent, who deviated first."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent.extract import Weights
from agent.extract.events import EventCandidate
from agent.extract.nodes import blame_tids, machines, named_in_root, rank_nodes
from agent.extract.progress import Timeline
from agent.extract.spatial import Blame, ForestResult
from agent.extract.table import EventStats, EventTable, NodeEventStats
from agent.mining import mine_job

NODES = ["n0", "n1", "n2", "n3"]
ROOT_TID = 1


def root_stats(first_ts: dict[str, float]) -> EventStats:
    stats = EventStats(ROOT_TID, "CUDA error: an illegal memory access", max_level=4)
    for i, (node, ts) in enumerate(first_ts.items()):
        stats.per_node[node] = NodeEventStats(1, 10 + i, 10 + i, ts, ts)
    return stats


def table(root: EventStats) -> EventTable:
    return EventTable({ROOT_TID: root}, NODES, {}, dict.fromkeys(NODES, 0.0), dict.fromkeys(NODES, 100.0))


def timeline(silent: tuple[str, ...] = (), stalled: tuple[str, ...] = ()) -> Timeline:
    return Timeline(True, 90.0, 100, 1, 1.0, 100.0, 90.0, silent_nodes=list(silent), stalled_nodes=list(stalled))


def blame(named_by: dict[str, set[str]] | None = None) -> Blame:
    named_by = named_by or {}
    score = {n: len(named_by.get(n, ())) / (len(NODES) - 1) for n in NODES}
    return Blame(score, dict(named_by), {n: {ROOT_TID} for n in named_by})


NO_FOREST = ForestResult(dict.fromkeys(NODES, 0.0), {n: [] for n in NODES})


def scored(root: EventStats, score: float = 1.2) -> list[EventCandidate]:
    return [EventCandidate(ROOT_TID, root.template, score, [], root.nodes, root.first_ts, "root", "candidate")]


CASES = [
    pytest.param(
        {"n2": 10.0}, "node_local", {}, (), [("n2", 0.55)], "prints the root event",
        id="the only printer of a node-local root (plus deviated first)",
    ),
    pytest.param(
        {"n0": 10.0, "n1": 12.0}, "node_local", {}, (), [("n0", 0.55), ("n1", 0.315)], "prints the root event first",
        id="of two printers, the earlier one",
    ),
    pytest.param(
        {"n0": 10.0, "n1": 10.0, "n2": 10.0}, "global", {"n3": {"n0", "n1", "n2"}}, (), [("n3", 0.75)],
        "named in the root event by 3 peer(s)",
        id="the peer the root message names, not its reporters",
    ),
    pytest.param(
        {"n0": 10.0, "n1": 10.0, "n2": 10.0, "n3": 10.0}, "global", {}, (), [], None,
        id="a job-wide fault nobody blames has no faulty node",
    ),
    pytest.param(
        {"n0": 10.0, "n1": 10.0, "n2": 10.0}, "global", {}, ("n3",), [("n3", 0.2)], "stopped logging before the others",
        id="a silent node in a job-wide failure",
    ),
]


@pytest.mark.parametrize(("printers", "scope", "named_by", "silent", "expected", "first_reason"), CASES)
def test_rank_nodes(
    printers: dict[str, float],
    scope: str,
    named_by: dict[str, set[str]],
    silent: tuple[str, ...],
    expected: list[tuple[str, float]],
    first_reason: str | None,
) -> None:
    root = root_stats(printers)
    graph = blame(named_by)
    named = named_in_root(graph, root)
    # In the "named" case the reporters are witnesses, not suspects: they score 0.15 + 0.1
    ranked = rank_nodes(table(root), timeline(silent), root, scope, graph, named, NO_FOREST, scored(root))
    top = [(n.node, n.score) for n in ranked[: len(expected)]]
    assert top == [(n, pytest.approx(s)) for n, s in expected]
    if first_reason is not None:
        assert ranked[0].reasons[0] == first_reason
    else:
        assert ranked == []


def test_silent_bonus_decides_between_the_root_printer_and_a_silent_node() -> None:
    """How to change who ranks first: one field of Weights."""
    root = root_stats({"n2": 10.0})

    def first(weights: Weights) -> str:
        tl = timeline(silent=("n3",))
        return rank_nodes(table(root), tl, root, "node_local", blame(), [], NO_FOREST, scored(root), weights)[0].node

    assert first(Weights()) == "n2"  # 0.45 + 0.1 (deviated first) beats 0.2
    assert first(dataclasses.replace(Weights(), silent_bonus=0.6)) == "n3"  # 0.6 now beats 0.55


def test_weak_nodes_are_dropped_not_padded() -> None:
    root = root_stats({"n2": 10.0})
    forest = ForestResult({"n0": 1.0, "n1": 0.5, "n2": 0.0, "n3": 0.0}, {n: [] for n in NODES})
    ranked = rank_nodes(table(root), timeline(), root, "node_local", blame(), [], forest, scored(root))
    # n0: 0.1 from the forest is below node_min_score 0.12; n1 has no reason at all
    assert [n.node for n in ranked] == ["n2"]


@pytest.mark.parametrize(
    ("role", "score", "blames"),
    [("wait", 0.5, True), ("root", 0.2, True), ("companion", 0.19, False), ("candidate", 1.0, False), ("teardown", 1.0, False)],
)
def test_only_strong_failure_time_messages_blame_a_peer(role: str, score: float, blames: bool) -> None:
    event = EventCandidate(5, "t", score, [], ["n0"], 1.0, role, role)
    assert blame_tids([event]) == ([5] if blames else [])


def test_in_a_two_node_job_the_one_peer_naming_the_other_is_enough() -> None:
    """"NCCL WARN NET/IB : Got completion from peer 192.168.149.37<50000> with status=12" on one
    node of two names the other, which went quiet: with one peer to name it, one naming is all
    there can be (a blind author's two-node job). With four nodes, one peer alone is not enough."""
    root = root_stats({"n0": 10.0})
    two = Blame({"n0": 0.0, "n1": 1.0}, {"n1": {"n0"}}, {"n1": {ROOT_TID}})
    assert named_in_root(two, root) == ["n1"]
    four = Blame({n: 0.0 for n in NODES} | {"n1": 1 / 3}, {"n1": {"n0"}}, {"n1": {ROOT_TID}})
    assert named_in_root(four, root) == []


def test_one_machine_reporting_its_exchanges_with_one_other_failed_names_it() -> None:
    """"Got completion from peer 172.18.93.32<52769> with status=12" printed on one machine of 32
    about its neighbour only, which logged nothing more (independent corpus I, c01), names that
    neighbour; a neighbour that logged on was up (the reporter's port flapped in the generated scale
    job); a message that names no lost peer (a rank that cannot reach the master, srun naming a
    task's host) names nobody; and a message naming two machines points at neither."""
    root = root_stats({"n0": 10.0})
    four = Blame({n: 0.0 for n in NODES} | {"n1": 1 / 3}, {"n1": {"n0"}}, {"n1": {ROOT_TID}})
    assert named_in_root(four, root, names_lost_peer=True, quiet={"n1"}) == ["n1"]
    assert named_in_root(four, root, names_lost_peer=True) == []
    assert named_in_root(four, root, quiet={"n1"}) == []
    both = Blame({n: 0.0 for n in NODES} | {"n1": 1 / 3, "n2": 1 / 3}, {"n1": {"n0"}, "n2": {"n0"}}, {"n1": {ROOT_TID}, "n2": {ROOT_TID}})
    assert named_in_root(both, root, names_lost_peer=True, quiet={"n1", "n2"}) == []


def test_a_hosts_rank_files_are_one_machine_when_counting_who_names_whom(tmp_path: Path) -> None:
    """Two hosts with one file per rank (torchrun --tee into host folders, a blind author's job):
    rank 0 of hgx-b40 naming hgx-b41's ranks is the only other machine naming them, and a file of
    hgx-b41 naming its own host accuses nobody."""
    logs = tmp_path / "logs"
    for host in ("hgx-b40", "hgx-b41"):
        (logs / host).mkdir(parents=True)
        for name in ("rank_0", "rank_1", "torchrun"):
            (logs / host / f"{name}.log").write_text("step 1 loss 2.0\n")
    machine = machines(mine_job(logs, workers=1))
    assert machine["hgx-b41/rank_1"] == machine["hgx-b41/torchrun"] == "hgx-b41"
    root = root_stats({"hgx-b40/rank_0": 10.0})
    ranks = [f"{h}/{n}" for h in ("hgx-b40", "hgx-b41") for n in ("rank_0", "rank_1", "torchrun")]
    blame = Blame(dict.fromkeys(ranks, 0.0), {"hgx-b41/rank_0": {"hgx-b40/rank_0"}}, {"hgx-b41/rank_0": {ROOT_TID}})
    assert named_in_root(blame, root, machine=machine) == ["hgx-b41/rank_0"]
    assert named_in_root(blame, root) == []  # six files, one namer: not enough without machines
    own = Blame(dict.fromkeys(ranks, 0.0), {"hgx-b41/rank_0": {"hgx-b41/rank_1"}}, {"hgx-b41/rank_0": {ROOT_TID}})
    assert named_in_root(own, root, machine=machine) == []


def test_files_of_one_folder_are_not_one_machine() -> None:
    # All nodes' files in one folder ("logs/node-01.log" ...) are still separate nodes.
    mined = SimpleNamespace(nodes={f"all/node-0{i}": SimpleNamespace(source=Path(f"/j/all/node-0{i}.log")) for i in range(4)})
    assert machines(mined) == {n: n for n in mined.nodes}  # type: ignore[arg-type]
