"""Ranking the faulty nodes.

A node is suspect for owning the root event (or being named in it by its printers), for
being named by peers in failure messages (the blame graph), for falling silent or
stalling before the others, for erring first, and, as a tie-breaker, for the Isolation
Forest's degree. Each bonus is a ``Weights`` field and leaves a reason. A job-wide fault
that nobody blames has no faulty node: the list is then empty rather than padded.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from ..aliases import host_folder
from ..mining import MinedJob
from . import spatial
from .events import EventCandidate
from .progress import Timeline
from .table import EventStats, EventTable
from .weights import DEFAULT_WEIGHTS, Weights

MAX_NODES = 8


@dataclass
class NodeCandidate:
    node: str
    score: float
    reasons: list[str]


def namers_needed(n_nodes: int, weights: Weights = DEFAULT_WEIGHTS) -> int:
    """How many peers must name a node for it to count as named: several, or in a two-node job
    the only other node."""
    return max(1, min(weights.named_min_peers, n_nodes - 1))


def machines(mined: MinedJob) -> dict[str, str]:
    """The machine of each node: the host folder its own file sits in (``aliases.host_folder``:
    per-rank files in one folder per host, "hgx-b41/rank_0.log" ... "hgx-b41/torchrun.log", a
    blind author's torchrun --tee layout), else the node itself (a console's ranks, a node's own
    file)."""
    sources = [log.source for log in mined.nodes.values()]
    shared = Counter(sources)
    return {n: (shared[log.source] == 1 and host_folder(sources, log.source)) or n for n, log in mined.nodes.items()}


def named_enough(blame: spatial.Blame, node: str, machine: dict[str, str], weights: Weights = DEFAULT_WEIGHTS) -> bool:
    """Whether enough other machines name a node (``namers_needed`` of the job's machines): a
    host's ranks name it once between them, and a host's own files do not accuse it."""
    own = machine.get(node, node)
    namers = {machine.get(p, p) for p in blame.edges.get(node, ())} - {own}
    return len(namers) >= namers_needed(len(set(machine.values())), weights)


def named_in_root(
    blame: spatial.Blame, root: EventStats | None, weights: Weights = DEFAULT_WEIGHTS, machine: dict[str, str] | None = None,
    *, names_lost_peer: bool = False, quiet: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """Peers named in the root message by several of its printers (heartbeat lost from X), or by
    the only other node of a two-node job: "NCCL WARN NET/IB : Got completion from peer
    192.168.149.37<50000> with status=12" on one node names the other, which said nothing.
    Nodes and namers are counted by machine."""
    if root is None:
        return []
    machine = machine or {n: n for n in blame.score}
    named = sorted(n for n, tids in blame.events.items() if root.tid in tids and named_enough(blame, n, machine, weights))
    if named:
        return named
    # One machine reporting that a peer it exchanged data with failed it points at that peer, however
    # many nodes the job has, when that is the only machine it names and the peer went quiet: "NCCL
    # WARN NET/IB : Got completion from peer 172.18.93.32<52769> with status=12" printed on
    # gpu-st-p4d-24xlarge-26 alone about a rank that logged nothing more (independent corpus I, c01).
    # A peer that logged on as the others did was up, and the reporter's own link is as likely the
    # broken one (a generated 64-node job whose reporter's port flapped, benchmarks/scale_job.py).
    # Only a message that names a lost peer (``aliases.PEER_PATTERNS``) counts: a rank that cannot
    # reach the rendezvous master ("The client socket has failed to connect to [...] (No route to
    # host)") is itself the one cut off, and srun naming a task's host reports no peer.
    printers = {machine.get(n, n) for n in root.per_node}
    peers = [n for n, tids in blame.events.items() if root.tid in tids and machine.get(n, n) not in printers
             and {machine.get(p, p) for p in blame.edges.get(n, ())} & printers]
    if names_lost_peer and len(printers) == 1 and len({machine.get(n, n) for n in peers}) == 1 and set(peers) <= quiet:
        return sorted(peers)
    return []


def blame_tids(scored: list[EventCandidate], weights: Weights = DEFAULT_WEIGHTS) -> list[int]:
    """Events whose named peers count as blamed: failure-time messages only (init lines
    name the master's address everywhere)."""
    return [e.tid for e in scored if e.role in ("wait", "root", "companion") and e.score >= weights.blame_min_score]


def rank_nodes(
    table: EventTable,
    timeline: Timeline,
    root: EventStats | None,
    scope: str,
    blame: spatial.Blame,
    named: list[str],
    forest: spatial.ForestResult,
    scored: list[EventCandidate],
    weights: Weights = DEFAULT_WEIGHTS,
) -> list[NodeCandidate]:
    """The suspects, most likely first, each with its reasons (at most ``MAX_NODES``)."""
    w = weights
    names = table.node_names
    score = {n: 0.0 for n in names}
    reasons: dict[str, list[str]] = {n: [] for n in names}
    if root is not None and named:
        # The root message itself points at a peer (heartbeat lost from rank 57 at 10.0.0.5):
        # that peer is the suspect, not the nodes reporting it.
        for node in named:
            score[node] += w.named_bonus
            reasons[node].append(f"named in the root event by {len(blame.edges.get(node, ()))} peer(s)")
        for node in root.per_node:
            if node not in named:
                score[node] += w.reporter_bonus
                reasons[node].append("reports the root event about a peer")
    elif root is not None and scope == "node_local":
        order = sorted(root.per_node, key=lambda n: (math.isnan(root.per_node[n].first_ts), root.per_node[n].first_ts))
        for i, node in enumerate(order):
            score[node] += w.root_printer_bonus * (1.0 if i == 0 else w.later_printer_factor)
            reasons[node].append("prints the root event" + (" first" if i == 0 and len(order) > 1 else ""))
    for node, value in blame.score.items():
        if value > 0:
            score[node] += w.blame_bonus * min(1.0, value * w.blame_gain)
            reasons[node].append(f"named by {len(blame.edges.get(node, ()))} peer(s) in failure messages")
    for node in timeline.silent_nodes:
        score[node] += w.silent_bonus
        reasons[node].append("stopped logging before the others")
    for node in timeline.stalled_nodes:
        if node not in timeline.silent_nodes:
            score[node] += w.stalled_bonus
            reasons[node].append("stopped making progress before the others")
    # First deviation: who printed a strong event first.
    firsts: dict[str, float] = {}
    for e in scored:
        if e.score < w.deviation_min_score or e.role == "context":
            continue
        for node, stats in table.events[e.tid].per_node.items():
            if not math.isnan(stats.first_ts):
                firsts[node] = min(firsts.get(node, math.inf), stats.first_ts)
    if firsts:
        earliest = min(firsts.values())
        for node, t in firsts.items():
            if t - earliest <= w.same_moment_seconds:
                score[node] += w.deviation_bonus
                reasons[node].append("deviated first")
    for node, value in forest.score.items():
        score[node] += w.forest_bonus * value
        if value >= w.forest_reason:
            reasons[node].append("event counts unlike its peers (isolation forest)")
    if scope == "global" and not timeline.silent_nodes and not timeline.stalled_nodes and not any(blame.score.values()):
        return []  # a job-wide fault has no faulty node; a list here would only be padding
    ranked = sorted(names, key=lambda n: (-score[n], n))
    out = [NodeCandidate(n, round(score[n], 4), reasons[n]) for n in ranked if score[n] >= w.node_min_score and reasons[n]]
    return out[:MAX_NODES]
