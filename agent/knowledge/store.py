"""The on-disk retrieval store: a rebuildable cache of the docs, never committed.

The store lives in ``L4_HOME/cache/kb-<hash>``, the hash taken over every doc file plus the
store format version, so any doc change (or a user ``--knowledge-dir``) selects a fresh
store and it is built on first use; the open path costs only reading and hashing the doc
files. Parsed docs and the BM25 index are persisted beside the chroma collection (docs are
split into paragraph chunks) so a warm search never re-parses YAML. A file lock keeps two
processes from building the same store; old stores beyond ``KEEP_STORES`` are pruned. An
unwritable ``L4_HOME`` builds in a temp folder for the run, and a damaged store is rebuilt once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..config import home, l4_home
from .docs import KnowledgeDoc, KnowledgeError, doc_files, load_docs
from .embed import chroma_ef, dense_chunks, get_embedder
from .lexical import _import_bm25s, lexical_text, log_tokens

STORE_VERSION = "kb-store/2"  # bump when chunking, tokenisation or the stored layout changes


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


class KnowledgeStore:
    """The docs' store on disk: built when missing, then loaded; ``KnowledgeBase`` searches it."""

    KEEP_STORES = 3  # old kb-* dirs kept (other --knowledge-dir sets) before pruning

    def __init__(self, dirs: list[Path], embedder: str, strict: bool) -> None:
        self.dirs = dirs
        self.embedder = embedder
        self.strict = strict
        self.files = doc_files(dirs)
        if not self.files:
            raise KnowledgeError(f"no knowledge docs under {', '.join(map(str, dirs))}", "pass a folder with *.md docs")
        self.content_hash = content_hash(self.files)
        self.path = home().knowledge_index(self.content_hash)
        self.warnings: list[str] = []
        self.notices: list[str] = []  # problems a diagnosis should report (a degraded store)
        self._docs: dict[str, KnowledgeDoc] | None = None
        self._bm25: Any = None
        self._bm25_ids: list[str] = []
        self._collection: Any = None
        self._signatures: list[tuple[str, re.Pattern[str], int]] = []

    def is_built(self) -> bool:
        """Whether a store for these docs and this embedder exists (search builds it otherwise)."""
        return self._ready_marker.is_file()

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
        # A rebuild starts from nothing: a damaged sqlite file must never be opened again, and
        # chromadb's per-process client cache must not hand back the old one.
        shutil.rmtree(self.path / "chroma", ignore_errors=True)
        with contextlib.suppress(Exception):
            from chromadb.api.client import SharedSystemClient

            SharedSystemClient.clear_system_cache()
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
                self.notices.append(note)
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
