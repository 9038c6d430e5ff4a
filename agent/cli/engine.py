"""The --engine options shared by `diagnose`, `parse` and `normal add`: where files are read.

`local` (the default) reads with this machine's cores; `ray` runs each file's scan as a
Ray task (see `agent.engine_ray`), on the cluster at --ray-address or on a private local Ray.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from typing import Annotated

import typer


class EngineChoice(str, Enum):
    local = "local"
    ray = "ray"


EngineOpt = Annotated[
    EngineChoice,
    typer.Option(help="local (this machine's cores) or ray (per-file scans as Ray tasks; pip install 'l4-agent[ray]')."),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option("--ray-address", help="With --engine ray: the cluster (head:6379, ray://head:10001, auto); default a private local Ray."),
]
PathMapOpt = Annotated[
    list[str] | None,
    typer.Option("--path-map", help="With --engine ray: PREFIX=HOST[:PATH] says files under PREFIX are on HOST (at PATH there); repeatable."),
]


@contextmanager
def engine_scope(engine: EngineChoice, address: str | None, path_map: list[str] | None) -> Iterator[None]:
    """Every job mined inside runs on the chosen engine."""
    from ..mining import using_engine

    if engine is EngineChoice.local:
        if address or path_map:
            from ..errors import InputError

            raise InputError("--ray-address and --path-map need --engine ray", "add --engine ray, or drop them")
        yield
        return
    from ..engine_ray import PathMapping, RayEngine

    with using_engine(RayEngine(address=address, path_map=[PathMapping.parse(m) for m in path_map or []])):
        yield
