"""The L4 statistics: from a mined job to the failure-indicating events, the ranked
faulty nodes, the stage, the iteration and the symptom.

``extract`` only wires the steps, one module each, in the order data flows:
``clock`` (one time base) -> ``table`` (per-event statistics) -> ``progress`` (timeline)
-> ``crossjob`` (what normal jobs also print) -> ``root.episode`` (when it began) ->
``events`` (score each kept event) -> ``root.select`` (root and companions) -> ``nodes``
(blame, silence, first deviation, Isolation Forest) -> ``stages`` and ``iterations``.
Every tuned number is a field of ``Weights``; pass another one to see what it changes.
Nothing here changes the caller's ``MinedJob``: imputed times live in ``Extraction.mined``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..aliases import peers_in
from ..mining import Masker, MinedJob
from . import clock, events, iterations, nodes, progress, root, spatial, stages
from .crossjob import NormalProfile
from .events import EventCandidate, KnownFaults
from .iterations import IterationAnomaly
from .nodes import NodeCandidate
from .progress import Timeline
from .table import EventTable, build_table
from .weights import DEFAULT_WEIGHTS, Weights

__all__ = ["EventCandidate", "Extraction", "NodeCandidate", "Weights", "extract"]


@dataclass
class Extraction:
    events: list[EventCandidate]  # failure-indicating events, most likely root first
    nodes: list[NodeCandidate]
    stage: str
    iterations: list[int]
    symptom: str
    scope: str  # node_local | global | unknown
    timeline: Timeline
    table: EventTable
    cascades: list[EventCandidate] = field(default_factory=list)  # waits and teardown, for context
    abnormal_iterations: list[IterationAnomaly] = field(default_factory=list)
    normal_jobs: int = 0
    named_by_peers: list[str] = field(default_factory=list)  # nodes the root event's printers name (a lost peer)
    blame: spatial.Blame | None = None  # who names whom in failure-time messages (the HTML report draws it)
    mined: MinedJob | None = None  # the job as extracted: the caller's, or a copy with imputed times
    warnings: list[str] = field(default_factory=list)  # what the reader should know (clock steps)
    prior_benign: dict[int, int] = field(default_factory=dict)  # cold start: template id -> healthy sources (shipped prior)


def extract(
    mined: MinedJob,
    profile: NormalProfile | None = None,
    library: KnownFaults | None = None,
    weights: Weights = DEFAULT_WEIGHTS,
    healthy: Mapping[int, int] | None = None,
) -> Extraction:
    """Run the L4 statistics over a mined job (mined against ``profile.miner`` when given).

    With a fault ``library``, events whose lines match a specific known fault pattern gain
    weight (the paper's deployment checks confirmed patterns first). ``healthy`` (template
    id -> healthy public sources that print it, ``agent.prior.known_events``) stands in for
    normal jobs when there are none."""
    w = weights
    progress_tids = progress.progress_templates(mined, w)
    undated, date_warnings = clock.far_dates(mined)
    mined = clock.with_times(mined, undated)
    unstepped, clock_warnings = clock.unstep_times(mined)
    clock_warnings = [*date_warnings, *clock_warnings]
    mined = clock.with_times(mined, unstepped)
    mined = clock.with_times(mined, clock.impute_times(mined, w))
    mined = clock.with_times(mined, clock.file_order_times(mined))
    table = build_table(mined, clock.estimate_skew(mined, progress_tids, w))
    n_nodes = len(table.node_names)
    history = profile is not None and bool(profile.jobs)
    benign = events.benign_in_healthy_runs(mined, table, healthy, library, w) if healthy and not history else {}
    kept = events.kept_events(table, profile, progress_tids | progress.progress_reports(mined), w, benign)
    timeline = progress.build_timeline(mined, table, progress_tids, w)
    timeline = root.episode(mined, table, timeline, progress_tids, kept, w)
    scored = events.score_events(
        mined, kept, n_nodes=n_nodes, window_start=root.window_start(timeline, w), history=history,
        library=library, weights=w,
    )
    # With normal jobs, novelty already tells a job's usual noise apart; the share of the
    # strongest event is the cold-start stand-in for it.
    chosen = root.select(scored, mined, table, dataclasses.replace(w, root_best_share=0.0) if history else w)
    root_stats = table.events[chosen.events[0].tid] if chosen.events else None
    scope = root.scope_of(root_stats, n_nodes, w)

    masker = Masker()
    identities = spatial.node_identities(mined, table, masker, w)
    blame = spatial.blame_graph(mined, table, nodes.blame_tids(chosen.scored, w), identities, masker)
    forest = spatial.isolation_forest(table, [s.tid for s, _ in kept], weights=w)
    named = nodes.named_in_root(blame, root_stats, w, nodes.machines(mined),
                                names_lost_peer=root_stats is not None and bool(peers_in([events.first_sample(mined, root_stats)])),
                                quiet=set(timeline.silent_nodes))
    ranked = nodes.rank_nodes(table, timeline, root_stats, scope, blame, named, forest, chosen.scored, w)

    marks = stages.stage_marks(mined, progress_tids)
    stage, anchor_node, anchor_ts = stages.failure_stage(mined, timeline, table, marks, root_stats, timeline.onset_ts, w)
    return Extraction(
        events=chosen.events,
        nodes=ranked,
        stage=stage,
        iterations=iterations.failure_iterations(timeline, stage, anchor_node, anchor_ts),
        symptom=progress.symptom_of(timeline, root.is_fatal(mined, root_stats)),
        scope=scope,
        timeline=timeline,
        table=table,
        cascades=chosen.cascades[: root.MAX_CASCADES],
        abnormal_iterations=iterations.abnormal_iterations(mined, timeline, progress_tids, w),
        normal_jobs=len(profile.jobs) if profile else 0,
        named_by_peers=named,
        blame=blame,
        mined=mined,
        warnings=clock_warnings,
        prior_benign=benign,
    )
