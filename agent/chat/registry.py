"""One tool registry: a tool is a method marked ``@tool``, and everything else is derived.

Its spec for the OpenAI tools API (name, description, JSON-schema parameters) comes from
the method's name, the first paragraph of its docstring and its annotated signature, and
the dispatcher checks and converts a model's JSON arguments against that same spec. So
the spec the model sees, the call that runs and the code cannot drift apart (the idea of
simonw/llm's ``Tool.function``). Keyword-only parameters are knobs for local callers and
tests; they are not offered to the model.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from ..errors import ToolError

Node = Annotated[str, "a node name of this job, e.g. worker-7 or rank3"]

_JSON_TYPES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_MARK = "__l4_tool__"


def tool(method: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a method as a tool the model (and the offline grammar) may call."""
    setattr(method, _MARK, True)
    return method


@dataclass(frozen=True)
class Param:
    name: str
    type: type
    optional: bool  # None is a valid value (an omitted node means every node)
    required: bool
    default: Any
    description: str | None


@dataclass(frozen=True)
class Tool:
    """A tool as the model sees it, and how to call it."""

    name: str
    description: str
    params: tuple[Param, ...]

    @property
    def spec(self) -> dict[str, Any]:
        """The OpenAI tools-API entry (``{"type": "function", "function": {...}}``)."""
        properties: dict[str, Any] = {}
        for p in self.params:
            prop: dict[str, Any] = {"type": _JSON_TYPES[p.type]}
            if p.description:
                prop["description"] = p.description
            if not p.required and p.default is not None:
                prop["default"] = p.default
            properties[p.name] = prop
        parameters = {"type": "object", "properties": properties, "required": [p.name for p in self.params if p.required]}
        return {"type": "function", "function": {"name": self.name, "description": self.description, "parameters": parameters}}

    def call(self, owner: object, args: dict[str, Any]) -> Any:
        """Run the tool on ``owner`` with a model's JSON arguments, converted to the declared types."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(args) - set(known))
        missing = [p.name for p in self.params if p.required and p.name not in args]
        if unknown or missing:
            problem = f"unexpected {', '.join(unknown)}" if unknown else f"missing {', '.join(missing)}"
            raise ToolError(f"bad arguments for {self.name}: {problem}", "see the tool's parameters")
        try:
            converted = {name: _convert(known[name], value) for name, value in args.items()}
        except (TypeError, ValueError) as exc:
            raise ToolError(f"bad arguments for {self.name}: {exc}", "see the tool's parameters") from None
        return getattr(owner, self.name)(**converted)


def _convert(param: Param, value: Any) -> Any:
    if param.optional and value in (None, ""):
        return None
    return param.type(value)


def tools_of(cls: type) -> dict[str, Tool]:
    """The marked methods of ``cls`` (and its bases) as tools, in definition order."""
    found: dict[str, Tool] = {}
    for klass in reversed(cls.__mro__):
        for name, member in vars(klass).items():
            if getattr(member, _MARK, False):
                found[name] = _describe(name, member)
    return found


def _describe(name: str, method: Callable[..., Any]) -> Tool:
    doc = inspect.getdoc(method) or ""
    description = " ".join(doc.split("\n\n", 1)[0].split())
    if not description:
        raise TypeError(f"tool {name} needs a docstring: its first paragraph is what the model reads")
    hints = typing.get_type_hints(method, include_extras=True)
    params: list[Param] = []
    for p in inspect.signature(method).parameters.values():
        if p.name == "self" or p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
            continue  # keyword-only: a local knob, not offered to the model
        base, optional, note = _unwrap(hints[p.name])
        if base not in _JSON_TYPES:
            raise TypeError(f"tool {name}: parameter {p.name} has type {base!r}, not one of str, int, float, bool")
        has_default = p.default is not inspect.Parameter.empty
        params.append(Param(p.name, base, optional, not has_default, p.default if has_default else None, note))
    return Tool(name, description, tuple(params))


def _unwrap(hint: Any) -> tuple[type, bool, str | None]:
    """(base type, None allowed, description) of ``Annotated[X | None, "description"]``."""
    note: str | None = None
    if typing.get_origin(hint) is Annotated:
        hint, *extras = typing.get_args(hint)
        note = next((e for e in extras if isinstance(e, str)), None)
    optional = False
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        optional = len(members) < len(typing.get_args(hint))
        hint = members[0] if len(members) == 1 else hint
        if typing.get_origin(hint) is Annotated:
            hint, *extras = typing.get_args(hint)
            note = note or next((e for e in extras if isinstance(e, str)), None)
    return hint, optional, note
