"""The LLM reasoner: one structured call to any OpenAI-compatible endpoint.

The statistics find *where* a job failed (events, nodes, iteration); a model reads those
few lines with the retrieved knowledge and says *why*, in the Diagnosis vocabulary. The
call is made safe and checkable rather than clever:

- Everything sent is redacted (``agent.redact``) and the log text sits inside a fence with a
  random nonce, under a system rule that fenced text is data, never instructions.
- The reply is parsed leniently (fences, leading prose) but validated strictly against
  ``Answer``: vocabulary, nodes that exist, knowledge ids that were offered. One repair
  round sends the validation errors back; after that, or on any error, the offline
  reasoner answers and a one-line warning says why. ``l4`` never fails because a model did.
- The model fills in the verdict only: category, cause, remediation, confidence, and the
  order of suspect nodes. Events, occurrences, stage and iterations stay the extractor's.

Why the plain ``openai`` client and not LangChain (named in the design card): this is a
single request with a JSON reply, our own validation and retry policy; the ``openai``
client speaks to every OpenAI-compatible server (vLLM, Ollama, LiteLLM, Azure-style
gateways) with one small dependency and nothing hidden between us and the HTTP call.
LangChain earns its place in ``l4 chat``, whose tool loop it runs.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..config import OPENAI_URL, choose_api_key, endpoint_host
from ..errors import AnswerError, ConfigError
from ..schema import SUBCATEGORIES, Category, Diagnosis, KnowledgeRef, NodeOut, Symptom, subcategory_of
from . import Evidence, Reasoner

if TYPE_CHECKING:
    from openai import OpenAI

    from ..redact import Redactor

log = logging.getLogger(__name__)

PLACEHOLDER_KEY = "not-needed"  # the client requires a key; servers without auth ignore it
MAX_BACKOFF_S = 8.0
_SETTINGS_KEYS = ("base_url", "api_key", "model", "timeout_s", "max_retries")


# ------------------------------------------------------------------------ the reply

_ALL_SUBCATEGORIES: list[Any] = sorted({s for subs in SUBCATEGORIES.values() for s in subs})


class Answer(BaseModel):
    """What the model must reply; validated with the allowed nodes and knowledge ids as context."""

    model_config = ConfigDict(extra="ignore")  # tolerate harmless extras ("reasoning": ...)

    category: Category
    subcategory: str = Field(json_schema_extra={"enum": _ALL_SUBCATEGORIES})
    symptom: Symptom | None = None
    symptom_reason: str | None = None
    faulty_nodes: list[str] = []
    root_cause: str = Field(min_length=1)
    remediation: list[str] = []
    collect_next: list[str] = []
    confidence: float = Field(ge=0.0, le=1.0)
    knowledge: list[str] = []

    @field_validator("faulty_nodes", "knowledge", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        # Accept [{"node": "w3", ...}] or [{"id": ...}] as well as plain names.
        if isinstance(value, list):
            return [v.get("node", v.get("id", v)) if isinstance(v, dict) else v for v in value]
        return value

    @field_validator("remediation", "collect_next", mode="before")
    @classmethod
    def _steps(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("remediation", "collect_next")
    @classmethod
    def _non_empty(cls, value: list[str]) -> list[str]:
        return [s.strip() for s in value if s.strip()]

    @field_validator("faulty_nodes")
    @classmethod
    def _known_nodes(cls, value: list[str], info: ValidationInfo) -> list[str]:
        allowed = (info.context or {}).get("nodes")
        if allowed is not None:
            unknown = [n for n in value if n not in allowed]
            if unknown:
                raise ValueError(f"node(s) {', '.join(map(repr, unknown))} do not exist in this job; name only nodes from the evidence")
        return list(dict.fromkeys(value))

    @field_validator("knowledge")
    @classmethod
    def _known_ids(cls, value: list[str], info: ValidationInfo) -> list[str]:
        allowed = (info.context or {}).get("knowledge_ids")
        if allowed is not None:
            unknown = [k for k in value if k not in allowed]
            if unknown:
                raise ValueError(f"knowledge id(s) {', '.join(map(repr, unknown))} were not offered; use only the id= values listed")
        return list(dict.fromkeys(value))

    @model_validator(mode="after")
    def _consistent(self) -> Answer:
        subcategory_of(self.category, self.subcategory)
        return self


def answer_schema() -> dict[str, Any]:
    """The JSON schema of ``Answer`` as shown to the model (titles and docstring removed)."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("title", "description")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(Answer.model_json_schema())


