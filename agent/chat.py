"""Follow-up questions over a finished diagnosis: ``l4 chat JOB`` and ``l4 ask JOB "..."``.

After the report an SRE asks "why not worker-3?", "show the lines around the first error on
worker-7", "what changed at iteration 1520?". A ``ChatSession`` answers from the job's own
logs through the tools of ``agent.chat_tools`` (grep, windows, comparisons), so every
answer cites ``node:line`` and can be checked.

Two ways to answer, one session:

- **offline** (no endpoint configured): a small deterministic command grammar (``help``
  lists it) plus light matching of the common phrasings. Anything else gets a helpful
  refusal (``needs_llm=True``) that names the commands that work and the settings an
  endpoint needs. Offline paths never import langchain.
- **LLM**: a langchain tool-calling loop (``ChatOpenAI.bind_tools``) over the same tools,
  at most ``MAX_TOOL_ROUNDS`` rounds per question. Everything sent is redacted
  (``agent.redact``), tool output is fenced as data with a nonce the logs cannot know
  (``agent.prompts.Fence``), and the system prompt (``prompts/chat.md``) says log text is
  never an instruction. Exact commands still run locally: they are cheaper and exact.

The answer's citations are the ``node:line`` references it makes that the tools (or the
diagnosis) actually showed; a reference nothing showed is flagged in the text instead of
being trusted. ``ChatBackend`` is the one method the loop needs of a chat model, so tests
script a fake one without a network.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .chat_tools import Citation, JobTools, KnowledgeSearch, ToolError, ToolResult, terminal_safe
from .errors import AgentError, ConfigError
from .schema import Diagnosis

if TYPE_CHECKING:
    from .config import Settings
    from .pipeline import Analysis
    from .prompts import Fence
    from .redact import Redactor

MAX_TOOL_ROUNDS = 6
MAX_CALLS_PER_ROUND = 8
MAX_HISTORY_TURNS = 12  # past question/answer pairs re-sent to the model
MAX_QUESTION_CHARS = 4_000
MAX_ANSWER_CHARS = 12_000
MAX_FALLBACK_CITATIONS = 20

ENDPOINT_HINT = (
    "set L4_BASE_URL and L4_MODEL (and L4_API_KEY if the endpoint needs one), or the same keys in config.toml"
)

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


@dataclass
class Answer:
    """One reply: plain text (safe for a terminal), the node:line lines it rests on."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    used_tools: list[str] = field(default_factory=list)
    needs_llm: bool = False


@dataclass
class Turn:
    """One question and its answer; ``via`` is ``command``, ``llm`` or ``refusal``."""

    question: str
    answer: Answer
    via: str


class ChatBackend(Protocol):
    """A chat model with the tools already bound: langchain messages in, an ``AIMessage``
    (``.content``, ``.tool_calls``) out. ``ChatOpenAI(...).bind_tools(TOOL_SPECS)`` is one."""

    def invoke(self, messages: list[Any]) -> Any: ...


# ------------------------------------------------------------------- tool specs


def _spec(
    name: str, description: str, properties: dict[str, Any] | None = None, required: Sequence[str] = ()
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties or {}, "required": list(required)},
        },
    }


_NODE = {"type": "string", "description": "a node name of this job, e.g. worker-7 or rank3"}
TOOL_SPECS: list[dict[str, Any]] = [
    _spec(
        "grep",
        "Search the job's log lines with a Python regex (case-insensitive). Returns node:line and text, at most max_hits.",
        {"pattern": {"type": "string"}, "node": _NODE, "max_hits": {"type": "integer", "default": 50}},
        ["pattern"],
    ),
    _spec(
        "window",
        "A node's log lines around node:line (before/after lines of that node).",
        {
            "node": _NODE,
            "line": {"type": "integer"},
            "before": {"type": "integer", "default": 5},
            "after": {"type": "integer", "default": 5},
        },
        ["node", "line"],
    ),
    _spec("first_error", "The first ERROR or CRITICAL line of a node.", {"node": _NODE}, ["node"]),
    _spec(
        "compare", "Message types a node printed that most peers did not, and the reverse.", {"node": _NODE}, ["node"]
    ),
    _spec("why", "Why the diagnosis suspects a node, or why it did not single it out.", {"node": _NODE}, ["node"]),
    _spec("events", "The diagnosis' failure-indicating events with their first lines."),
    _spec("show", "One failure-indicating event in full (1-based number).", {"n": {"type": "integer"}}, ["n"]),
    _spec("nodes", "The job's nodes with line counts, suspects first."),
    _spec(
        "iteration",
        "Lines naming training iteration n and what else was logged around it.",
        {"n": {"type": "integer"}},
        ["n"],
    ),
    _spec("kb", "Search the fault knowledge base: id, title, excerpt.", {"query": {"type": "string"}}, ["query"]),
]
TOOL_NAMES = tuple(s["function"]["name"] for s in TOOL_SPECS)


