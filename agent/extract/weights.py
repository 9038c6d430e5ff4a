"""Every tuned number of the extractor, in one frozen record.

The method's ideas (novelty, first deviation, silence, blame) are in the code; how much
each one counts is here. A number that lived in a branch (``score *= 0.15``) is a named
field with the reason it has that value, so changing how a root is chosen is a one-line
``dataclasses.replace(Weights(), ...)`` that tests and the bench can compare. The values
were tuned on generated corpora; the reasons say what each one guards against.

Level codes (``mining.LEVEL_CODES``: 0 none, 1 DEBUG, 2 INFO, 3 WARNING, 4 ERROR, 5 CRITICAL),
output sizes (``root.MAX_EVENTS``, ``nodes.MAX_NODES``) and minimum counts that only make a
statistic defined (two values for a difference, three for a median) are facts, not weights;
they stay where they are used. One tuned number lives outside: the 0.25 quantile of
``table.EventStats.first_ts`` (a property of the record, read everywhere).
"""

from __future__ import annotations

from dataclasses import dataclass, field


def _level_factor() -> dict[int, float]:
    return {0: 0.85, 1: 0.5, 2: 0.85, 3: 1.0, 4: 1.1, 5: 1.1}


def _level_factor_no_history() -> dict[int, float]:
    return {0: 0.6, 1: 0.2, 2: 0.35, 3: 0.8, 4: 1.0, 5: 1.0}


def _role_factor() -> dict[str, float]:
    return {"candidate": 1.0, "wait": 0.8, "teardown": 0.3, "context": 0.1}