_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_CODE_FENCE = re.compile(r"```[A-Za-z]*\s*\n?(.*?)```", re.DOTALL)


def parse_reply(text: str) -> dict[str, Any]:
    """The JSON object in a reply: bare, in a Markdown fence, or after some prose."""
    text = _THINK.sub("", text).strip()
    candidates: list[Any] = []
    try:
        candidates.append(json.loads(text))
    except json.JSONDecodeError:
        candidates += [_loads(m.group(1)) for m in _CODE_FENCE.finditer(text)]
        decoder = json.JSONDecoder()
        for i, m in enumerate(re.finditer(r"\{", text)):
            if i >= 50:
                break
            try:
                candidates.append(decoder.raw_decode(text, m.start())[0])
            except json.JSONDecodeError:
                continue
    objects = [c for c in candidates if isinstance(c, dict)]
    if not objects:
        raise AnswerError(["the reply is not a JSON object; reply with one JSON object only"])
    return next((o for o in objects if "category" in o), objects[0])


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def validate_reply(text: str, nodes: Sequence[str], knowledge_ids: Sequence[str]) -> Answer:
    """Parse and validate a reply; ``AnswerError`` lists every problem found."""
    data = parse_reply(text)
    try:
        return Answer.model_validate(data, context={"nodes": set(nodes), "knowledge_ids": set(knowledge_ids)})
    except ValidationError as exc:
        errors = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "(reply)"
            errors.append(f"{loc}: {err['msg']}")
        raise AnswerError(errors) from exc


# ------------------------------------------------------------------------ the reasoner


