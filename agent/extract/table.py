"""Per-event statistics of one mined job: who printed each template, how often, and when.

Every extractor reads this table instead of the raw line arrays. Times are corrected for
per-node clock skew (estimated by ``clock.estimate_skew``) so "who erred first" compares
like with like.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..mining import MinedJob


@dataclass
class NodeEventStats:
    count: int
    first_pos: int  # index into the node's arrays
    last_pos: int
    first_ts: float  # skew-corrected, NaN unknown
    last_ts: float
    # An unstamped line borrows the time of its file's previous stamped line; it was printed
    # no later than the next stamped one. Equal to first_ts for a stamped line.
    first_ts_latest: float = math.nan


def _early_quantile(values: list[float]) -> float:
    """The earliest of a few times; on more nodes, the first quartile (NaN ignored)."""
    times = sorted(t for t in values if not math.isnan(t))
    if not times:
        return math.nan
    if len(times) <= 3:
        return times[0]
    return times[int(0.25 * (len(times) - 1))]


@dataclass
class EventStats:
    """One template across the job."""

    tid: int
    template: str
    per_node: dict[str, NodeEventStats] = field(default_factory=dict)
    max_level: int = 0
    has_iteration: bool = False

    @property
    def total(self) -> int:
        return sum(s.count for s in self.per_node.values())

    @property
    def nodes(self) -> list[str]:
        return sorted(self.per_node)

    @property
    def first_ts(self) -> float:
        """When the job first showed this event. On many nodes, a low quantile rather than
        the minimum: one node with a wrong clock must not move a job-wide event earlier."""
        return _early_quantile([s.first_ts for s in self.per_node.values()])

    @property
    def first_ts_latest(self) -> float:
        """The latest time the event may first have been printed (``first_ts``'s quantile over
        each node's latest possible first time): an undated line may belong to a later burst."""
        return _early_quantile([s.first_ts_latest for s in self.per_node.values()])

    def first_node(self) -> str:
        """The node that printed it first (by corrected time, then by name)."""
        return min(
            self.per_node,
            key=lambda n: (math.isnan(self.per_node[n].first_ts), self.per_node[n].first_ts, n),
        )


@dataclass
class EventTable:
    events: dict[int, EventStats]
    node_names: list[str]
    skew: dict[str, float]
    node_first_ts: dict[str, float]
    node_last_ts: dict[str, float]

    def corrected(self, node: str, ts: float) -> float:
        return ts - self.skew.get(node, 0.0)


def _finite_edge(ts: np.ndarray, last: bool) -> float:
    finite = np.flatnonzero(~np.isnan(ts))
    if not len(finite):
        return math.nan
    return float(ts[finite[-1] if last else finite[0]])


def build_table(mined: MinedJob, skew: dict[str, float] | None = None) -> EventTable:
    """Count, first/last position and time of every template on every node."""
    skew = skew or {}
    events: dict[int, EventStats] = {}
    node_first = {name: _finite_edge(log.ts, last=False) - skew.get(name, 0.0) for name, log in mined.nodes.items()}
    node_last = {name: _finite_edge(log.ts, last=True) - skew.get(name, 0.0) for name, log in mined.nodes.items()}
    job_end = max((t for t in node_last.values() if not math.isnan(t)), default=math.nan)
    for name, log in mined.nodes.items():
        offset = skew.get(name, 0.0)
        stamped = np.flatnonzero(log.stamped & ~np.isnan(log.ts))
        steps = np.flatnonzero(log.iteration >= 0)
        order = np.argsort(log.template, kind="stable")
        sorted_tids = log.template[order]
        starts = np.flatnonzero(np.r_[True, sorted_tids[1:] != sorted_tids[:-1]])
        ends = np.r_[starts[1:], len(sorted_tids)]
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            positions = order[start:end]
            tid = int(sorted_tids[start])
            first, last = int(positions[0]), int(positions[-1])
            stats = events.get(tid)
            if stats is None:
                stats = events[tid] = EventStats(tid=tid, template=mined.miner.template(tid))
            latest_ts = float(log.ts[first])
            if not log.stamped[first]:
                after = int(np.searchsorted(stamped, first, side="right"))
                # Past its file's last stamp and last step an undated line may have come at any
                # time until the job stopped: rank 0's "torch.OutOfMemoryError: CUDA out of
                # memory." under "[after dataloaders are built] datetime: 2025-01-08 20:18:43"
                # ended a run its peers' watchdogs reported 35 minutes later (independent corpus
                # E, e09). A step printed after it says the job went on working.
                if after < len(stamped):
                    latest_ts = float(log.ts[int(stamped[after])])
                elif not math.isnan(job_end) and (not len(steps) or steps[-1] < first):
                    latest_ts = max(job_end + offset, latest_ts)
            stats.per_node[name] = NodeEventStats(
                count=end - start,
                first_pos=first,
                last_pos=last,
                first_ts=float(log.ts[first]) - offset,
                last_ts=float(log.ts[last]) - offset,
                first_ts_latest=latest_ts - offset,
            )
            stats.max_level = max(stats.max_level, int(log.level[positions].max()))
            if not stats.has_iteration and log.iteration[first] >= 0:
                stats.has_iteration = True
    return EventTable(
        events=events, node_names=sorted(mined.nodes), skew=skew, node_first_ts=node_first, node_last_ts=node_last
    )
