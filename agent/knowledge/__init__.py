"""Knowledge docs (knowledge/README.md) and hybrid retrieval over them.

Why hybrid: the queries are of two kinds. Raw log lines ("NCCL WARN NET/IB : Got completion
... error 12") are best served lexically: rare tokens such as error codes and env-var names
carry the meaning, and a dense model trained on prose blurs them. Paraphrases ("the GPU
fell off the bus mid-training") share few words with the docs, and only a sentence
embedding bridges that gap. So every query runs through signatures, BM25 and a dense
ranker, fused by rank (``search``).

The data flows one way through the modules: ``docs`` (schema and loader) -> ``embed``
(dense embedders and passages) and ``lexical`` (BM25 tokens and text) -> ``store`` (the
rebuildable on-disk cache) -> ``search`` (``KnowledgeBase``, the facade callers use).
chromadb, onnxruntime and bm25s are imported lazily: importing this package stays cheap
for commands that never search.
"""

from __future__ import annotations

from ..patterns import SPECIFIC_LITERALS, regex_specificity, required_literal
from .docs import (
    KnowledgeDoc,
    KnowledgeError,
    LoadedDocs,
    Signature,
    bundled_dir,
    doc_files,
    load_docs,
    parse_doc,
)
from .embed import (
    VOCAB_TXT,
    Embedder,
    NumpyHashingEF,
    OnnxMiniLMEF,
    chroma_ef,
    dense_chunks,
    dense_text,
    get_embedder,
)
from .lexical import lexical_text, log_tokens
from .search import Hit, KnowledgeBase, SearchMode
from .store import STORE_VERSION, BuildInfo, KnowledgeStore, content_hash

__all__ = [
    "SPECIFIC_LITERALS",
    "STORE_VERSION",
    "VOCAB_TXT",
    "BuildInfo",
    "Embedder",
    "Hit",
    "KnowledgeBase",
    "KnowledgeDoc",
    "KnowledgeError",
    "KnowledgeStore",
    "LoadedDocs",
    "NumpyHashingEF",
    "OnnxMiniLMEF",
    "SearchMode",
    "Signature",
    "bundled_dir",
    "chroma_ef",
    "content_hash",
    "dense_chunks",
    "dense_text",
    "doc_files",
    "get_embedder",
    "lexical_text",
    "load_docs",
    "log_tokens",
    "parse_doc",
    "regex_specificity",
    "required_literal",
]
