"""Typed records shared by every stage: the vocabulary, labels, and the diagnosis.

The label and diagnosis models mirror ../shared/CONTRACTS.md. Other tools read and
write them, so they only grow compatibly: new fields are optional, unknown fields in
input are rejected (``extra="forbid"``) so a typo never passes silently.
Per-line records live in ``records`` (plain dataclasses: millions are made).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SUBCATEGORIES: dict[str, tuple[str, ...]] = {
    "hardware": ("network", "accelerator", "node", "storage"),
    "user": ("configuration", "script_bug", "software_incompatibility", "misoperation"),
    "framework": ("framework_bug",),
    "platform": ("resource_management", "scheduling", "platform_configuration"),
    "unknown": ("unknown",),
}
CATEGORIES: tuple[str, ...] = tuple(SUBCATEGORIES)
SYMPTOMS: tuple[str, ...] = (
    "launching_failure",
    "training_crash",
    "abnormal_behavior",
    "others",
    "unknown",
)
STAGES: tuple[str, ...] = ("init", "model_loading", "data_loading", "training", "checkpoint", "unknown")
STACKS: tuple[str, ...] = ("cuda", "ascend", "any")

Category = Literal["hardware", "user", "framework", "platform", "unknown"]
Symptom = Literal["launching_failure", "training_crash", "abnormal_behavior", "others", "unknown"]
Stage = Literal["init", "model_loading", "data_loading", "training", "checkpoint", "unknown"]

LABEL_SCHEMA = "l4-label/1"
DIAGNOSIS_SCHEMA = "l4-diagnosis/1"


def subcategory_of(category: str, subcategory: str) -> None:
    """Raise ValueError when the subcategory does not belong to the category."""
    allowed = SUBCATEGORIES.get(category)
    if allowed is None:
        raise ValueError(f"unknown category {category!r}; expected one of {', '.join(CATEGORIES)}")
    if subcategory not in allowed:
        raise ValueError(f"subcategory {subcategory!r} is not under {category!r}; expected one of {', '.join(allowed)}")




# ---------------------------------------------------------------- labels (l4-label/1)


class FaultEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    text: str
    lines: dict[str, list[int]]


class Label(BaseModel):
    """Ground truth of one labeled failure case (label.json)."""

    model_config = ConfigDict(extra="forbid")

    schema_: Literal["l4-label/1"] = Field("l4-label/1", alias="schema")
    setting: str
    stack: Literal["cuda", "ascend", "any"]
    category: Category
    subcategory: str
    symptom: Symptom
    faulty_nodes: list[str]
    stage: Stage
    iterations: list[int]
    fault_events: list[FaultEvent]
    root_cause: str
    remediation: str
    # Optional extensions (compatible with l4-label/1).
    fault_type: str | None = None
    source: str | None = None  # where a real log came from (owner/repo#123, repo:path@commit, a URL)
    accept: list[str] | None = None  # every defensible "category/subcategory", the primary first
    hosts: list[str] = []  # exact substrings of the log that name the faulty node(s)

    @model_validator(mode="after")
    def _check_subcategory(self) -> Label:
        subcategory_of(self.category, self.subcategory)
        for reading in self.accept or ():
            category, _, subcategory = reading.partition("/")
            subcategory_of(category, subcategory)
        if self.accept and self.accept[0] != self.primary:
            raise ValueError(f"accept must start with the primary reading {self.primary!r}, not {self.accept[0]!r}")
        return self

    @property
    def primary(self) -> str:
        return f"{self.category}/{self.subcategory}"


# ---------------------------------------------------------- diagnosis (l4-diagnosis/1)


class Occurrence(BaseModel):
    node: str
    line: int
    text: str


class EventOut(BaseModel):
    template: str
    score: float
    reasons: list[str] = []
    occurrences: list[Occurrence] = []
    occurrences_truncated: bool | None = None


class NodeOut(BaseModel):
    node: str
    score: float
    reason: str
    aliases: list[str] = []  # other names the logs call this node by: hosts, IPs, global ranks

    @property
    def display(self) -> str:
        """The name an SRE acts on first: the host the lines name, with l4's node name beside it."""
        return f"{self.aliases[0]} ({self.node})" if self.aliases else self.node


class KnowledgeRef(BaseModel):
    id: str
    title: str
    score: float


class Diagnosis(BaseModel):
    """What `l4 diagnose --format json` prints; every rendering reads this."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["l4-diagnosis/1"] = Field("l4-diagnosis/1", alias="schema")
    job: str
    category: Category = "unknown"
    subcategory: str = "unknown"
    symptom: Symptom = "unknown"
    stage: Stage = "unknown"
    iterations: list[int] = []
    faulty_nodes: list[NodeOut] = []
    events: list[EventOut] = []
    root_cause: str = "unknown"
    remediation: list[str] = []
    confidence: float | None = None
    knowledge: list[KnowledgeRef] = []
    collect_next: list[str] = []
    reasoner: str = "offline"
    warnings: list[str] = []  # what limited this diagnosis (files skipped or cut short, clock steps)

    @field_validator("subcategory")
    @classmethod
    def _known_subcategory(cls, value: str) -> str:
        if not any(value in subs for subs in SUBCATEGORIES.values()):
            raise ValueError(f"unknown subcategory {value!r}")
        return value

    def to_json_dict(self) -> dict[str, object]:
        return self.model_dump(by_alias=True, exclude_none=False, mode="json")
