"""The chat model behind ``l4 chat``: the one method the loop needs, and langchain's ``ChatOpenAI``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ConfigError
from .tools import TOOL_SPECS

if TYPE_CHECKING:
    from ..config import Settings


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

    model = ChatOpenAI(
        base_url=settings.base_url,
        # A local OpenAI-compatible server may need no key; the client still wants one.
        api_key=settings.api_key or SecretStr("not-needed"),
        model=settings.model,
        timeout=timeout or settings.timeout_s,
        max_retries=settings.max_retries,
    )
    return model.bind_tools(TOOL_SPECS)  # type: ignore[return-value]
