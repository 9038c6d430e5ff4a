"""The chat model behind ``l4 chat``: the one method the loop needs, and langchain's ``ChatOpenAI``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from ..config import choose_api_key
from ..errors import ConfigError
from .tools import TOOL_SPECS

if TYPE_CHECKING:
    from ..config import Settings

log = logging.getLogger(__name__)


class ChatBackend(Protocol):
    """A chat model with the tools already bound: langchain messages in, an ``AIMessage``
    (``.content``, ``.tool_calls``) out. ``ChatOpenAI(...).bind_tools(TOOL_SPECS)`` is one."""

    def invoke(self, messages: list[Any]) -> Any: ...


def langchain_backend(settings: Settings, timeout: float | None = None) -> ChatBackend:
    """``ChatOpenAI`` on the configured endpoint with the chat tools bound."""
    if not settings.model:
        raise ConfigError("no model configured for the LLM endpoint", "set L4_MODEL (or model in config.toml)")
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    # The one key rule (config.choose_api_key): an OPENAI_API_KEY never goes to another host.
    raw = settings.api_key.get_secret_value() if settings.api_key else None
    key, note = choose_api_key(raw, settings.base_url, {})
    if note:
        log.warning(note)
    model = ChatOpenAI(
        base_url=settings.base_url,
        # A local OpenAI-compatible server may need no key; the client still wants one.
        api_key=SecretStr(key or "not-needed"),
        model=settings.model,
        timeout=timeout or settings.timeout_s,
        max_retries=settings.max_retries,
    )
    return model.bind_tools(TOOL_SPECS)  # type: ignore[return-value]
