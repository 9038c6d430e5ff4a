"""A chat session over one diagnosed job: commands run locally, other questions go to the
LLM tool loop; answers keep only the ``node:line`` citations the evidence showed."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AgentError
from ..schema import Diagnosis
from .backend import ChatBackend, langchain_backend
from .grammar import HELP, Command, parse_command
from .jobview import KnowledgeSearch
from .output import Citation, terminal_safe
from .tools import JobTools, run_tool

if TYPE_CHECKING:
    from ..config import Settings
    from ..pipeline import Analysis
    from ..prompts import Fence
    from ..redact import Redactor

MAX_TOOL_ROUNDS = 6
MAX_CALLS_PER_ROUND = 8
MAX_HISTORY_TURNS = 12  # past question/answer pairs re-sent to the model
MAX_QUESTION_CHARS = 4_000
MAX_ANSWER_CHARS = 12_000
MAX_FALLBACK_CITATIONS = 20

ENDPOINT_HINT = (
    "set L4_BASE_URL and L4_MODEL (and L4_API_KEY if the endpoint needs one), or the same keys in config.toml"
)


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
        from ..config import load_settings

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
            from ..prompts import Fence, chat_variables, context_text, render
            from ..redact import Redactor
            from ..rootlines import read_root_lines

            self._redactor = Redactor()
            events = self.diagnosis.events
            root = events[0].occurrences[0].text if events and events[0].occurrences else ""
            around = read_root_lines(self.analysis.mined, self.diagnosis) if self.analysis is not None else None
            near = [*around.before, *around.after, *around.advice] if around is not None else []
            self._fence = Fence.new(*(o.text for e in events for o in e.occurrences), *near)
            context = (context_text(root, around.before, around.after, around.advice, self._redactor)
                       if around is not None else "(the logs were not read in this session)")
            variables = chat_variables(
                self.diagnosis,
                redactor=self._redactor,
                fence=self._fence,
                all_nodes=self._node_names(),
                extraction=self.analysis.extraction if self.analysis is not None else None,
                context=context,
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
