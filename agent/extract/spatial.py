"""Spatial comparison: which nodes differ from their peers, and which events make them differ.

The paper's signal is an Isolation Forest over per-node event-count vectors. On its own it
often ranks a *peer* of the faulty node first, because peers log cascade errors (timeouts
waiting for the faulty node) that outnumber the faulty node's own lines. Three more
signals fix that:

- **blame**: cascade messages name the peer they wait on (rank, IP, host). Mapping those
  values back to the node that owns them gives a graph; the node many others point at is
  the one everyone waits on;
- **identity**: a node owns the values that sit in the same slot of a message every node
  prints (its rank in ``[Rank 3] iteration ...``, its IP in the NCCL bootstrap line);
- **first deviation** and **silence** (computed in ``progress`` and ``nodes``): the faulty node usually
  errs first, or stops logging while the others go on.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from ..mining import Masker, MinedJob
from .table import EventTable
from .weights import DEFAULT_WEIGHTS, Weights

IDENTITY_KINDS = ("RANK", "IP", "NODE")
_IP_ONLY = re.compile(r":\d+$")


@dataclass
class ForestResult:
    score: dict[str, float]  # node -> anomaly degree in [0, 1]
    drivers: dict[str, list[int]]  # node -> template ids that make it stand out, strongest first


def isolation_forest(
    table: EventTable, features: list[int], seed: int = 0, weights: Weights = DEFAULT_WEIGHTS
) -> ForestResult:
    """Isolation Forest over log1p event counts per node (the L4 paper's spatial step)."""
    w = weights
    nodes = table.node_names
    if len(nodes) < 3 or not features:
        return ForestResult({n: 0.0 for n in nodes}, {n: [] for n in nodes})
    matrix = np.zeros((len(nodes), len(features)))
    index = {n: i for i, n in enumerate(nodes)}
    for j, tid in enumerate(features):
        for node, stats in table.events[tid].per_node.items():
            matrix[index[node], j] = np.log1p(stats.count)
    from sklearn.ensemble import IsolationForest  # heavy import, only when needed

    forest = IsolationForest(n_estimators=w.forest_trees, random_state=seed, contamination="auto")
    forest.fit(matrix)
    raw = -forest.score_samples(matrix)  # higher = easier to isolate = more anomalous
    lo, hi = float(raw.min()), float(raw.max())
    norm = (raw - lo) / (hi - lo) if hi > lo else np.zeros_like(raw)
    median = np.median(matrix, axis=0)
    mad = np.median(np.abs(matrix - median), axis=0)
    deviation = np.abs(matrix - median) / (mad + 1.0)
    drivers = {}
    for i, node in enumerate(nodes):
        order = np.argsort(-deviation[i])
        drivers[node] = [features[j] for j in order[: w.forest_max_drivers].tolist() if deviation[i, j] > w.forest_driver_deviation]
    return ForestResult({n: float(norm[index[n]]) for n in nodes}, drivers)


def _norm_value(kind: str, value: str) -> str:
    if kind == "IP":
        return _IP_ONLY.sub("", value)
    if kind == "RANK":
        return str(int(value)) if value.isdigit() else value
    return value


def node_identities(
    mined: MinedJob, table: EventTable, masker: Masker, weights: Weights = DEFAULT_WEIGHTS
) -> dict[tuple[str, str], tuple[str, ...]]:
    """(kind, value) -> the node(s) it identifies.

    A message printed by most nodes, whose RANK/IP/NODE slot holds a different value on
    each node, tells each node's own identity; node names themselves identify too. With one
    file per rank, a host's address is shared by its ranks: an IP slot whose values split the
    nodes into groups of two or more identifies each group (a peer named by IP is a host)."""
    owners: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    groups: dict[str, Counter[str]] = defaultdict(Counter)  # host IP -> the ranks that print it as theirs
    n_nodes = len(table.node_names)
    for name in table.node_names:
        owners[("NODE", name)][name] += weights.identity_name_votes
        digits = re.search(r"(\d+)$", name)
        if name.startswith("rank") and digits:
            owners[("RANK", str(int(digits.group(1))))][name] += weights.identity_name_votes
    for tid, stats in table.events.items():
        if len(stats.per_node) < max(2, n_nodes // 2):
            continue
        slot_values: dict[tuple[int, str], dict[str, str]] = defaultdict(dict)
        for node in stats.per_node:
            samples = mined.nodes[node].samples.get(tid) or []
            if not samples:
                continue
            for slot, (kind, value) in enumerate(masker.params(samples[0])):
                if kind in IDENTITY_KINDS:
                    slot_values[(slot, kind)][node] = _norm_value(kind, value)
        for (_, kind), values in slot_values.items():
            distinct = set(values.values())
            # An identity slot: (almost) every node shows its own value.
            if len(values) >= 2 and len(distinct) >= weights.identity_distinct_share * len(values):
                for node, value in values.items():
                    owners[(kind, value)][node] += 1
            elif kind == "IP" and len(values) >= 4 and len(distinct) >= 2 and _host_groups(values):
                for node, value in values.items():
                    groups[value][node] += 1
    found: dict[tuple[str, str], tuple[str, ...]] = {key: (counter.most_common(1)[0][0],) for key, counter in owners.items()}
    for value, counter in groups.items():
        if ("IP", value) not in found:
            top = max(counter.values())
            found[("IP", value)] = tuple(sorted(n for n, votes in counter.items() if votes == top))
    return found


def _host_groups(values: dict[str, str]) -> bool:
    """Values shared by ranks of one host: every value held by two or more nodes."""
    return all(n >= 2 for n in Counter(values.values()).values())


@dataclass
class Blame:
    score: dict[str, float]  # node -> share of other nodes that name it
    edges: dict[str, set[str]]  # blamed node -> nodes naming it
    events: dict[str, set[int]]  # blamed node -> templates that name it


# HCCL names a collective by its communicator, and the communicator by its root's address: "The
# Notify register has not received the Notify record from remote rank [unknown].base information:
# [streamID:[2282987520], taskID[5], tag[AllReduce_90.90.92.240%enp189s0f0_60000_0_1732766162316022]"
# (Ascend troubleshooting page). That IP is the job's master on every rank's timeout, not the peer
# it waits on; so is the group name ("group information: [group:[<same>], ...]") beside it.
_COMMUNICATOR_TAG = re.compile(r"\b(?:tag|group):?\[[^\]]*\]")


def _names_pattern(names: list[str]) -> re.Pattern[str] | None:
    """Node names that a message can name as words: host-like (a letter and a digit, no path), not
    a console's rank (``rank3`` is a prefix the scan strips, and "rank 3" is the RANK mask's)."""
    hostlike = [n for n in names if "/" not in n and len(n) >= 4 and re.search(r"[A-Za-z]", n)
                and re.search(r"\d", n) and not re.fullmatch(r"rank\d+", n)]
    if not hostlike:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(hostlike, key=len, reverse=True))
    return re.compile(rf"(?<![\w.-])(?:{alternatives})(?![\w-])")


def blame_graph(
    mined: MinedJob,
    table: EventTable,
    candidate_tids: list[int],
    identities: dict[tuple[str, str], tuple[str, ...]],
    masker: Masker,
) -> Blame:
    """Who names whom in failure-time messages (timeouts, connection errors, waits)."""
    edges: dict[str, set[str]] = defaultdict(set)
    events: dict[str, set[int]] = defaultdict(set)
    named = _names_pattern(table.node_names)
    for tid in candidate_tids:
        stats = table.events[tid]
        for node in stats.per_node:
            log = mined.nodes[node]
            texts = [*(log.samples.get(tid) or []), log.last_text.get(tid, "")]
            for text in texts:
                # A host name without a hyphen ("cn0441", "dgx127") is no NODE to the masker, but a
                # peer's message that names a node's file name names that node: "NCCL WARN
                # socketProgress: Connection closed by remote peer cn0441<58191>" (a blind author's job).
                for m in named.finditer(text) if named is not None else ():
                    if m.group(0) != node:
                        edges[m.group(0)].add(node)
                        events[m.group(0)].add(tid)
                for kind, value in masker.params(_COMMUNICATOR_TAG.sub("tag[]", text)):
                    if kind not in IDENTITY_KINDS:
                        continue
                    owned = identities.get((kind, _norm_value(kind, value)), ())
                    if node in owned:
                        continue  # a node naming itself (or its own host)
                    for owner in owned:
                        edges[owner].add(node)
                        events[owner].add(tid)
    others = max(len(table.node_names) - 1, 1)
    score = {n: len(edges.get(n, ())) / others for n in table.node_names}
    return Blame(score=score, edges=dict(edges), events=dict(events))
