"""The fault catalogue: every failure the generator can inject, with its ground truth.

A fault type is data: where in the taxonomy it sits, which stage it strikes in, how it
plays out (crash, hang, slowdown, or a node that silently disappears), which nodes it
hits, and the lines the hit nodes print. Lines marked ``event`` are the
failure-indicating messages the label lists; the rest are context that real logs
print around them (traceback frames, ``-> 6`` return-code chains). How the rest of the
job reacts (peer timeouts, launcher teardown) is generic and lives in ``cascades.py``.

Templates are ``str.format`` strings over the variables ``job.py`` supplies: the hit
rank's ``rank dev pid host ip bus iter``, its ring peer's ``peer_rank peer_ip``, job
facts ``world tp pp layers ckpt data tok script``, and random ``n1 n2 n3 h1``.
Messages of kind ``plog`` are ``MODULE|file:line|text``; of kind ``ecode`` ``CODE|text``.
"""

from __future__ import annotations

from agent.schema import SUBCATEGORIES
from l4synth.fault_types import FaultType, Line
from l4synth.faults_hardware import HARDWARE
from l4synth.faults_software import SOFTWARE

__all__ = ["BY_ID", "FAULTS", "FaultType", "Line"]

FAULTS: tuple[FaultType, ...] = (*HARDWARE, *SOFTWARE)

BY_ID: dict[str, FaultType] = {f.id: f for f in FAULTS}


def _validate() -> None:
    for f in FAULTS:
        assert f.subcategory in SUBCATEGORIES[f.category], f.id
        assert f.lines or f.peer_lines, f.id


_validate()
