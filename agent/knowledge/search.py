"""Hybrid search: signatures first, then reciprocal-rank fusion of BM25 and dense ranks.

Every query runs through three rankers, combined by reciprocal-rank fusion (RRF,
rank-based, so BM25 and cosine scores need no calibration):

1. signatures: a doc whose regex matches the query is, by construction, the answer; those
   docs take the top spots, the more specific regex (more literal characters) first;
2. BM25 over the whole doc (``lexical``);
3. dense: a sentence embedding of the query against the doc's passages, in a chromadb
   collection; a doc scores its best passage (``embed``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from ..patterns import SPECIFIC_LITERALS
from .docs import KnowledgeError, _doc_dirs
from .embed import Embedder, chroma_ef, dense_text, get_embedder
from .lexical import log_tokens
from .store import KnowledgeStore

SearchMode = Literal["hybrid", "rrf", "bm25", "dense"]


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


def _rrf(ranks: dict[str, int], k: int) -> dict[str, float]:
    return {doc_id: 1.0 / (k + r) for doc_id, r in ranks.items()}


class KnowledgeBase(KnowledgeStore):
    """The docs plus their retrieval store. Open is cheap; the first search builds if needed."""

    # Recall is flat for k in 5..60 on the benchmark sets; 20 (vs the usual 60) spreads the
    # scores of a ~200-doc corpus wider, so the 0..1 score says more about rank 1 vs rank 5.
    RRF_K = 20
    DENSE_CANDIDATES = 120  # chunks fetched from chroma before taking each doc's best

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

    @classmethod
    def open_for_diagnosis(cls, dirs: Sequence[Path | str] | None = None) -> KnowledgeBase:
        """The semantic (ONNX) store when `l4 kb build` made one, else the lexical store: a
        diagnosis must not wait half a minute for embeddings on a fresh install."""
        semantic = cls.open(dirs, "onnx")
        if semantic._ready_marker.is_file():
            return semantic
        return cls.open(dirs, "lexical")

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

    def _dense_ranks_or_none(self, query: str, stack: str | None) -> dict[str, int]:
        """Dense ranks; a damaged semantic store degrades to lexical retrieval with a notice."""
        try:
            return self._dense_ranks(query, stack)
        except Exception as exc:  # chromadb raises its own types for a malformed or missing store
            note = (f"the semantic store at {self.path / 'chroma'} is damaged ({type(exc).__name__}); used lexical "
                    "retrieval only. `l4 kb build --force` rebuilds it")
            if note not in self.notices:
                self.notices.append(note)
                self.warnings.append(note)
            self.embedder = "lexical"  # no second try in this process
            return {}

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
        dense = self._dense_ranks_or_none(query, stack) if mode not in ("bm25",) and self.embedder != "lexical" else {}
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
