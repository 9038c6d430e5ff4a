"""The stages end to end: ingest -> mine -> (extract -> retrieve -> reason), with timings.

Wiring only: each stage lives in its own module (``mining``, ``extract``, ``knowledge``,
``reasoners``); this one runs them in order and renders the extraction as a Diagnosis.
``Diagnoser`` holds the collaborators (fault library, knowledge base, reasoner, cache,
learned normal profiles) as arguments; the process-wide ones below are only its defaults,
so the CLI, ``analyze`` and ``diagnose`` run the same code with the same defaults.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import stackdetect
from .aliases import MAX_ALIASES, aliases_from, host_folder, peers_in, sole_host, task_hosts
from .config import USE_PRIOR_BY_DEFAULT
from .ingest import is_evidence_loss, natural_key, node_name_for
from .mining import LEVEL_CODES, MinedJob, Progress, mine_job
from .rootlines import read_root_lines
from .schema import Diagnosis, EventOut, NodeOut, Occurrence

if TYPE_CHECKING:
    from .cache import DiagnosisCache
    from .extract import Extraction, Weights
    from .extract.crossjob import NormalProfile
    from .knowledge import KnowledgeBase
    from .library import FaultLibrary, KnownFaults
    from .prior import HealthyPrior
    from .reasoners import Evidence, Reasoner

MAX_OCCURRENCES = 10_000  # CONTRACTS.md: then "occurrences_truncated": true


@dataclass
class Analysis:
    """A finished diagnosis plus what it came from (for baselines, chat, tickets)."""

    diagnosis: Diagnosis
    mined: MinedJob
    extraction: Extraction
    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    redacted: int | None = None  # items redacted before the evidence went to an LLM; None: nothing was sent


_PROFILE_CACHE: dict[tuple[str, ...], NormalProfile] = {}  # bench reuses a setting's profile across cases


def resolve_profile(
    setting: str | None, normal_jobs: list[Path] | None, warnings: list[str], use_pool: bool = True,
    profiles: dict[tuple[str, ...], NormalProfile] | None = None,
) -> NormalProfile | None:
    """Normal jobs given explicitly win; else the stored pool of the setting; else none.
    Profiles learned from explicit jobs are kept in ``profiles`` (default: the process's)."""
    from .pools import learn_profile, load_profile

    learned = _PROFILE_CACHE if profiles is None else profiles
    if normal_jobs:
        key = tuple(str(Path(p).resolve()) for p in normal_jobs)
        profile = learned.get(key)
        if profile is None:
            profile = learn_profile(setting or "adhoc", [Path(p) for p in normal_jobs])
            if len(learned) > 16:
                learned.clear()
            learned[key] = profile
        return profile
    if setting and use_pool:
        profile = load_profile(setting)
        if profile is None:
            warnings.append(f"no normal jobs stored for setting {setting!r}: no cross-job filter (add some with `l4 normal add`)")
        return profile
    return None


_LIBRARY: list[FaultLibrary] = []  # loaded once per process: parsing ~200 docs costs ~0.3 s


def fault_library() -> FaultLibrary:
    """The bundled doc signatures plus the user's confirmed patterns."""
    from .library import FaultLibrary

    if not _LIBRARY:
        _LIBRARY.append(FaultLibrary.load())
    return _LIBRARY[0]


MAX_TEXTS_PER_EVENT = 200  # occurrences beyond this keep node and line, text comes from a sample


def to_diagnosis(job: str, mined: MinedJob, extraction: Extraction, top: int) -> Diagnosis:
    """The extractor's result in the Diagnosis contract (category etc. left to a reasoner)."""
    events_out: list[EventOut] = []
    occurrences: list[list[tuple[str, int]]] = []
    wanted: dict[str, set[int]] = {}
    for event in extraction.events[:top]:
        occ: list[tuple[str, int]] = []
        for node in event.nodes:
            log = mined.nodes[node]
            for lineno in log.lineno[log.template == event.tid].tolist():
                occ.append((node, int(lineno)))
        occ.sort()
        occurrences.append(occ)
        for node, lineno in occ[:MAX_TEXTS_PER_EVENT]:
            wanted.setdefault(node, set()).add(lineno)
    texts = mined.line_texts(wanted)
    for event, occ in zip(extraction.events[:top], occurrences, strict=True):
        truncated = len(occ) > MAX_OCCURRENCES
        fallback = {node: mined.nodes[node].samples.get(event.tid, [""])[0] for node in event.nodes}
        events_out.append(
            EventOut(
                template=event.template,
                score=round(min(event.score, 1.0), 4),
                reasons=event.reasons,
                occurrences=[
                    Occurrence(node=n, line=ln, text=texts.get((n, ln), fallback.get(n, "")))
                    for n, ln in occ[:MAX_OCCURRENCES]
                ],
                occurrences_truncated=True if truncated else None,
            )
        )
    from .extract.events import first_position
    from .extract.iterations import last_logged
    from .extract.stages import is_data_pipeline_death, likely_stage

    stage = _traceback_stage(mined, extraction, events_out) or extraction.stage
    if stage == "init" and not extraction.timeline.has_training:
        stage = next((st for ev in events_out[:1] for o in ev.occurrences[:1] if (st := likely_stage(o.text))), stage)
    iterations = extraction.iterations
    if not iterations and stage in ("training", "checkpoint") and extraction.events:
        iterations = last_logged(mined, *first_position(mined, extraction.table.events[extraction.events[0].tid]))
    symptom = extraction.symptom
    if symptom == "launching_failure" and stage in ("training", "checkpoint"):
        symptom = "training_crash"  # the traceback shows training had begun
    if stage == "training" and any(is_data_pipeline_death(o.text) for ev in events_out[:1] for o in ev.occurrences[:1]):
        stage = "data_loading"  # the step it was in only waited on a batch that never came
    return Diagnosis(
        job=job,
        symptom=symptom,
        stage=stage,
        iterations=iterations,
        faulty_nodes=_launcher_after_its_rank(mined, [
            NodeOut(node=n.node, score=min(n.score, 1.0), reason="; ".join(n.reasons),
                    aliases=node_aliases(mined, n.node, events_out))
            for n in extraction.nodes
        ]),
        events=events_out,
    )


def _launcher_after_its_rank(mined: MinedJob, ranked: list[NodeOut]) -> list[NodeOut]:
    """A console's own lines (srun, the batch script: the stream named after the file) are no
    machine: when they lead because they name a failed host ("srun: error: Node failure on
    dgx130"), the console rank that runs on that host leads instead."""
    if len(ranked) < 2:
        return ranked
    first = mined.nodes.get(ranked[0].node)
    if first is None or first.stream != ranked[0].node.rpartition("/")[2] or first.stream != node_name_for(first.source):
        return ranked
    for i, other in enumerate(ranked[1:], 1):
        log = mined.nodes.get(other.node)
        if log is not None and log.source == first.source and set(other.aliases) & set(ranked[0].aliases[:1]):
            return [other, *ranked[:i], *ranked[i + 1:]]
    # The ranks on a failed host often print nothing at the end (they died with it): the first rank
    # whose own lines name that host (NCCL's "56: gpu-st-p5-19:31119:31119 [0] NCCL INFO ..." under
    # "srun: error: Node failure on gpu-st-p5-19", independent corpus H, c14) is the node that failed.
    if not ranked[0].aliases:
        return ranked
    host = ranked[0].aliases[0]
    ran_there = sorted(
        (name for name, log in mined.nodes.items()
         if name != ranked[0].node and log.source == first.source
         and host in aliases_from([t for samples in log.samples.values() for t in samples], name)),
        key=natural_key,
    )
    if not ran_there:
        return ranked
    return [NodeOut(node=ran_there[0], score=ranked[0].score, reason=f"ran on {host}, which the console reports failed",
                    aliases=[host]), *ranked]


def _traceback_stage(mined: MinedJob, extraction: Extraction, events: list[EventOut]) -> str | None:
    """Without progress lines (an excerpt), the stage the root's traceback names, read from
    the raw lines around the root (the templates lost the function names)."""
    from .extract.stages import FRAME_WINDOW, frame_stage, message_stage

    if extraction.timeline.has_training or not events or not events[0].occurrences:
        return None
    root = events[0].occurrences[0]
    if root.node not in mined.nodes:
        return None
    lo, hi = root.line - FRAME_WINDOW, root.line + FRAME_WINDOW
    texts = mined.line_texts({root.node: set(range(max(lo, 1), hi + 1))})  # stops at hi: never the whole file
    window = sorted((n, text) for (_, n), text in texts.items())
    index = next((i for i, (n, _) in enumerate(window) if n >= root.line), len(window) - 1)
    framed = frame_stage([t for _, t in window], index)
    if framed is not None:
        return framed
    return next((st for ev in events[:3] for o in ev.occurrences[:1] if (st := message_stage(o.text))), None)


def node_aliases(mined: MinedJob, node: str, events: list[EventOut]) -> list[str]:
    """The host/rank names a node's lines carry: its failure-event lines first, then its
    error lines, then any line (one sample per message shape). A console rank also takes
    the host srun names for its task; a job logged in one unsplit file also takes the peers
    its failure lines name as lost (first: the peer, not the reporter, is where to look)."""
    log = mined.nodes.get(node)
    if log is None:
        return []
    event_texts = [o.text for ev in events for o in ev.occurrences[:MAX_TEXTS_PER_EVENT] if o.node == node]
    erring = np.unique(log.template[log.level >= LEVEL_CODES["ERROR"]]).tolist()
    texts = [*event_texts, *(t for tid in erring for t in log.samples.get(tid, ()))]
    texts += [t for samples in log.samples.values() for t in samples]
    names = aliases_from(texts, node)
    rank = re.fullmatch(r"rank(\d+)", node.rpartition("/")[2])
    if rank:
        file_texts = [t for other in mined.nodes.values() if other.source == log.source
                      for samples in other.samples.values() for t in samples]
        host = task_hosts(file_texts).get(int(rank.group(1)))
        if host and host not in names:
            names.insert(0, host)
        if not host and all(re.fullmatch(r"rank\d+", n) for n in names):  # no host of its own
            only = sole_host(file_texts)
            if only and only not in names:
                names.append(only)
    # One file holds the whole job, unsplit: its reporter's lines are all it says of the lost peer.
    # A console split into ranks has the peer as a rank of its own, whose own lines name it.
    if len({other.source for other in mined.nodes.values()}) == 1 and not rank:
        names = [*(p for p in peers_in(texts) if p not in names), *names]
    host = host_folder([other.source for other in mined.nodes.values()], log.source)
    if host and host != node and host not in names:
        names.insert(0, host)
    return names[:MAX_ALIASES]



_KB: list[KnowledgeBase] = []


def knowledge_base() -> KnowledgeBase:
    from .knowledge import KnowledgeBase

    if not _KB:
        _KB.append(KnowledgeBase.open_for_diagnosis())
    return _KB[0]


def gather_evidence(
    diagnosis: Diagnosis, extraction: Extraction, mined: MinedJob, library: KnownFaults | None, kb: KnowledgeBase | None
) -> Evidence:
    """Library matches on the failure-indicating events (root first) and knowledge retrieved
    for the root event: what every reasoner starts from."""
    from .reasoners import Evidence

    evidence = Evidence(diagnosis=diagnosis, extraction=extraction, nodes=sorted(mined.nodes))
    if library is not None:
        evidence.warnings.extend(library.warnings)  # user patterns skipped as unreadable: say so
    sampled = [t for log in mined.nodes.values() for samples in log.samples.values() for t in samples]
    evidence.stack = stackdetect.detect(sampled)
    job_frameworks = stackdetect.frameworks(sampled)
    around = read_root_lines(mined, diagnosis)
    evidence.log_advice, evidence.root_before, evidence.root_after = around.advice, around.before, around.after
    if library is not None:
        seen: set[str] = set()
        for event in diagnosis.events[:MAX_EVENTS_FOR_KNOWLEDGE]:
            texts = [(o.node, o.text) for o in event.occurrences[:20]] or [("", event.template)]
            for match in library.match(texts):
                if match.id not in seen:
                    seen.add(match.id)
                    evidence.library.append(match)
    if kb is not None:
        from .reasoners.offline import SHAPE_DOCS

        for doc_id in [*sorted({m.doc_id for m in evidence.library if m.doc_id}), *SHAPE_DOCS]:
            _add_doc(evidence, kb, doc_id)
        # A doc for the other accelerator stack never advises this job.
        evidence.library = [
            m for m in evidence.library
            if m.doc_id is None or m.doc_id not in evidence.docs
            or stackdetect.fits(evidence.docs[m.doc_id].stack, evidence.stack)
        ]
    if kb is not None and diagnosis.events:
        query_event = _cause_event(diagnosis, evidence)
        query = query_event.occurrences[0].text if query_event.occurrences else query_event.template
        hits = kb.search(query, top=5, stack=None if evidence.stack == "unknown" else evidence.stack)
        # A job that names neither stack gets a stack's doc only when its signature matched
        # the line itself: nearness in wording is no evidence of the hardware.
        evidence.knowledge = [h for h in hits if evidence.stack != "unknown" or h.stack == "any" or h.signature]
        # Nor does wording alone bring in a doc for a framework the job does not run.
        evidence.knowledge = [h for h in evidence.knowledge
                              if h.signature or stackdetect.framework_fits(_components(kb, h.id), job_frameworks)]
        evidence.warnings.extend(n for n in getattr(kb, "notices", []) if n not in evidence.warnings)
        for hit in evidence.knowledge:
            _add_doc(evidence, kb, hit.id)
    return evidence


def _components(kb: KnowledgeBase, doc_id: str) -> list[str]:
    try:
        return list(kb.get(doc_id).components)
    except Exception:  # a user pattern id or a doc removed since: no framework to hold against it
        return []


def _add_doc(evidence: Evidence, kb: KnowledgeBase, doc_id: str) -> None:
    if doc_id in evidence.docs:
        return
    try:
        evidence.docs[doc_id] = kb.get(doc_id)
    except Exception:  # a user pattern id or a doc removed since: no text to add
        return


def _cause_event(diagnosis: Diagnosis, evidence: Evidence) -> EventOut:
    """The event to look up: the root, unless a wrapper doc explains it and a later event
    (the code or exception printed beside it) is not a wrapper too."""
    for event in diagnosis.events[:MAX_EVENTS_FOR_KNOWLEDGE]:
        if not evidence.wrapped_only(event):
            return event
    return diagnosis.events[0]


# Every reported event: the fault is often named last, under the banners that wrap it (MindSpore's
# sync error, a memory-check note and CANN's E*9999 banner above "reason=[hbm Multi-bit ECC error]").
MAX_EVENTS_FOR_KNOWLEDGE = 5
LOST_FILE_FACTOR = 0.7  # each file not read in full (up to three) takes this share of the confidence


def with_read_warnings(diagnosis: Diagnosis, warnings: list[str]) -> Diagnosis:
    """The diagnosis carrying its warnings, its confidence lowered for each file that could not
    be read in full: a verdict reached without a node's lines must never look as sure."""
    lost = [w for w in warnings if is_evidence_loss(w)]
    kept = list(dict.fromkeys([*diagnosis.warnings, *warnings]))
    confidence = diagnosis.confidence
    if lost and confidence is not None:
        confidence = round(confidence * LOST_FILE_FACTOR ** min(len(lost), 3), 2)
        kept.append(f"confidence lowered from {diagnosis.confidence:.0%} to {confidence:.0%}: "
                    f"{len(lost)} file(s) could not be read in full")
    update = {"warnings": kept, "confidence": confidence}
    return diagnosis.model_copy(update=update)


class Shared(Enum):
    """A collaborator left to its process-wide default (loaded once, on first use)."""

    DEFAULT = "default"


SHARED = Shared.DEFAULT


@dataclass
class Run:
    """A diagnosis as ``Diagnoser.run`` gives it: fresh (with its ``analysis``) or from the cache."""

    diagnosis: Diagnosis
    analysis: Analysis | None  # None when the diagnosis came from the cache
    warnings: list[str] = field(default_factory=list)  # met while diagnosing (kept with a cached entry)

    @property
    def cached(self) -> bool:
        return self.analysis is None


class Diagnoser:
    """Diagnoses jobs with its collaborators given as arguments; every default is the CLI's.

    ``library``, ``kb``: the fault library and the knowledge base; ``SHARED`` loads the
    process-wide ones on first use, ``None`` goes without. ``reasoner``: ``auto`` (an LLM
    when an endpoint is configured, else offline), ``offline``, ``llm``, a ``Reasoner``, or
    ``None`` for the extractor's findings only. ``cache``: where ``run`` keeps diagnoses
    (``cache.DiagnosisCache()``; none by default, so a library call writes nothing).
    ``profiles``: normal profiles learned from explicit jobs, reused across calls (default:
    the process's). ``weights``: the extractor's tuning (``agent.extract.Weights``).
    ``prior``: the shipped prior of healthy runs (``agent.prior``), read only when a job has
    no normal jobs; ``SHARED`` loads it on first use (the default while
    ``config.USE_PRIOR_BY_DEFAULT`` is on), ``None`` goes without.
    """

    def __init__(
        self, *, library: FaultLibrary | Shared | None = SHARED, kb: KnowledgeBase | Shared | None = SHARED,
        reasoner: str | Reasoner | None = "auto", cache: DiagnosisCache | None = None,
        profiles: dict[tuple[str, ...], NormalProfile] | None = None, weights: Weights | None = None,
        prior: HealthyPrior | Shared | None = SHARED if USE_PRIOR_BY_DEFAULT else None,
    ) -> None:
        self._library = library
        self._prior = prior
        self._kb = kb
        self._reasoner = reasoner
        self.cache = cache
        self.profiles = _PROFILE_CACHE if profiles is None else profiles
        self.weights = weights

    @property
    def library(self) -> FaultLibrary | None:
        if isinstance(self._library, Shared):
            self._library = fault_library()
        return self._library

    @property
    def prior(self) -> HealthyPrior | None:
        if isinstance(self._prior, Shared):
            from .prior import load_prior

            self._prior = load_prior()
        return self._prior

    @property
    def kb(self) -> KnowledgeBase | None:
        if isinstance(self._kb, Shared):
            self._kb = knowledge_base()
        return self._kb

    @property
    def reasoner(self) -> Reasoner | None:
        """The reasoner, built from its name on first use."""
        if isinstance(self._reasoner, str):
            from .reasoners import get_reasoner

            self._reasoner = get_reasoner(self._reasoner)
        return self._reasoner

    def analyze(
        self, job_path: Path | str, *, normal_jobs: list[Path] | None = None, setting: str | None = None,
        top: int = 10, workers: int | None = None, progress: Progress | None = None, use_pool: bool = True,
    ) -> Analysis:
        """Mine a job against the normal jobs (if any), extract, and reason; never cached."""
        from .extract import extract
        from .extract.weights import DEFAULT_WEIGHTS
        from .library import JobMatches

        warnings: list[str] = []
        t0 = time.perf_counter()
        profile = resolve_profile(setting, normal_jobs, warnings, use_pool=use_pool, profiles=self.profiles)
        t1 = time.perf_counter()
        mined = mine_job(job_path, base=profile.miner if profile else None, workers=workers, progress=progress)
        t2 = time.perf_counter()
        known = JobMatches(self.library) if self.library is not None else None  # one match, read by both stages
        healthy = None
        if (profile is None or not profile.jobs) and self.prior is not None:
            from .prior import known_events

            healthy = known_events(self.prior, mined)  # cold start: what healthy public runs also print
        extraction = extract(mined, profile, known, self.weights or DEFAULT_WEIGHTS, healthy=healthy)
        mined = extraction.mined or mined  # with the times extraction imputed (the extractor copies, never mutates)
        warnings.extend(extraction.warnings)
        t3 = time.perf_counter()
        diagnosis = to_diagnosis(str(job_path), mined, extraction, top)
        t4 = time.perf_counter()
        redacted: int | None = None
        if self._reasoner is not None:
            evidence = gather_evidence(diagnosis, extraction, mined, known, self.kb)
            chosen = self.reasoner
            assert chosen is not None
            diagnosis = chosen.reason(evidence)
            warnings.extend(evidence.warnings)
            if chosen.name != "offline" and diagnosis.reasoner == chosen.name:  # sent, not fallen back
                redacted = getattr(chosen, "redacted_count", None)  # the LLM reasoner counts what it redacted
        diagnosis = with_read_warnings(diagnosis, [*warnings, *mined.warnings])
        t5 = time.perf_counter()
        timings = {
            "normal_profile": t1 - t0, **mined.timings, "extract": t3 - t2, "render_events": t4 - t3, "reason": t5 - t4,
        }
        return Analysis(
            diagnosis=diagnosis,
            mined=mined,
            extraction=extraction,
            timings=timings,
            warnings=diagnosis.warnings,
            redacted=redacted,
        )

    def run(
        self, job_path: Path | str, *, normal_jobs: list[Path] | None = None, setting: str | None = None,
        top: int = 10, workers: int | None = None, progress: Progress | None = None, reuse: bool = True,
    ) -> Run:
        """Diagnose through the cache (when there is one): a cached diagnosis is reused unless
        ``reuse`` is off, and a new one is kept, except a fallback verdict (the endpoint
        failed and the offline one was used), so the next call tries the endpoint again."""
        key = None
        if self.cache is not None and self.reasoner is not None:
            identity = "|".join(str(getattr(self.reasoner, attr, "")) for attr in ("name", "model", "base_url"))
            if self._prior is not None:  # a diagnosis made with the prior is not the one made without it
                identity += "|prior"
            key = self.cache.key(job_path, normal_jobs=normal_jobs, setting=setting, reasoner=f"{identity}|top={top}")
            cached = self.cache.load(key) if reuse else None
            if cached is not None:  # entries written before diagnoses carried warnings keep them beside
                diagnosis = cached.diagnosis.model_copy(update={"warnings": cached.diagnosis.warnings or cached.warnings})
                return Run(diagnosis, None, list(cached.warnings))
        analysis = self.analyze(
            job_path, normal_jobs=normal_jobs or None, setting=setting, top=top, workers=workers, progress=progress
        )
        warnings = list(analysis.warnings)
        chosen = self.reasoner
        if self.cache is not None and key is not None and chosen is not None and analysis.diagnosis.reasoner == chosen.name:
            problem = self.cache.save(key, analysis.diagnosis, analysis.warnings)
            if problem:
                warnings.append(problem)
        return Run(analysis.diagnosis, analysis, warnings)

    def diagnose(self, job_path: Path | str, *, normal_jobs: list[Path] | None = None, setting: str | None = None,
                 top: int = 10, workers: int | None = None) -> Diagnosis:
        """A job's logs in, a ``Diagnosis`` out (through the cache, when there is one)."""
        return self.run(job_path, normal_jobs=normal_jobs, setting=setting, top=top, workers=workers).diagnosis


def analyze(
    job_path: Path | str, *, normal_jobs: list[Path] | None = None, setting: str | None = None, top: int = 10,
    workers: int | None = None, progress: Progress | None = None, use_pool: bool = True, use_library: bool = True,
    reasoner: str | Reasoner | None = "offline", use_prior: bool = USE_PRIOR_BY_DEFAULT,
) -> Analysis:
    """Diagnose a job: mine it against the normal jobs (if any), extract, and reason.

    ``Diagnoser.analyze`` with the shared library and knowledge base (``use_library=False``:
    neither) and the shipped prior of healthy runs (``use_prior=False``: without it)."""
    shared = SHARED if use_library else None
    return Diagnoser(library=shared, kb=shared, reasoner=reasoner, prior=SHARED if use_prior else None).analyze(
        job_path, normal_jobs=normal_jobs, setting=setting, top=top, workers=workers, progress=progress, use_pool=use_pool
    )


def diagnose(
    job_path: Path | str, *, normal_jobs: list[Path] | None = None, setting: str | None = None, top: int = 10,
    workers: int | None = None, reasoner: str | Reasoner = "auto",
) -> Diagnosis:
    """The public entry point: a job's logs in, a ``Diagnosis`` out, with the CLI's defaults.

    ``normal_jobs``: successful jobs of the same setting to compare with; ``setting``: use the
    stored pool of that setting instead; ``top``: at most this many events; ``reasoner``:
    ``auto`` (an LLM when an endpoint is configured, else offline), ``offline``, ``llm``, or
    a ``Reasoner`` object. For injected collaborators (``prior=SHARED``: the shipped prior of
    healthy runs, as `--prior`) or the CLI's cache, use ``Diagnoser``.
    """
    return Diagnoser(reasoner=reasoner).diagnose(job_path, normal_jobs=normal_jobs, setting=setting, top=top, workers=workers)
