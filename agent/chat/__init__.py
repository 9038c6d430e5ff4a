"""Follow-up questions over a finished diagnosis: ``l4 chat JOB`` and ``l4 ask JOB "..."``.

After the report an SRE asks "why not worker-3?", "show the lines around the first error on
worker-7", "what changed at iteration 1520?". A ``ChatSession`` answers from the job's own
logs through the tools of ``agent.chat.tools`` (grep, windows, comparisons), so every
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

Modules: ``output`` (bounded, cited text), ``jobview`` (reading the job), ``tools`` (the
tools), ``grammar`` (offline phrasing -> tool call), ``session`` (the session and the LLM
loop), ``backend`` (langchain).
"""

from __future__ import annotations

from .backend import ChatBackend, langchain_backend
from .grammar import HELP, Command, parse_command
from .jobview import JobView, KnowledgeSearch
from .output import MAX_LINE_CHARS, MAX_OUTPUT_CHARS, Citation, ToolResult, terminal_safe
from .session import (
    ENDPOINT_HINT,
    MAX_CALLS_PER_ROUND,
    MAX_TOOL_ROUNDS,
    Answer,
    ChatSession,
    Turn,
    find_citations,
)
from .tools import TOOL_NAMES, TOOL_SPECS, JobTools, run_tool

__all__ = [
    "ENDPOINT_HINT", "HELP", "MAX_CALLS_PER_ROUND", "MAX_LINE_CHARS", "MAX_OUTPUT_CHARS", "MAX_TOOL_ROUNDS",
    "TOOL_NAMES", "TOOL_SPECS", "Answer", "ChatBackend", "ChatSession", "Citation", "Command", "JobTools",
    "JobView", "KnowledgeSearch", "ToolResult", "Turn", "find_citations", "langchain_backend", "parse_command",
    "run_tool", "terminal_safe",
]