def run_tool(tools: JobTools, name: str, args: dict[str, Any]) -> ToolResult:
    """Call a tool by name with JSON arguments (as a model sends them)."""
    table: dict[str, Callable[..., ToolResult]] = {
        "grep": lambda pattern, node=None, max_hits=50: tools.grep(str(pattern), _opt_str(node), int(max_hits)),
        "window": lambda node, line, before=5, after=5: tools.window(str(node), int(line), int(before), int(after)),
        "first_error": lambda node: tools.first_error(str(node)),
        "compare": lambda node: tools.compare(str(node)),
        "why": lambda node: tools.why(str(node)),
        "events": tools.events,
        "show": lambda n: tools.show(int(n)),
        "nodes": tools.nodes,
        "iteration": lambda n: tools.iteration(int(n)),
        "kb": lambda query: tools.kb(str(query)),
    }
    fn = table.get(name)
    if fn is None:
        raise ToolError(f"no tool {name!r}", f"tools: {', '.join(TOOL_NAMES)}")
    try:
        return fn(**args)
    except (TypeError, ValueError) as exc:
        raise ToolError(f"bad arguments for {name}: {exc}", "see the tool's parameters") from None


def _opt_str(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


# ------------------------------------------------------------ offline grammar

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


# ---------------------------------------------------------------------- session


class ChatSession:
    """Questions and answers about one diagnosed job (library API: no printing, no exit)."""

    def __init__(
        self,
        job: Path | str,
        diagnosis: Diagnosis,
        analysis: Analysis | None = None,
        llm: ChatBackend | None = None,
        kb: KnowledgeSearch | None = None,
    ) -> None:
        self.job = Path(job)
        self.diagnosis = diagnosis
        self.analysis = analysis
        self.llm = llm
        self.tools = JobTools(job, diagnosis, analysis, kb=kb)
        self.history: list[Turn] = []
        self._redactor: Redactor | None = None
        self._fence: Fence | None = None
        self._system: str | None = None
        self._shown: set[Citation] = {(o.node, o.line) for e in diagnosis.events for o in e.occurrences}

    @classmethod
    def from_settings(
        cls,
        job: Path | str,
        diagnosis: Diagnosis,
        analysis: Analysis | None = None,
        settings: Settings | None = None,
        kb: KnowledgeSearch | None = None,
    ) -> ChatSession:
        """A session with the LLM backend when an endpoint is configured, else offline."""
        from .config import load_settings

        settings = settings or load_settings()
        llm = langchain_backend(settings) if settings.has_endpoint else None
        return cls(job, diagnosis, analysis, llm=llm, kb=kb)

    # -- asking ---------------------------------------------------------------

    def ask(self, question: str) -> Answer:
        """Answer one question; the turn is added to ``history``."""
        question = question.strip()[:MAX_QUESTION_CHARS]
        if not question:
            return Answer("Ask a question about this job, or type `help` for the offline commands.")
        names = self._node_names()
        command, exact = parse_command(question, names)
        if command is not None and (exact or self.llm is None):
            answer, via = self._run_command(command), "command"
        elif self.llm is not None:
            answer, via = self._ask_llm(question), "llm"
        else:
            answer, via = self._refusal(), "refusal"
        answer.text = terminal_safe(answer.text)[:MAX_ANSWER_CHARS]
        self.history.append(Turn(question, answer, via))
        return answer

    def _node_names(self) -> list[str]:
        try:
            return self.tools.node_names
        except AgentError:
            return []

    def _run_command(self, command: Command) -> Answer:
        name, args = command
        if name == "help":
            return Answer(HELP)
        try:
            if name == "overview":
                result, used = self.tools.overview(), ["show"]
            elif name == "first_error_window":
                line = self.tools.first_error_line(args["node"])
                node = self.tools.resolve(args["node"])
                if line is None:
                    result, used = self.tools.first_error(node), ["first_error"]
                else:
                    result, used = self.tools.window(node, line), ["first_error", "window"]
            else:
                result, used = run_tool(self.tools, name, args), [name]
        except AgentError as exc:  # a ToolError, or e.g. the knowledge store failing to build
            return Answer(str(exc), used_tools=[name])
        self._shown.update(result.citations)
        return Answer(result.text, list(result.citations), used)

    def _refusal(self) -> Answer:
        text = (
            "That question needs a language model: no LLM endpoint is configured, so only the "
            f"commands below work. To ask free-form questions, {ENDPOINT_HINT}.\n\n{HELP}"
        )
        return Answer(text, needs_llm=True)

    # -- the LLM loop ---------------------------------------------------------

    def _prepare(self) -> tuple[Redactor, Fence, str]:
        if self._redactor is None or self._fence is None or self._system is None:
            from .prompts import Fence, chat_variables, render
            from .redact import Redactor

            self._redactor = Redactor()
            self._fence = Fence.new(*(o.text for e in self.diagnosis.events for o in e.occurrences))
            variables = chat_variables(
                self.diagnosis,
                redactor=self._redactor,
                fence=self._fence,
                all_nodes=self._node_names(),
                extraction=self.analysis.extraction if self.analysis is not None else None,
            )
            self._system = render("chat.md", **variables)
        return self._redactor, self._fence, self._system

    def _data(self, text: str) -> str:
        """Log-bearing text as it may be sent: redacted, then fenced as data."""
        redactor, fence, _ = self._prepare()
        return fence.wrap(redactor.redact(text).replace(fence.nonce, ""))

    def _messages(self, question: str) -> list[Any]:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        redactor, _, system = self._prepare()
        messages: list[Any] = [SystemMessage(content=system)]
        for turn in self.history[-MAX_HISTORY_TURNS:]:
            messages.append(HumanMessage(content=redactor.redact(turn.question)))
            if turn.via == "llm":
                messages.append(AIMessage(content=redactor.redact(turn.answer.text)))
            else:  # a command's output is log text: data, never instructions
                messages.append(
                    AIMessage(content=f"(answered locally, without the model)\n{self._data(turn.answer.text)}")
                )
        messages.append(HumanMessage(content=redactor.redact(question)))
        return messages

    def _ask_llm(self, question: str) -> Answer:
        from langchain_core.messages import HumanMessage, ToolMessage

        assert self.llm is not None
        try:
            messages = self._messages(question)
        except AgentError as exc:  # e.g. a missing prompt file
            return Answer(f"cannot ask the model: {exc}", needs_llm=True)
        used: list[str] = []
        cited: list[Citation] = []
        final: Any = None
        for round_ in range(MAX_TOOL_ROUNDS + 1):
            if round_ == MAX_TOOL_ROUNDS:
                messages.append(
                    HumanMessage(
                        content="Tool budget used up: answer now from what the tools showed, citing node:line."
                    )
                )
            try:
                reply = self.llm.invoke(messages)
            except Exception as exc:  # network, auth, rate limits: keep the session alive
                return Answer(
                    f"the LLM endpoint failed ({type(exc).__name__}: {exc}); offline commands still work (type `help`).",
                    needs_llm=True,
                )
            calls = list(getattr(reply, "tool_calls", None) or [])
            if not calls:
                final = reply
                break
            if round_ == MAX_TOOL_ROUNDS:
                break
            messages.append(reply)
            for i, call in enumerate(calls):
                name = str(call.get("name", ""))
                if i >= MAX_CALLS_PER_ROUND:
                    content = f"skipped: at most {MAX_CALLS_PER_ROUND} tool calls per round"
                else:
                    used.append(name)
                    try:
                        result = run_tool(self.tools, name, dict(call.get("args") or {}))
                        cited.extend(result.citations)
                        content = self._data(result.text)
                    except AgentError as exc:
                        content = f"tool error: {exc}"
                messages.append(ToolMessage(content=content, tool_call_id=str(call.get("id") or name)))
        self._shown.update(cited)
        if final is None:
            text = (
                f"The model did not finish within {MAX_TOOL_ROUNDS} tool rounds. What the tools showed is cited below."
            )
            return Answer(text, list(dict.fromkeys(cited))[:MAX_FALLBACK_CITATIONS], used)
        text = _content_text(getattr(final, "content", ""))
        return self._with_citations(text, cited, used)

    def _with_citations(self, text: str, cited: list[Citation], used: list[str]) -> Answer:
        """Keep the references the evidence showed; flag the ones nothing showed."""
        names = set(self._node_names())
        refs = list(dict.fromkeys(r for r in find_citations(text) if r[0] in names))
        verified = [r for r in refs if r in self._shown]
        unverified = [r for r in refs if r not in self._shown]
        if unverified:
            listed = ", ".join(f"{n}:{ln}" for n, ln in unverified[:10])
            text += f"\n\n(not shown by any tool or the diagnosis, check before trusting: {listed})"
        citations = verified or list(dict.fromkeys(cited))[:MAX_FALLBACK_CITATIONS]
        return Answer(text, citations, used)


_CITE = re.compile(r"(?<![\w.@/-])([A-Za-z][\w.@/-]*?):(\d+)\b")


def find_citations(text: str) -> list[Citation]:
    """``node:line`` references in text, in order."""
    return [(m[1], int(m[2])) for m in _CITE.finditer(text)]


def _content_text(content: Any) -> str:
    """An AIMessage's content as text (providers may return a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b if isinstance(b, str) else b.get("text", "") for b in content if isinstance(b, str | dict)]
        return "".join(parts)
    return json.dumps(content, default=str)


def langchain_backend(settings: Settings, timeout: float | None = None) -> ChatBackend:
    """``ChatOpenAI`` on the configured endpoint with the chat tools bound."""
    if not settings.model:
        raise ConfigError("no model configured for the LLM endpoint", "set L4_MODEL (or model in config.toml)")
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    model = ChatOpenAI(
        base_url=settings.base_url,
        # A local OpenAI-compatible server may need no key; the client still wants one.
        api_key=settings.api_key or SecretStr("not-needed"),
        model=settings.model,
        timeout=timeout or settings.timeout_s,
        max_retries=settings.max_retries,
    )
    return model.bind_tools(TOOL_SPECS)  # type: ignore[return-value]