class LLMReasoner:
    """Diagnose with an OpenAI-compatible chat model; fall back to the offline reasoner."""

    def __init__(
        self,
        base_url: str | None,
        api_key: str | SecretStr | None,
        model: str,
        timeout_s: float = 60.0,
        max_retries: int = 2,
        redact: bool = True,
        offline: Reasoner | None = None,
        *,
        backoff_s: float = 0.5,
        temperature: float | None = None,
        redact_emails: bool = False,
        redact_ips: bool = False,
        key_note: str | None = None,
    ) -> None:
        self.base_url = (base_url or OPENAI_URL).rstrip("/")
        self._api_key = api_key if isinstance(api_key, SecretStr) or api_key is None else SecretStr(api_key)
        self.model = model
        self.name = f"llm:{model}"
        self.timeout_s = float(timeout_s)
        self.max_retries = max(0, int(max_retries))  # retries after the first attempt
        self.redact = redact
        self.backoff_s = backoff_s
        self.temperature = temperature
        self.redact_emails = redact_emails
        self.redact_ips = redact_ips
        self.key_note = key_note  # why a key was withheld (see choose_api_key), for error messages
        self._offline = offline
        self._client: OpenAI | None = None
        self._json_mode: bool | None = None  # None until the server accepted or rejected response_format
        # What happened on the last reason() call, for tests and --verbose.
        self.last_request: list[dict[str, str]] | None = None  # the exact messages of the last HTTP call
        self.requests: list[list[dict[str, str]]] = []  # every call's messages
        self.last_response: str | None = None
        self.redacted_count = 0
        self.redaction_counts: dict[str, int] = {}

    @classmethod
    def from_settings(cls, **overrides: Any) -> LLMReasoner:
        """Build from ``load_settings()`` (overrides win); ``ConfigError`` when nothing is configured."""
        from ..config import load_settings

        given = {k: overrides.pop(k) for k in _SETTINGS_KEYS if k in overrides}
        settings = load_settings(**given)
        if not settings.has_endpoint:
            raise ConfigError(
                "no LLM endpoint configured",
                "set L4_BASE_URL (plus L4_API_KEY if the server needs one) and L4_MODEL, or OPENAI_API_KEY for "
                "api.openai.com; or use --reasoner offline",
            )
        if not settings.model:
            raise ConfigError("no LLM model configured", "set L4_MODEL (for example L4_MODEL=gpt-4o-mini) or pass --model")
        raw_key = settings.api_key.get_secret_value() if settings.api_key else None
        key, note = choose_api_key(raw_key, settings.base_url, given)
        if note:
            log.warning(note)
        return cls(
            settings.base_url,
            key,
            settings.model,
            timeout_s=settings.timeout_s,
            max_retries=settings.max_retries,
            key_note=note,
            **overrides,
        )

    # -- the flow

    def reason(self, evidence: Evidence) -> Diagnosis:
        """The model's verdict merged into the evidence; the offline verdict on any failure."""
        from ..redact import Redactor

        self.requests, self.last_request, self.last_response = [], None, None
        redactor = Redactor(emails=self.redact_emails, ips=self.redact_ips) if self.redact else None
        try:
            return self._reason(evidence, redactor)
        except Exception as exc:  # any failure of the model path falls back; the reason is reported
            why = self._why(exc)
            if redactor is not None:
                why = redactor.redact(why)
            log.warning("LLM reasoner failed: %s", why)
            evidence.warnings.append(f"LLM reasoner ({self.model}) failed: {why}; used the offline verdict")
            return self._fallback().reason(evidence)
        finally:
            self.redacted_count = redactor.count if redactor else 0
            self.redaction_counts = dict(redactor.counts) if redactor else {}

    def _reason(self, evidence: Evidence, redactor: Redactor | None) -> Diagnosis:
        messages, nodes, items = self.build_messages(evidence, redactor)
        ids = [k.id for k in items]
        offered = {k.id: (k.title, k.score) for k in items}
        for doc_id, doc in evidence.docs.items():  # docs the pipeline attached but the prompt did not list
            offered.setdefault(doc_id, (doc.title, 0.0))
        reply = self._call(messages)
        try:
            answer = validate_reply(reply, nodes, list(offered))
        except AnswerError as first:
            log.info("LLM reply invalid (%s); asking once for a repair", first)
            from ..prompts import render

            errors = "\n".join(f"- {e}" for e in first.errors)
            repair = render("repair.md", errors=errors, knowledge_ids=", ".join(ids) or "(none)")
            messages = [
                *messages,
                {"role": "assistant", "content": reply},
                {"role": "user", "content": redactor.redact(repair) if redactor else repair},
            ]
            reply = self._call(messages)
            try:
                answer = validate_reply(reply, nodes, list(offered))
            except AnswerError as second:
                raise AnswerError([f"invalid reply after one repair: {e}" for e in second.errors]) from second
        return merge(evidence, answer, self.name, offered)

    def build_messages(self, evidence: Evidence, redactor: Redactor | None) -> tuple[list[dict[str, str]], list[str], list[Any]]:
        """The system and user messages, the nodes a reply may name, and the knowledge offered."""
        from ..prompts import (
            Fence,
            context_text,
            events_text,
            knowledge_items,
            knowledge_text,
            library_text,
            nodes_text,
            render,
            signals_text,
            vocabulary_text,
        )

        d = evidence.diagnosis
        nodes = list(evidence.nodes) or list(
            dict.fromkeys([*(n.node for n in d.faulty_nodes), *(o.node for e in d.events for o in e.occurrences)])
        )
        raw = [o.text for e in d.events for o in e.occurrences] + [s for m in evidence.library for s in m.samples]
        raw += [*evidence.root_before, *evidence.root_after, *evidence.log_advice]
        root = d.events[0].occurrences[0].text if d.events and d.events[0].occurrences else ""
        fence = Fence.new(d.job, *raw, *(e.template for e in d.events))
        items = knowledge_items(evidence.knowledge, evidence.docs, evidence.library)
        system = render("system.md", **fence.variables())
        user = render(
            "diagnose.md",
            **fence.variables(),
            signals=signals_text(d, evidence.extraction, redactor),
            events=events_text(d, redactor),
            nodes=nodes_text(d, nodes, redactor),
            library=library_text(evidence.library, redactor),
            context=context_text(root, evidence.root_before, evidence.root_after, evidence.log_advice, redactor),
            knowledge=knowledge_text(items, redactor),
            vocabulary=vocabulary_text(),
            schema=json.dumps(answer_schema(), separators=(",", ":")),
        )
        if redactor is not None:  # a final pass over everything, for text that reached no formatter
            system, user = redactor.redact(system), redactor.redact(user)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        return messages, nodes, items

    # -- the HTTP call

    def _client_(self) -> OpenAI:
        if self._client is None:
            from openai import OpenAI

            key = self._api_key.get_secret_value() if self._api_key else PLACEHOLDER_KEY
            # max_retries=0: our own loop retries, with a bound and backoff we control and test.
            self._client = OpenAI(base_url=self.base_url, api_key=key, timeout=self.timeout_s, max_retries=0)
        return self._client

    def _call(self, messages: list[dict[str, str]]) -> str:
        """One completion, retried with exponential backoff on timeouts, 429, 5xx and connection errors."""
        import openai

        retryable = (openai.APIConnectionError, openai.InternalServerError, openai.RateLimitError)  # timeouts are connection errors
        for attempt in range(self.max_retries + 1):
            try:
                return self._complete(messages)
            except retryable as exc:
                if attempt >= self.max_retries:
                    raise
                delay = min(self.backoff_s * 2**attempt, MAX_BACKOFF_S)
                log.info("LLM call failed (%s); retry %d/%d in %.1fs", type(exc).__name__, attempt + 1, self.max_retries, delay)
                time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _complete(self, messages: list[dict[str, str]]) -> str:
        import openai

        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self._json_mode is not False:
            kwargs["response_format"] = {"type": "json_object"}
        self.last_request = copy.deepcopy(messages)
        self.requests.append(self.last_request)
        client = self._client_()
        try:
            response = client.chat.completions.create(**kwargs)
        except openai.BadRequestError:
            if "response_format" not in kwargs:
                raise
            # Many OpenAI-compatible servers do not implement JSON mode; the prompt asks for
            # JSON anyway and the parser tolerates prose, so plain text works too.
            log.info("server rejected response_format=json_object; continuing without it")
            self._json_mode = False
            del kwargs["response_format"]
            response = client.chat.completions.create(**kwargs)
        else:
            if "response_format" in kwargs:
                self._json_mode = True
        content = response.choices[0].message.content if response.choices else None
        self.last_response = content
        if not content:
            raise AnswerError(["the model returned an empty reply"])
        return content

    # -- failures

    def _fallback(self) -> Reasoner:
        if self._offline is None:
            from .offline import OfflineReasoner

            self._offline = OfflineReasoner()
        return self._offline

    def _why(self, exc: Exception) -> str:
        """One short line on why the model path failed."""
        try:
            import openai
        except ImportError:
            return f"the openai package is not installed ({exc})"
        host = endpoint_host(self.base_url)
        if isinstance(exc, openai.APITimeoutError):
            return f"no reply from {host} within {self.timeout_s:g}s ({self.max_retries + 1} attempt(s))"
        if isinstance(exc, openai.APIConnectionError):
            return f"cannot reach {self.base_url} ({self.max_retries + 1} attempt(s))"
        if isinstance(exc, openai.APIStatusError):
            message = str(getattr(exc, "message", exc)).splitlines()[0][:200]
            hint = f"; {self.key_note}" if exc.status_code in (401, 403) and self.key_note else ""
            return f"HTTP {exc.status_code} from {host}: {message}{hint}"
        if isinstance(exc, AnswerError):
            shown = "; ".join(exc.errors[:3]) + (f" (+{len(exc.errors) - 3} more)" if len(exc.errors) > 3 else "")
            return shown
        return f"{type(exc).__name__}: {str(exc)[:200]}"


