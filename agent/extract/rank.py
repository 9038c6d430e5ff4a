"""Combine cross-job, spatial and temporal signals into the failure-indicating events,
the ranked faulty nodes, the stage, the iteration and the symptom.

The paper reports every event that survives its filters; on real failures most of those
are the crash cascade (every rank's timeout and teardown is "new"). We separate the root
from its cascade by the order of things: the failure episode starts when progress stops
(or slows, or, before training, with the last burst of novel events); inside it, the
earliest novel event that is not a consequence (a wait, a timeout, a teardown, a stack
frame) is the root, and the messages of the same origin next to it are its companions.
Nodes are ranked by owning that root, by how many peers name them in cascade messages,
by silence, by erring first, and by the Isolation Forest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..library import FaultLibrary, LibraryMatch
from ..mining import Masker, MinedJob
from . import lexicon, spatial, temporal
from .crossjob import NormalProfile, Verdict, judge
from .table import EventStats, EventTable, build_table

MAX_EVENTS = 5
MAX_NODES = 8
COMPANION_SECONDS = 30.0  # messages of the same origin follow a root within this time


@dataclass
class EventCandidate:
    tid: int
    template: str
    score: float
    reasons: list[str]
    nodes: list[str]
    first_ts: float
    role: str  # root | companion | candidate | wait | teardown | context
    role_kind: str = ""  # the lexical role before selection (candidate | wait | teardown | context)


@dataclass
class NodeCandidate:
    node: str
    score: float
    reasons: list[str]


@dataclass
class Extraction:
    events: list[EventCandidate]  # failure-indicating events, most likely root first
    nodes: list[NodeCandidate]
    stage: str
    iterations: list[int]
    symptom: str
    scope: str  # node_local | global | unknown
    timeline: temporal.Timeline
    table: EventTable
    cascades: list[EventCandidate] = field(default_factory=list)  # waits and teardown, for context
    abnormal_iterations: list[temporal.IterationAnomaly] = field(default_factory=list)
    normal_jobs: int = 0
    known: dict[int, LibraryMatch] = field(default_factory=dict)  # event -> best library match
    named_by_peers: list[str] = field(default_factory=list)  # nodes the root event's printers name (a lost peer)


def _spread(stats: EventStats, n_nodes: int) -> float:
    return len(stats.per_node) / max(n_nodes, 1)


HANG_MIN_SECONDS = 300.0  # silence shorter than this is a slow step, not a hang


def _episode_start(
    mined: MinedJob, table: EventTable, timeline: temporal.Timeline, progress_tids: set[int],
    kept: list[tuple[EventStats, Verdict]],
) -> float:
    """When the failure began: the progress stop or slowdown; before training, the start of
    a long silence (a hang), else the last burst of novel events."""
    if timeline.has_training:
        if timeline.slowdown and timeline.slowdown_iteration >= 0:
            for prog in timeline.per_node.values():
                hit = np.flatnonzero(prog.iteration >= timeline.slowdown_iteration)
                if len(hit) and not math.isnan(prog.ts[hit[0]]):
                    return float(prog.ts[hit[0]])
        return timeline.last_progress_ts
    gap_start, gap = temporal.quiet_gap(mined, table, temporal.heartbeat_templates(table, progress_tids))
    if gap >= HANG_MIN_SECONDS:
        timeline.hang, timeline.hang_seconds = True, gap
        return gap_start
    times = sorted((s.first_ts for s, v in kept if v.weight >= 0.6 and not math.isnan(s.first_ts)), reverse=True)
    if not times:
        return timeline.end_ts
    start = times[0]
    for t in times[1:]:
        if start - t > HANG_MIN_SECONDS:
            break
        start = t
    return start


# Lines without a level are mostly prints and kernel lines: weighed like INFO unless their
# words say error.
_LEVEL_FACTOR = {0: 0.85, 1: 0.5, 2: 0.85, 3: 1.0, 4: 1.1, 5: 1.1}  # mining.LEVEL_CODES
# Without normal jobs novelty says nothing; levels are the weaker evidence left.
_LEVEL_FACTOR_NO_HISTORY = {0: 0.6, 1: 0.2, 2: 0.35, 3: 0.8, 4: 1.0, 5: 1.0}
_ROLE_FACTOR = {"candidate": 1.0, "wait": 0.8, "teardown": 0.3, "context": 0.1}
ROOT_SHARE = 0.75
ROOT_MIN_WORDS = 2  # a message must say something to be a root
COMPANION_MIN_WORDS = 3
LIBRARY_MIN_CONFIDENCE = 0.7  # family-level signatures (a bare error-code prefix) say too little
LIBRARY_BOOST = 1.25
ROOT_MIN_SCORE = 0.7  # any novel, non-consequence message this strong can be the first sign
COMPANION_SHARE = 0.5
BURST_SECONDS = 2.0
SURFACING_SECONDS = 2.0
UNDERLYING_MIN_SCORE = 0.4  # the error an exception surfaces may be a plain, unlevelled line
BURST_MIN_SCORE = 0.4
TEARDOWN_LEAD = 1.0  # a stop signal this much before the first error caused it
WAIT_LEAD = 120.0  # a timeout this much earlier than any error is the first sign itself  # the root is the earliest candidate scoring at least this share of the best


def _earliest_on_node(root: EventCandidate, eligible: list[EventCandidate], table: EventTable) -> EventCandidate:
    """Among eligible events printed in the same second on the root's node, the one whose
    line comes first: timestamps tie, line order does not."""
    node = table.events[root.tid].first_node()
    pos = table.events[root.tid].per_node[node].first_pos
    best = root
    for e in eligible:
        stats = table.events[e.tid].per_node.get(node)
        if stats is None or math.isnan(e.first_ts) or math.isnan(root.first_ts):
            continue
        if abs(stats.first_ts - root.first_ts) <= 1.0 and stats.first_pos < pos:
            best, pos = e, stats.first_pos
    return best


def _underlying_error(
    root: EventCandidate, eligible: list[EventCandidate], mined: MinedJob, table: EventTable
) -> EventCandidate:
    """A Python exception is usually the surfacing of the runtime error printed just before
    it on the same node ("EI0002 ... times out", then "RuntimeError: ... failed"): root at that."""
    if not lexicon.is_exception_line(_first_sample(mined, table.events[root.tid])):
        return root
    node = table.events[root.tid].first_node()
    mine = table.events[root.tid].per_node[node]
    best: EventCandidate | None = None
    for e in eligible:
        stats = table.events[e.tid].per_node.get(node)
        if e is root or stats is None or lexicon.is_exception_line(_first_sample(mined, table.events[e.tid])):
            continue
        before = 0 <= mine.first_ts - stats.first_ts <= SURFACING_SECONDS and stats.first_pos < mine.first_pos
        if before and (best is None or stats.first_pos < table.events[best.tid].per_node[node].first_pos):
            best = e
    return best or root


def _first_sample(mined: MinedJob, stats: EventStats) -> str:
    node = stats.first_node()
    samples = mined.nodes[node].samples.get(stats.tid) or [""]
    return samples[0]


def extract(mined: MinedJob, profile: NormalProfile | None = None, library: FaultLibrary | None = None) -> Extraction:
    """Run the L4 statistics over a mined job (mined against ``profile.miner`` when given).

    With a fault ``library``, events whose lines match a specific known fault pattern gain
    weight (the paper's deployment checks confirmed patterns first)."""
    masker = Masker()
    progress_tids = temporal.progress_templates(mined)
    temporal.impute_times(mined)
    skew = temporal.estimate_skew(mined, progress_tids)
    table = build_table(mined, skew)
    timeline = temporal.build_timeline(mined, table, progress_tids)
    n_nodes = len(table.node_names)

    kept: list[tuple[EventStats, Verdict]] = []
    for tid, stats in table.events.items():
        if tid in progress_tids:
            continue
        verdict = judge(profile, tid, max(s.count for s in stats.per_node.values()))
        if verdict.keep:
            kept.append((stats, verdict))

    onset = _episode_start(mined, table, timeline, progress_tids, kept)
    timeline.onset_ts = onset
    step = timeline.step_seconds if not math.isnan(timeline.step_seconds) else 10.0
    lead = max(60.0, 3 * step)  # a root may precede the last progress line by a few steps
    window_start = onset - lead if not math.isnan(onset) else -math.inf

    # ---- classify kept events
    scored: list[EventCandidate] = []
    known: dict[int, LibraryMatch] = {}
    for stats, verdict in kept:
        template = stats.template
        first = stats.first_ts
        spread = _spread(stats, n_nodes)
        reasons = [verdict.reason]
        sample = _first_sample(mined, stats)
        role = lexicon.role_of(template, sample)
        in_episode = math.isnan(first) or first >= window_start
        score = verdict.weight
        if not in_episode:
            score *= 0.15
            reasons.append("before the failure episode")
        if spread <= 0.25:
            reasons.append("only on " + ", ".join(stats.nodes[:3]) + (" ..." if len(stats.nodes) > 3 else ""))
        elif spread >= 0.75:
            reasons.append(f"on {len(stats.per_node)}/{n_nodes} nodes")
        history = profile is not None and bool(profile.jobs)
        score *= (_LEVEL_FACTOR if history else _LEVEL_FACTOR_NO_HISTORY).get(stats.max_level, 1.0)
        error_words = lexicon.has_error_words(template)
        if error_words:
            score *= 1.2
        elif stats.max_level < 3 or not history:
            score *= 0.8
        score *= _ROLE_FACTOR[role]
        if library is not None and role == "candidate":
            best = max(library.match([sample]), key=lambda m: m.confidence, default=None)
            if best is not None and best.confidence >= LIBRARY_MIN_CONFIDENCE:
                known[stats.tid] = best
                score *= LIBRARY_BOOST
                reasons.append(f"matches known fault pattern {best.id}")
        mark = temporal.stage_of_template(template)
        if mark in ("model_loading", "data_loading", "checkpoint", "checkpoint_done") and stats.max_level <= 2 and not error_words:
            score *= 0.3  # a new workflow step ("saving checkpoint ...") is not a fault by itself
            reasons.append("a workflow step, not an error")
        scored.append(EventCandidate(stats.tid, template, score, reasons, stats.nodes, first, role, role))

    # ---- the root: earliest strong non-consequence in the episode
    def time_key(e: EventCandidate) -> tuple[float, int]:
        stats = table.events[e.tid]
        first = stats.first_node()
        # Same second: the line printed first on that node comes first.
        return (e.first_ts if not math.isnan(e.first_ts) else math.inf, stats.per_node[first].first_pos)

    in_window = [
        e for e in scored
        if (e.score >= 0.25 or (e.role == "teardown" and e.score >= 0.15 and lexicon.is_external_stop(e.template)))
        and lexicon.informative_words(e.template) >= ROOT_MIN_WORDS
    ]
    roots_pool = sorted((e for e in in_window if e.role in ("candidate", "wait")), key=time_key)
    cascades = sorted((e for e in in_window if e.role in ("wait", "teardown")), key=time_key)
    if not roots_pool:
        # Only teardown is left (a silent node, a dead host): it is the evidence.
        roots_pool = [e for e in cascades if e.role == "teardown"]
    events: list[EventCandidate] = []
    if roots_pool:
        strongest = max(e.score for e in roots_pool)
        threshold = ROOT_MIN_SCORE if strongest >= ROOT_MIN_SCORE else ROOT_SHARE * strongest
        eligible = [e for e in roots_pool if e.score >= threshold]
        first_wait = next((e for e in eligible if e.role == "wait"), None)
        first_cand = next((e for e in eligible if e.role != "wait"), None)
        # A peer's timeout often reaches the log a moment before the faulty node's own
        # error (or the clocks disagree by that much): prefer the error when it is close.
        root = first_cand if first_cand is not None else eligible[0]
        if first_wait is not None and first_cand is not None and time_key(first_wait)[0] < time_key(first_cand)[0] - WAIT_LEAD:
            root = first_wait
        root = _earliest_on_node(root, eligible, table)
        root = _underlying_error(root, [e for e in roots_pool if e.score >= UNDERLYING_MIN_SCORE], mined, table)
        # A signal or eviction on one node well before anything else failed is the cause
        # (the scheduler killed it), not teardown after the fact.
        for e in cascades:
            if (
                e.role == "teardown"
                and lexicon.is_external_stop(e.template)
                and len(e.nodes) <= max(1, n_nodes // 4)
                and e.score >= 0.15
                and time_key(e)[0] < time_key(root)[0] - TEARDOWN_LEAD
            ):
                e.reasons.insert(0, "a node was stopped before anything else failed")
                root = e
                break
        root.role = "root"
        root.reasons.insert(0, "earliest novel event of the failure episode")
        events.append(root)
        root_is_exception = lexicon.is_exception_line(_first_sample(mined, table.events[root.tid]))
        root_level = table.events[root.tid].max_level
        root_is_error = root_level >= 4 or (root_level == 0 and lexicon.has_error_words(root.template))
        for e in roots_pool:
            if e is root or len(events) >= MAX_EVENTS:
                continue
            if lexicon.informative_words(e.template) < COMPANION_MIN_WORDS:
                continue
            # A Python exception after an error already reported is that error surfacing in
            # Python; after a warning it is the failure the warning announced.
            if root_is_error and not root_is_exception and lexicon.is_exception_line(_first_sample(mined, table.events[e.tid])):
                continue
            # Messages of one fault are printed together: next to the root in its node's log.
            gap = abs(e.first_ts - root.first_ts) if not (math.isnan(e.first_ts) or math.isnan(root.first_ts)) else math.inf
            close = gap <= COMPANION_SECONDS
            # A burst on the root's own node(s) in the same moment is one fault speaking.
            local_root = len(root.nodes) <= max(1, n_nodes // 2)
            if (
                local_root
                and gap <= BURST_SECONDS
                and e.role == "candidate"
                and set(e.nodes) <= set(root.nodes)
                and e.score >= BURST_MIN_SCORE
            ):
                e.role = "companion"
                e.reasons.insert(0, "printed with the root on the same node(s)")
                events.append(e)
                continue
            same_nodes = set(e.nodes) <= set(root.nodes) and len(root.nodes) <= max(1, n_nodes // 2)
            kind_ok = e.role == "candidate" or (e.role == "wait" and same_nodes)
            if close and kind_ok and e.score >= max(ROOT_MIN_SCORE, COMPANION_SHARE * root.score):
                e.role = "companion"
                e.reasons.insert(0, "follows the root on the same node(s)")
                events.append(e)

    root_event = events[0] if events else None
    root_stats = table.events[root_event.tid] if root_event else None
    scope = "unknown"
    if root_stats is not None:
        spread = _spread(root_stats, n_nodes)
        scope = "global" if spread >= 0.75 and n_nodes >= 2 else "node_local"

    # ---- nodes
    identities = spatial.node_identities(mined, table, masker)
    # Only failure-time messages blame a peer: init lines name the master's address everywhere.
    blame_tids = [e.tid for e in scored if e.role in ("wait", "root", "companion") and e.score >= 0.2]
    blame = spatial.blame_graph(mined, table, blame_tids, identities, masker)
    forest = spatial.isolation_forest(table, [s.tid for s, _ in kept])
    named = _named_in_root(blame, root_stats)
    nodes = _rank_nodes(table, timeline, root_stats, scope, blame, named, forest, scored)

    # ---- stage, iterations, symptom
    marks = temporal.stage_marks(mined, progress_tids)
    stage = "unknown"
    iterations: list[int] = []
    anchor_node, anchor_ts = None, onset
    if root_stats is not None:
        anchor_node = root_stats.first_node()
        node_stats = root_stats.per_node[anchor_node]
        anchor_ts = node_stats.first_ts
        stage = temporal.job_stage_at(mined, timeline, table, marks, anchor_node, node_stats.first_pos, anchor_ts)
    elif mined.nodes:
        anchor_node = max(mined.nodes, key=lambda n: len(mined.nodes[n]))
        log = mined.nodes[anchor_node]
        stage = temporal.stage_at(log, len(log) - 1, marks)
    if timeline.has_training and stage in ("training", "checkpoint"):
        if timeline.slowdown:
            iterations = [timeline.slowdown_iteration]
        if math.isnan(anchor_ts) or (timeline.hang and anchor_ts > timeline.last_progress_ts):
            anchor_ts = timeline.last_progress_ts
        for it in temporal.iteration_at(timeline, anchor_node, anchor_ts):
            if it not in iterations:
                iterations.append(it)
    anomalies = temporal.abnormal_iterations(mined, timeline, progress_tids) if timeline.has_training else []
    # A silence after a fatal error is a crash whose peers waited for the watchdog; a
    # silence after a warning (or nothing) is a hang.
    fatal_root = root_stats is not None and (
        root_stats.max_level >= 4 or lexicon.is_exception_line(_first_sample(mined, root_stats))
    )
    if not timeline.has_training:
        symptom = "launching_failure"
    elif timeline.slowdown or (timeline.hang and not fatal_root):
        symptom = "abnormal_behavior"
    else:
        symptom = "training_crash"

    return Extraction(
        events=events,
        nodes=nodes,
        stage=stage,
        iterations=iterations[:3],
        symptom=symptom,
        scope=scope,
        timeline=timeline,
        table=table,
        cascades=cascades[:5],
        abnormal_iterations=anomalies,
        normal_jobs=len(profile.jobs) if profile else 0,
        known=known,
        named_by_peers=named,
    )


def _named_in_root(blame: spatial.Blame, root: EventStats | None) -> list[str]:
    """Peers named in the root message by several of its printers (heartbeat lost from X)."""
    if root is None:
        return []
    return sorted(n for n, tids in blame.events.items() if root.tid in tids and len(blame.edges.get(n, ())) >= 2)


def _rank_nodes(
    table: EventTable,
    timeline: temporal.Timeline,
    root: EventStats | None,
    scope: str,
    blame: spatial.Blame,
    named: list[str],
    forest: spatial.ForestResult,
    scored: list[EventCandidate],
) -> list[NodeCandidate]:
    names = table.node_names
    score = {n: 0.0 for n in names}
    reasons: dict[str, list[str]] = {n: [] for n in names}
    if root is not None and named:
        # The root message itself points at a peer (heartbeat lost from rank 57 at 10.0.0.5):
        # that peer is the suspect, not the nodes reporting it.
        for node in named:
            score[node] += 0.45
            reasons[node].append(f"named in the root event by {len(blame.edges.get(node, ()))} peer(s)")
        for node in root.per_node:
            if node not in named:
                score[node] += 0.15
                reasons[node].append("reports the root event about a peer")
    elif root is not None and scope == "node_local":
        order = sorted(root.per_node, key=lambda n: (math.isnan(root.per_node[n].first_ts), root.per_node[n].first_ts))
        for i, node in enumerate(order):
            score[node] += 0.45 * (1.0 if i == 0 else 0.7)
            reasons[node].append("prints the root event" + (" first" if i == 0 and len(order) > 1 else ""))
    for node, value in blame.score.items():
        if value > 0:
            score[node] += 0.3 * min(1.0, value * 2)
            reasons[node].append(f"named by {len(blame.edges.get(node, ()))} peer(s) in failure messages")
    for node in timeline.silent_nodes:
        score[node] += 0.2
        reasons[node].append("stopped logging before the others")
    for node in timeline.stalled_nodes:
        if node not in timeline.silent_nodes:
            score[node] += 0.1
            reasons[node].append("stopped making progress before the others")
    # First deviation: who printed a strong event first.
    firsts: dict[str, float] = {}
    for e in scored:
        if e.score < 0.5 or e.role == "context":
            continue
        for node, stats in table.events[e.tid].per_node.items():
            if not math.isnan(stats.first_ts):
                firsts[node] = min(firsts.get(node, math.inf), stats.first_ts)
    if firsts:
        earliest = min(firsts.values())
        for node, t in firsts.items():
            if t - earliest <= 1.0:
                score[node] += 0.1
                reasons[node].append("deviated first")
    for node, value in forest.score.items():
        score[node] += 0.1 * value
        if value >= 0.8:
            reasons[node].append("event counts unlike its peers (isolation forest)")
    if scope == "global" and not timeline.silent_nodes and not timeline.stalled_nodes and not any(blame.score.values()):
        return []  # a job-wide fault has no faulty node; a list here would only be padding
    ranked = sorted(names, key=lambda n: (-score[n], n))
    out = [NodeCandidate(n, round(score[n], 4), reasons[n]) for n in ranked if score[n] >= 0.12 and reasons[n]]
    return out[:MAX_NODES]
