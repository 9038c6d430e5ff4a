"""One job log holding several attempts of the same job, as real logs that broke l4 do.

Two real ways a job's files end up with several attempts:

* **agent**: torchrun with ``--max-restarts`` restarts its workers after a failure. Each host's
  agent prints the failure, then ``[default] Worker group FAILED. 3/3 attempts left; will
  restart worker group`` and a new rendezvous (shun-zheng/Doc2EDAG#24), and the workers print
  their start-up again (communicator init, arguments, model build) into the same files. Only
  the last attempt ends with the ChildFailedError report.
* **requeue**: the scheduler runs the whole job script again into the same output file
  (Slurm ``--requeue`` with ``--open-mode=append``; bigscience's chronicles show a job
  restarted on the node that had just failed): the environment dump and the launcher banner
  appear again.

The fault recurs in every attempt (the same node, the same device), or, on a requeue, the
earlier attempts were cancelled healthy and the fault strikes only in the last one. The
attempts share their streams, so every line lands in order in the same files and the label
lists the fault's lines of all attempts.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, replace

from l4synth.catalogue import FaultType
from l4synth.job import Job
from l4synth.stacks import Setting
from l4synth.streams import Result, Shape

MODES = ("agent", "requeue")


@dataclass(frozen=True)
class Restarts:
    """How a case's job was restarted."""

    attempts: int  # 2 or more
    mode: str  # one of MODES
    recur: bool  # the fault strikes in every attempt (else only in the last; requeue only)


def compatible(fault: FaultType, mode: str) -> bool:
    """Faults that can end an attempt the agent or the scheduler restarts after."""
    if fault.outcome in ("silent", "slowdown"):  # a dead node does not rejoin; a slow job is not restarted
        return False
    return mode == "requeue" or fault.subcategory != "scheduling"  # SIGTERM stops the agent itself


def simulate(setting: Setting, shape: Shape, rng: random.Random, fault: FaultType, plan: Restarts) -> Result:
    """Run ``plan.attempts`` attempts of one job into the same streams; the last one fails."""
    share = max(300, shape.lines_per_stream // plan.attempts)
    job: Job | None = None
    iterations: list[int] = []
    result: Result | None = None
    for k in range(1, plan.attempts + 1):
        final = k == plan.attempts
        strikes = plan.recur or final
        attempt_shape = replace(shape, lines_per_stream=share * k)
        if job is None:
            job = Job(setting, attempt_shape, rng, fault if strikes else None)
        else:
            job = _next_attempt(job, attempt_shape, rng, fault if strikes else None, plan.mode)
        if plan.mode == "agent" and not final:
            job.restarts = (k, plan.attempts - 1)
        if not strikes:
            job.cancel_after = rng.randint(8, 25)
        result = job.run(attempt_shape.lines_per_stream)
        iterations += [it for it in result.iterations if it not in iterations]
    assert result is not None
    return replace(result, iterations=iterations)


def _next_attempt(prev: Job, shape: Shape, rng: random.Random, fault: FaultType | None, mode: str) -> Job:
    """The next attempt of ``prev``'s job: the same hosts and files, new worker processes."""
    nxt = copy.copy(prev)
    nxt.shape, nxt.rng, nxt.fault = shape, rng, fault
    nxt._torn, nxt._last = set(), None
    nxt.restarts, nxt.cancel_after = None, None
    nxt.banner = mode == "requeue"
    nxt._eids = fault.event_ids() if fault is not None else {}
    if prev.fault is None:  # the first attempt to strike draws the hit node
        nxt.vars = {}
    streams = prev.streams + ([prev.console] if prev.console is not None else [])
    delay = rng.uniform(5, 40) if mode == "agent" else rng.uniform(120, 3600)
    nxt.t0 = max(st.now for st in streams) + delay
    if prev.last_saved is not None:  # the restarted job loads its last checkpoint
        nxt.job.resume_iter = prev.last_saved
    shift = rng.randint(300, 5000)
    for node in {id(st.node): st.node for st in streams}.values():
        node.pids = [p + shift for p in node.pids]
    return nxt