# ------------------------------------------------------------------------ the merge


def merge(evidence: Evidence, answer: Answer, reasoner: str, knowledge: dict[str, tuple[str, float]]) -> Diagnosis:
    """A copy of the extractor's diagnosis with the model's verdict filled in.

    Events, occurrences, stage and iterations are never touched. The symptom changes only
    when the extractor did not know it or the model gave a reason. Suspect nodes are
    re-ranked: the model's nodes first (keeping the extractor's score and reason), then the
    extractor's other suspects in their order; an empty list keeps the extractor's ranking.
    """
    d = evidence.diagnosis.model_copy(deep=True)
    d.category = answer.category
    d.subcategory = answer.subcategory
    if answer.symptom and answer.symptom != d.symptom:
        if d.symptom == "unknown" or (answer.symptom_reason or "").strip():
            d.symptom = answer.symptom
        else:
            log.info("ignored the model's symptom %r: no reason given and the extractor found %r", answer.symptom, d.symptom)
    d.root_cause = answer.root_cause.strip()
    d.remediation = list(answer.remediation)
    d.collect_next = list(answer.collect_next)
    d.confidence = round(answer.confidence, 2)
    if answer.knowledge:
        d.knowledge = [KnowledgeRef(id=k, title=knowledge[k][0], score=round(knowledge[k][1], 4)) for k in answer.knowledge if k in knowledge]
    if answer.faulty_nodes:
        existing = {n.node: n for n in d.faulty_nodes}
        named = [existing.get(n) or NodeOut(node=n, score=0.0, reason="named by the LLM reasoner") for n in answer.faulty_nodes]
        d.faulty_nodes = named + [n for n in d.faulty_nodes if n.node not in answer.faulty_nodes]
    d.reasoner = reasoner
    return d
