"""One settings object: defaults < config file < environment < CLI.

All state (normal-job pool, user fault patterns, caches, the vector store) lives under
``L4_HOME`` (CONTRACTS.md), defaulting to the platform's user data dir, so tests and
scripts can isolate it with one variable. Secrets stay ``SecretStr`` so they never reach
logs or reprs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import tomllib
from pydantic import SecretStr

from .errors import ConfigError

CONFIG_FILE_NAME = "config.toml"


def l4_home() -> Path:
    """The state directory: $L4_HOME, else the platform's user data dir."""
    env = os.environ.get("L4_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("l4", appauthor=False))


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
    path = home / CONFIG_FILE_NAME
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
