"""The offline command grammar: a question -> a tool call, without a model.

Exact commands (``help`` lists them) and light matching of the common phrasings; anything
else is left to the LLM, or refused with the list of what works offline.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

HELP = """\
Commands that work offline:
  show                        the verdict and the events
  show N                      event N in full (all its lines, bounded)
  events                      the failure-indicating events
  nodes                       the job's nodes, suspects first
  why NODE                    why NODE is (or is not) suspected
  grep PATTERN [on NODE]      regex search (case-insensitive); quote a pattern with spaces
  window NODE:LINE [N]        N lines before and after NODE:LINE (default 5)
  first error on NODE         the first ERROR/CRITICAL line of NODE
  compare NODE                what NODE printed that its peers did not, and the reverse
  iteration N                 what was logged around iteration N
  kb QUERY                    search the knowledge base
  help                        this list
Also understood: "why not worker-3?", "show the lines around the first error on worker-7",
"what changed at iteration 1520?"."""

Command = tuple[str, dict[str, Any]]  # (tool name or "help"/"overview"/"first_error_window", args)

_NODE_RE = r"([\w.@/-]+?)"
_STRICT_RULES: list[tuple[str, Callable[[re.Match[str]], Command]]] = [
    (r"(?:help|\?|commands)", lambda m: ("help", {})),
    (r"show", lambda m: ("overview", {})),
    (r"(?:show|event)\s+(?:event\s+)?#?(\d+)", lambda m: ("show", {"n": int(m[1])})),
    (r"events", lambda m: ("events", {})),
    (r"nodes", lambda m: ("nodes", {})),
    (
        rf"why(?:\s+not)?(?:\s+is)?\s+{_NODE_RE}(?:\s+(?:suspected|singled out|the faulty node|faulty))?",
        lambda m: ("why", {"node": m[1]}),
    ),
    (
        rf"(?:window|context|(?:show\s+)?(?:the\s+)?lines\s+around)\s+{_NODE_RE}:(\d+)(?:\s+(\d+))?",
        lambda m: (
            "window",
            {"node": m[1], "line": int(m[2]), **({"before": int(m[3]), "after": int(m[3])} if m[3] else {})},
        ),
    ),
    (rf"first\s+error\s+(?:on\s+|of\s+)?{_NODE_RE}", lambda m: ("first_error", {"node": m[1]})),
    (rf"compare\s+{_NODE_RE}", lambda m: ("compare", {"node": m[1]})),
    (r"(?:iteration|iter|step)\s+#?(\d+)", lambda m: ("iteration", {"n": int(m[1])})),
    (r"kb\s+(.+)", lambda m: ("kb", {"query": m[1]})),
]
_STRICT = [(re.compile(p, re.IGNORECASE | re.DOTALL), build) for p, build in _STRICT_RULES]
_GREP = re.compile(r"grep\s+(.+)", re.DOTALL | re.IGNORECASE)
_GREP_ON = re.compile(r"^(?P<pattern>.+?)\s+on\s+(?P<node>[\w.@/-]+)$", re.DOTALL)
_QUOTED = re.compile(r"""^(["'])(?P<pattern>.*)\1(?:\s+on\s+(?P<node>[\w.@/-]+))?$""", re.DOTALL)
_ITER_NL = re.compile(r"\b(?:iteration|iter|step)\s*#?\s*(\d+)\b", re.IGNORECASE)
_REF_NL = re.compile(rf"\b(?:around|near|context|before|after)\b.*?{_NODE_RE}:(\d+)\b", re.IGNORECASE)


def _normalise(question: str) -> str:
    return re.sub(r"\s+", " ", question.strip()).rstrip("?!. ").strip()


def parse_command(question: str, node_names: Sequence[str] = ()) -> tuple[Command | None, bool]:
    """The command a question asks for, and whether it was an exact command (vs a phrasing).

    ``node_names`` lets free phrasings find a node mentioned anywhere in the question.
    """
    m = _GREP.fullmatch(question.strip())  # a pattern keeps its spaces and punctuation
    if m:
        return _parse_grep(m[1]), True
    q = _normalise(question)
    for pattern, build in _STRICT:
        m = pattern.fullmatch(q)
        if m:
            return build(m), True
    return _parse_phrase(q, node_names), False


def _parse_grep(rest: str) -> Command:
    rest = rest.strip()
    m = _QUOTED.match(rest)
    if m:
        return "grep", {"pattern": m["pattern"], "node": m["node"]}
    m = _GREP_ON.match(rest)
    if m:
        return "grep", {"pattern": m["pattern"], "node": m["node"]}
    return "grep", {"pattern": rest, "node": None}


def _mentioned_node(q: str, node_names: Sequence[str]) -> str | None:
    """The first known node named in a phrase (longest names first: rank1 vs rank12)."""
    best: tuple[int, str] | None = None
    for name in sorted(node_names, key=len, reverse=True):
        m = re.search(rf"(?<![\w.@/-]){re.escape(name)}(?![\w@/-]|\.\w)", q, re.IGNORECASE)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    return best[1] if best else None


def _parse_phrase(q: str, node_names: Sequence[str]) -> Command | None:
    low = q.lower()
    node = _mentioned_node(q, node_names)
    if "first error" in low and node and re.search(r"\b(around|near|context|lines|before|after)\b", low):
        return "first_error_window", {"node": node}
    m = _REF_NL.search(q)
    if m:
        return "window", {"node": m[1], "line": int(m[2])}
    if re.search(r"\bwhy\b", low) and node:
        return "why", {"node": node}
    m = _ITER_NL.search(q)
    if m:
        return "iteration", {"n": int(m[1])}
    if "first error" in low and node:
        return "first_error", {"node": node}
    if re.search(r"\b(compare|differ|different|difference)\b", low) and node:
        return "compare", {"node": node}
    return None
