"""Errors a user can act on: every error class of ``agent`` is here.

Every message says what went wrong and how to fix it; the CLI turns an ``AgentError``
into one line on stderr and exit code 1. Library code raises, never prints or exits.
"""

from __future__ import annotations

from collections.abc import Sequence


class AgentError(Exception):
    """Base of every error meant for the user."""

    def __init__(self, what: str, fix: str | None = None) -> None:
        self.what = what
        self.fix = fix
        super().__init__(f"{what} — {fix}" if fix else what)


class InputError(AgentError):
    """The job or dataset given cannot be read as logs."""


class ConfigError(AgentError):
    """A setting is missing or invalid."""


class DatasetError(AgentError):
    """A labeled dataset is malformed."""


class NotNormalError(InputError):
    """A job offered to a normal-job pool shows signs of a failure (it would hide that failure)."""


class KnowledgeError(AgentError):
    """A knowledge doc or the knowledge store cannot be used."""


class LibraryError(AgentError):
    """A fault-library operation cannot be done (bad pattern, unknown id, bad user file)."""


class PromptError(AgentError):
    """A prompt file is missing or cannot be rendered with the given variables."""


class ToolError(AgentError):
    """A chat tool cannot answer as asked; the message says what would work."""


class AnswerError(AgentError):
    """The model's reply is not a usable answer (after the repair round)."""

    def __init__(self, errors: Sequence[str]) -> None:
        self.errors = list(errors)
        super().__init__("; ".join(self.errors))
