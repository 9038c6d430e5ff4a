"""What a simulated job produces: its streams (one per future log file), the result of a
run, and the planned size of a job. Shared by ``job`` and ``cascades``."""

from __future__ import annotations

from dataclasses import dataclass, field

from l4synth.style import Node


@dataclass
class Stream:
    node: Node
    lines: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    events: dict[str, list[int]] = field(default_factory=dict)  # event id -> 0-based line indices
    origin: list[int | None] = field(default_factory=list)  # the rank that printed each line (None: shell, agent, kernel)
    dead: bool = False

    @property
    def now(self) -> float:
        return self.times[-1] if self.times else 0.0


@dataclass
class Result:
    streams: list[Stream]
    console: Stream | None  # launcher output of a combined console log
    hit: list[int]  # indices of the streams the fault struck
    faulty: list[int]  # streams labeled faulty (node-local faults only)
    iterations: list[int]
    event_texts: dict[str, str]
    vars: dict[str, object]


@dataclass(frozen=True)
class Shape:
    """Size of one job: hosts, ranks per stream, planned length."""

    hosts: int
    lines_per_stream: int
    seed_offset: float  # start delay after the setting's base time (seconds)
    max_lines: int = 50000  # no file grows past this
