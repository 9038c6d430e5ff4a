"""Bounded, cited tool output: every log line shown as ``node:line``, clipped and made
terminal-safe, within a character budget per answer, so no tool can flood a terminal or a
model's context."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..mining import LEVEL_CODES

Citation = tuple[str, int]  # (node, 1-based line)

MAX_LINE_CHARS = 240  # one log line as shown; real lines can be 16 kB
MAX_OUTPUT_CHARS = 6_000  # one tool's whole output (~1.5k tokens)
MAX_GREP_HITS = 200
MAX_WINDOW = 50  # lines before/after in a window
MAX_LISTED_NODES = 40
ERROR_LEVEL = LEVEL_CODES["ERROR"]
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """Drop ANSI escapes and control characters (keeping newlines and tabs)."""
    return _CONTROL.sub("", _ANSI.sub("", text))


def clip(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """One line, terminal-safe, at most ``limit`` characters."""
    text = terminal_safe(text.replace("\r", " ").replace("\n", " "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cite(node: str, line: int) -> str:
    return f"{node}:{line}"


@dataclass
class ToolResult:
    """A tool's answer: plain text plus the ``node:line`` citations it contains."""

    text: str
    citations: list[Citation] = field(default_factory=list)

    def __str__(self) -> str:
        return self.text


class Output:
    """Builds a bounded output: lines past the character budget are counted, not kept."""

    def __init__(self, budget: int = MAX_OUTPUT_CHARS) -> None:
        self.lines: list[str] = []
        self.citations: list[Citation] = []
        self.budget = budget
        self.used = 0
        self.dropped = 0

    def add(self, text: str = "") -> None:
        if self.dropped or self.used + len(text) + 1 > self.budget:
            self.dropped += 1
            return
        self.lines.append(text)
        self.used += len(text) + 1

    def log(self, node: str, line: int, text: str, indent: str = "  ", mark: str = "") -> None:
        """A cited log line: ``worker-7:8812  <text>``."""
        before = self.dropped
        self.add(f"{indent}{mark}{cite(node, line)}  {clip(text)}")
        if self.dropped == before:
            self.citations.append((node, line))

    def result(self) -> ToolResult:
        text = "\n".join(self.lines)
        if self.dropped:
            text += f"\n… output truncated ({self.dropped} more line(s)); narrow the question"
        return ToolResult(text, list(dict.fromkeys(self.citations)))


def _short_template(template: str) -> str:
    return clip(re.sub(r"^(?:<TS>\s*)+", "", template), 200)


def _excerpt(body: str, limit: int = 220) -> str:
    lines = [ln.strip() for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "```"))]
    return clip(" ".join(lines), limit)


def _list_names(names: list[str], limit: int = 20) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", … ({len(names) - limit} more)"