@dataclass(frozen=True)
class Weights:
    """Thresholds, factors and bonuses of the extractor (defaults = the tuned values)."""

    # ---- clock (clock.py)
    stamped_share: float = 0.5  # a node with fewer own timestamps than this share gets imputed times
    skew_min_groups: int = 3  # fewer shared iterations than this: pair other synchronous messages instead
    skew_max_iterations: int = 200  # most recent shared iterations used for the skew (old ones add nothing)
    sync_max_per_node: int = 50  # a message printed more often than this per node is not a one-off sync point
    sync_node_share: float = 0.8  # a sync message is printed (equally often) by at least this share of nodes
    sync_max_groups: int = 400  # most recent sync points used for the skew

    # ---- the cross-job filter (crossjob.py)
    frequent_job_share: float = 0.5  # printed by at least this share of normal jobs: normal, dropped
    burst_factor: float = 10.0  # a per-node count this many times the normal maximum is a burst, kept
    burst_min_count: int = 5  # ... if it is at least this many lines (2 vs 0 is no burst)
    burst_weight: float = 0.6  # a burst of a known message: less novel than an unseen one (1.0)
    rare_weight: float = 0.35  # printed by a few normal jobs: weak evidence, kept
    # ... and without normal jobs, the shipped prior of healthy public runs (agent.prior):
    prior_min_sources: int = 2  # a shape at least this many healthy sources print is normal behaviour
    prior_weight: float = 0.0  # its novelty then, like a message most normal jobs print (0: dropped)

    # ---- node identities and the Isolation Forest (spatial.py)
    identity_name_votes: int = 10  # a node's own name (and rankN) outvotes any message slot
    identity_distinct_share: float = 0.8  # a slot is an identity when (almost) every node shows its own value
    forest_trees: int = 100  # Isolation Forest size (scikit-learn's default)
    forest_driver_deviation: float = 0.5  # a count this many MADs from the median makes a node stand out
    forest_max_drivers: int = 5  # events named per node as why it stands out

    # ---- progress and timeline (progress.py)
    progress_min_lines: int = 3  # an iteration counter must appear this many times per node to be progress
    progress_monotone_share: float = 0.9  # share of steps where the iteration number does not go back
    typical_min_nodes: int = 3  # a job-wide median (of last iteration or last line) needs this many nodes
    silent_min_seconds: float = 60.0  # a node quiet this long before the others is silent (at least)
    silent_steps: float = 20.0  # ... or this many steps, whichever is longer
    hang_min_seconds: float = 120.0  # progress stopped this long before the end is a hang (at least)
    hang_steps: float = 30.0  # ... or this many steps, whichever is longer
    heartbeat_min_count: int = 4  # a heartbeat repeats at least this often on a node
    heartbeat_span_share: float = 0.5  # ... over at least this share of the job's duration
    slowdown_min_iterations: int = 12  # fewer timed iterations than this cannot show a lasting slowdown
    slowdown_baseline_iterations: int = 5  # the baseline rate is the median over at least this many first iterations
    slowdown_baseline_divisor: int = 3  # ... or over the first third of them, whichever is more
    slowdown_ratio: float = 1.6  # an iteration this much slower than the baseline is slow
    slowdown_tail_share: float = 0.8  # from the onset on, this share of iterations stays slow
    slowdown_tail_min: int = 5  # ... over at least this many iterations

    # ---- stages and iterations (stages.py, iterations.py)
    same_moment_seconds: float = 1.0  # two lines this close are the same moment (clocks tick in seconds)
    dtw_window: int = 10  # an iteration is compared with this many predecessors (the paper's window)
    dtw_max_sequence: int = 40  # events per iteration compared; longer iterations are clipped
    dtw_max_iterations: int = 2000  # most recent logged iterations examined per node
    dtw_sigmas: float = 3.0  # similarity this many deviations below the mean is abnormal (three-sigma)

    # ---- the failure episode (root.py)
    episode_hang_seconds: float = 300.0  # before training, silence shorter than this is a slow step, not a hang
    episode_novel_weight: float = 0.6  # events at least this novel (unseen or a burst) date the last burst before training
    default_step_seconds: float = 10.0  # the step time assumed when progress gives none
    lead_min_seconds: float = 60.0  # a root may precede the episode start by this much ...
    lead_steps: float = 3.0  # ... or by this many steps, whichever is longer

    # ---- scoring a kept event (events.py)
    before_episode_factor: float = 0.15  # an event before the episode is old news, not the failure
    handled_factor: float = 0.5  # an exception caught while another was raised ranks below the one that escaped
    restart_max_repeats: int = 5  # an error recurring at most this often is one per restarted attempt
    local_spread: float = 0.25  # printed by at most this share of nodes: "only on ..."
    global_spread: float = 0.75  # printed by at least this share of nodes: job-wide (also the global scope)
    level_factor: dict[int, float] = field(default_factory=_level_factor)  # lines without a level are mostly prints: like INFO
    level_factor_no_history: dict[int, float] = field(default_factory=_level_factor_no_history)  # without normal jobs, levels are the evidence left
    role_factor: dict[str, float] = field(default_factory=_role_factor)  # consequences and context only lower a rank
    error_words_factor: float = 1.2  # words of failure break ties between equally novel events
    no_error_words_factor: float = 0.8  # an unlevelled or quiet line without such words says less
    no_error_words_factor_no_history: float = 0.6  # without normal jobs, words of failure are the evidence left:
    # a line that says nothing failed (an argument dump) cannot be the first sign while one that does exists
    library_min_confidence: float = 0.7  # family-level signatures (a bare error-code prefix) say too little
    library_boost: float = 1.25  # a line matching a confirmed fault pattern (checked first in deployment)
    benign_doc_factor: float = 0.3  # a line a `benign` knowledge doc explains (jobs print it and go on)
    workflow_factor: float = 0.3  # a new workflow step ("saving checkpoint ...") is not a fault by itself
    tail_lines: int = 200  # cold start: routine lines after an event beyond this say the job went on working
    tail_floor: float = 0.3  # ... an event printed long before the end keeps at least this share of its score

    # ---- choosing the root and its companions (root.py)
    window_min_score: float = 0.25  # weaker events are not considered for root or cascade at all
    external_stop_min_score: float = 0.15  # a scheduler's stop is evidence even with a teardown's low score
    root_min_words: int = 2  # a message must say something to be a root
    root_min_score: float = 0.7  # any novel, non-consequence message this strong can be the first sign
    # An unlevelled line with failure words (0.72: a prompt echoed to stdout, DeepSpeed's "Warning:
    # The cache directory for DeepSpeed Triton autotune ... appears to be on an NFS system") is not
    # the first sign of the exception or OOM (1.2-1.5) after it (SachinKonan/LLaMA-Factory-AutoReviewer
    # 4523782, LIU-Hao-2002/GRPO_project logs/nohup.out).
    root_best_share: float = 0.65  # ... and, without normal jobs, at least this share of the strongest event
    root_share: float = 0.75  # else the root is the earliest scoring at least this share of the best
    wait_lead_seconds: float = 120.0  # a timeout this much earlier than any error is the first sign itself
    underlying_min_score: float = 0.4  # the error an exception surfaces may score low (a logged line the tail or words did not lift)
    surfacing_seconds: float = 2.0  # an exception surfaces an error printed at most this much before it
    surfacing_lines: int = 60  # ... and within a traceback's length of lines (one stamp can date a whole excerpt)
    teardown_lead_seconds: float = 1.0  # a stop signal this much before the first error caused it
    stop_together_seconds: float = 5.0  # a scheduler's stop reaches all of a job's nodes within this; a node stopped earlier was stopped alone
    survived_run_lines: int = 10  # routine lines in a row after an error: the program caught it and carried on
    external_stop_node_divisor: int = 4  # a stop that caused the failure hits at most a quarter of the nodes
    local_node_divisor: int = 2  # a root on at most half the nodes is local: its burst is one fault speaking
    companion_min_words: int = 3  # a companion must say more than a root needs to
    companion_seconds: float = 30.0  # messages of the same origin follow a root within this time
    companion_lines: int = 6  # ... or, when lines carry no time, within this many lines (a CANN error block)
    burst_seconds: float = 2.0  # printed with the root in the same moment on its node(s)
    burst_min_score: float = 0.4  # a burst companion needs less than a follower
    companion_share: float = 0.5  # a follower scores at least this share of the root (and root_min_score)

    # ---- ranking nodes (nodes.py)
    blame_min_score: float = 0.2  # only failure-time messages this strong blame a peer
    named_min_peers: int = 2  # a peer is named in the root when several of its printers name it
    named_bonus: float = 0.45  # the root message names this peer (heartbeat lost from X)
    reporter_bonus: float = 0.15  # prints the root event about a peer: a witness, not the suspect
    root_printer_bonus: float = 0.45  # prints a node-local root event
    later_printer_factor: float = 0.7  # ... but not first: a share of that
    blame_bonus: float = 0.3  # named by peers in failure messages ...
    blame_gain: float = 2.0  # ... full bonus once half the peers name it
    silent_bonus: float = 0.2  # stopped logging before the others
    stalled_bonus: float = 0.1  # stopped making progress before the others
    deviation_min_score: float = 0.5  # events this strong count for "deviated first"
    deviation_bonus: float = 0.1  # printed a strong event first (within same_moment_seconds)
    forest_bonus: float = 0.1  # Isolation Forest degree (0..1) times this: the paper's signal, a tie-breaker
    forest_reason: float = 0.8  # a forest degree this high is worth a reason
    node_min_score: float = 0.12  # weaker nodes are padding, not suspects


DEFAULT_WEIGHTS = Weights()  # the tuned values, shared (a frozen record is safe to share)
