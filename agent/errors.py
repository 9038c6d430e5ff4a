"""Errors a user can act on.

Every message says what went wrong and how to fix it; the CLI turns an ``AgentError``
into one line on stderr and exit code 1. Library code raises, never prints or exits.
"""

from __future__ import annotations


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
