"""One settings object: defaults < config file < environment < CLI.

All state (normal-job pool, user fault patterns, caches, the vector store) lives under
``L4_HOME`` (CONTRACTS.md), defaulting to the platform's user data dir, so tests and
scripts can isolate it with one variable. ``Home`` names every path under it, so the
layout is read in one place. Secrets stay ``SecretStr`` so they never reach logs or
reprs, and the rule for which endpoint may receive which key lives here too.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import tomllib
from pydantic import SecretStr

from .errors import ConfigError

CONFIG_FILE_NAME = "config.toml"
OPENAI_URL = "https://api.openai.com/v1"

# A home set by `using_home` for this context: the demo runs in its own, whatever $L4_HOME says.
_HOME_OVERRIDE: ContextVar[Path | None] = ContextVar("l4_home_override", default=None)


def l4_home() -> Path:
    """The state directory: a ``using_home`` override, else $L4_HOME, else the platform's user data dir."""
    override = _HOME_OVERRIDE.get()
    if override is not None:
        return override
    env = os.environ.get("L4_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("l4", appauthor=False))


@contextlib.contextmanager
def using_home(root: Path | str) -> Iterator[Home]:
    """Run a block with all state under ``root`` (never writes to the user's own L4_HOME)."""
    token = _HOME_OVERRIDE.set(Path(root).expanduser())
    try:
        yield home()
    finally:
        _HOME_OVERRIDE.reset(token)


@dataclass(frozen=True)
class Home:
    """The layout of L4_HOME: every path l4 reads or writes there is named here."""

    root: Path

    @property
    def config_file(self) -> Path:
        return self.root / CONFIG_FILE_NAME

    @property
    def pools(self) -> Path:
        """Normal-job pools, one folder per setting (``agent.pools``)."""
        return self.root / "normal"

    def pool(self, setting: str) -> Path:
        return self.pools / setting

    def pool_lock(self, setting: str) -> Path:
        # Beside the pool folder: removing a pool must not remove the lock it holds.
        return self.pools / f".{setting}.lock"

    @property
    def library(self) -> Path:
        """Fault patterns an SRE confirmed (``l4 library confirm``)."""
        return self.root / "library"

    @property
    def cache(self) -> Path:
        """Rebuildable caches: deleting this folder is always safe."""
        return self.root / "cache"

    @property
    def diagnoses(self) -> Path:
        """Cached diagnoses (``agent.cache``)."""
        return self.cache / "diagnoses"

    def knowledge_index(self, content_hash: str) -> Path:
        """The vector store of one version of the knowledge docs."""
        return self.cache / f"kb-{content_hash[:16]}"


# The shipped prior of healthy runs (``agent.prior``) stands in for missing normal jobs unless
# `--no-prior`: matched on the message without its log header, it sets aside launcher banners
# (torchrun's OMP_NUM_THREADS notice) that read as a burst beside the root (README, "Without normal jobs").
USE_PRIOR_BY_DEFAULT = True

def home() -> Home:
    """The current L4_HOME layout (see ``l4_home``)."""
    return Home(l4_home())


def data_dir(name: str) -> Path:
    """A bundled data folder (``prompts`` or ``knowledge``): in the wheel or the source tree."""
    package = Path(__file__).resolve().parent
    for candidate in (package / "_data" / name, package.parent / name):
        if candidate.is_dir():
            return candidate
    raise ConfigError(f"bundled folder {name!r} not found", "reinstall l4-agent (pip install --force-reinstall l4-agent)")


@dataclass
class Settings:
    home: Path = field(default_factory=l4_home)
    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str | None = None
    timeout_s: float = 60.0
    max_retries: int = 2

    @property
    def has_endpoint(self) -> bool:
        return bool(self.base_url or self.api_key)


def _read_config_file(home: Path) -> dict[str, object]:
    path = Home(home).config_file
    if not path.is_file():
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}", "fix the TOML syntax or delete the file") from exc


def load_settings(**cli: object) -> Settings:
    """Merge file, environment and CLI overrides (None means 'not given')."""
    home = l4_home()
    values: dict[str, object] = {}
    file_values = _read_config_file(home)
    for key in ("base_url", "api_key", "model", "timeout_s", "max_retries"):
        if key in file_values:
            values[key] = file_values[key]
    env = os.environ
    env_map = {
        "base_url": env.get("L4_BASE_URL") or env.get("OPENAI_BASE_URL"),
        "api_key": env.get("L4_API_KEY") or env.get("OPENAI_API_KEY"),
        "model": env.get("L4_MODEL"),
    }
    values.update({k: v for k, v in env_map.items() if v})
    values.update({k: v for k, v in cli.items() if v is not None})
    api_key = values.pop("api_key", None)
    settings = Settings(home=home, **values)  # type: ignore[arg-type]
    if api_key:
        settings.api_key = SecretStr(str(api_key))
    return settings


# ------------------------------------------------------------------- the API key rule


def endpoint_host(url: str | None) -> str:
    """The host a request to ``url`` goes to (api.openai.com when none is set)."""
    return (urlparse(url or OPENAI_URL).hostname or "").lower()


def choose_api_key(settings_key: str | None, base_url: str | None, overrides: dict[str, Any]) -> tuple[str | None, str | None]:
    """The key to send to ``base_url`` and, when a key is withheld, why.

    The rule (STYLE point 8, as in simonw/llm's OpenAI plugin): a key *configured for l4*
    (``--api-key``, ``L4_API_KEY``, or ``api_key`` in the config file) is sent to the
    configured endpoint, whatever it is: the user put the two together. A key that only
    comes from ``OPENAI_API_KEY`` is an OpenAI credential lying around in the environment;
    it goes to api.openai.com, or to the server named by ``OPENAI_BASE_URL`` (the pair the
    openai SDK itself would use), never to a custom ``L4_BASE_URL``/config/CLI endpoint,
    where it would leak a billable OpenAI key to a third party. In that case the config
    file's own key, if any, is used instead (the environment shadowed it), else no key.
    """
    env = os.environ
    if not settings_key:
        return None, None
    explicit = overrides.get("api_key") is not None or bool(env.get("L4_API_KEY"))
    ambient = not explicit and settings_key == env.get("OPENAI_API_KEY")
    if not ambient:
        return settings_key, None
    base_from_openai_env = (
        overrides.get("base_url") is None and not env.get("L4_BASE_URL") and bool(env.get("OPENAI_BASE_URL")) and base_url == env.get("OPENAI_BASE_URL")
    )
    if base_url is None or endpoint_host(base_url) == "api.openai.com" or base_from_openai_env:
        return settings_key, None
    file_key = _read_config_file(l4_home()).get("api_key")
    if file_key:
        return str(file_key), None
    why = (
        f"OPENAI_API_KEY was not sent to {endpoint_host(base_url)} (a key from OPENAI_API_KEY only goes to api.openai.com); "
        "set L4_API_KEY if this endpoint needs a key"
    )
    return None, why
