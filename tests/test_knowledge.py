"""Knowledge docs are valid, and the retrieval store builds, rebuilds and finds the right doc."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.knowledge import (
    KnowledgeBase,
    KnowledgeDoc,
    KnowledgeError,
    bundled_dir,
    doc_files,
    load_docs,
    log_tokens,
    parse_doc,
    regex_specificity,
)
from agent.schema import SUBCATEGORIES

BUNDLED_FILES = doc_files([bundled_dir()])
SMALL_SET = [
    "xid-79-gpu-fallen-off-the-bus",
    "nccl-ib-completion-error-12-retry-exceeded",
    "nccl-watchdog-collective-timeout",
    "cuda-out-of-memory",
    "disk-full-enospc",
    "hccl-ei0002-notify-wait-timeout",
    "cann-ej-hccp-error-family",
    "ascend-device-occupied-residual-process",
    "slurm-job-time-limit",
    "torch-master-port-eaddrinuse",
    "host-oom-killer",
    "nan-loss-grad-norm-divergence",
]


def _copy_docs(dest: Path, ids: list[str]) -> Path:
    by_id = {p.stem: p for p in BUNDLED_FILES}
    dest.mkdir(parents=True, exist_ok=True)
    for doc_id in ids:
        shutil.copy(by_id[doc_id], dest / f"{doc_id}.md")
    return dest


# ----------------------------------------------------------------- bundled docs


@pytest.mark.parametrize("path", BUNDLED_FILES, ids=[p.stem for p in BUNDLED_FILES])
def test_bundled_doc_is_valid(path: Path) -> None:
    doc = parse_doc(path)  # raises KnowledgeError naming the file and field
    assert doc.id == path.stem
    assert doc.body.strip(), "the body explains the mechanism"
    for sig in doc.signatures:
        assert sig.compiled.search(sig.example), sig.regex
    assert all(url.startswith(("http://", "https://")) for url in doc.sources)


def test_bundled_docs_count_stacks_and_unique_ids() -> None:
    docs = load_docs()
    assert len(docs) >= 150
    assert len({d.id for d in docs}) == len(BUNDLED_FILES)
    stacks = Counter(d.stack for d in docs)
    assert stacks["cuda"] > 0 and stacks["ascend"] > 0


def test_every_subcategory_has_three_docs() -> None:
    counts = Counter((d.category, d.subcategory) for d in load_docs())
    thin = {
        f"{cat}/{sub}": counts[(cat, sub)]
        for cat, subs in SUBCATEGORIES.items()
        if cat != "unknown"
        for sub in subs
        if counts[(cat, sub)] < 3
    }
    assert not thin, f"subcategories with fewer than 3 docs: {thin}"


# ------------------------------------------------------------------- validation

GOOD = """---
id: {id}
title: 'A test fault'
category: hardware
subcategory: network
stack: cuda
components: [nccl]
signatures:
  - regex: '{regex}'
    example: 'NCCL WARN something broke badly'
symptoms: [training_crash]
severity: high
node_local: true
remediation: ['fix it']
collect_next: ['look']
sources: ['{source}']
---

# A test fault

Body text that explains.
"""


def _write(tmp: Path, name: str, **kw: str) -> Path:
    values = {"id": name, "regex": "something broke", "source": "https://example.org/x"} | kw
    path = tmp / f"{name}.md"
    path.write_text(GOOD.format(**values))
    return path


def test_valid_test_doc_parses(tmp_path: Path) -> None:
    doc = parse_doc(_write(tmp_path, "test-fault"))
    assert isinstance(doc, KnowledgeDoc) and doc.subcategory == "network"


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"regex": "does not match"}, "signatures.0"),
        ({"regex": "unbalanced("}, "signatures.0"),
        ({"source": "ftp://example.org"}, "sources"),
        ({"id": "Bad_Id"}, "id"),
    ],
)
def test_bad_doc_names_file_and_field(tmp_path: Path, kw: dict[str, str], field: str) -> None:
    name = "bad-doc"
    path = _write(tmp_path, name, **kw)
    if "id" in kw:  # keep the file name, break the id
        path = path.rename(tmp_path / f"{name}.md")
    with pytest.raises(KnowledgeError) as exc:
        parse_doc(path)
    assert str(path) in str(exc.value) and field in str(exc.value)


def test_bad_category_and_id_mismatch(tmp_path: Path) -> None:
    path = _write(tmp_path, "cat-doc")
    path.write_text(path.read_text().replace("subcategory: network", "subcategory: scheduling"))
    with pytest.raises(KnowledgeError, match="scheduling"):
        parse_doc(path)
    other = _write(tmp_path, "named-doc")
    other.rename(tmp_path / "renamed-doc.md")
    with pytest.raises(KnowledgeError, match="file name"):
        parse_doc(tmp_path / "renamed-doc.md")


def test_non_strict_load_skips_with_warning(tmp_path: Path) -> None:
    _write(tmp_path, "good-doc")
    _write(tmp_path, "broken-doc", regex="nope")
    with pytest.raises(KnowledgeError, match="broken-doc"):
        load_docs([tmp_path], bundled=False)
    docs = load_docs([tmp_path], bundled=False, strict=False)
    assert [d.id for d in docs] == ["good-doc"]
    assert len(docs.warnings) == 1 and "broken-doc" in docs.warnings[0]


def test_user_dir_adds_to_bundled(tmp_path: Path) -> None:
    _write(tmp_path, "my-site-fault")
    docs = load_docs([tmp_path])
    assert "my-site-fault" in {d.id for d in docs}
    assert len(docs) == len(BUNDLED_FILES) + 1


def test_specificity_counts_required_literals() -> None:
    assert regex_specificity(r"\bEJ\d{4}\b") == 2
    assert regex_specificity("CUBLAS_STATUS_EXECUTION_FAILED when calling") == 43
    assert regex_specificity(r"(?:error |status=)1[01]\b") == 7  # shortest branch + '1'


def test_log_tokens_keep_compounds_and_parts() -> None:
    toks = log_tokens("NCCL_SOCKET_IFNAME EJ0001 cudaErrorLaunchFailure 10.1.2.3 0x7f3a9c000000 error 12")
    assert {"nccl_socket_ifname", "ej0001", "ej", "cuda", "launch", "12"} <= set(toks)
    assert not any(t.startswith(("10.1", "0x7f")) for t in toks)


def test_import_is_lazy() -> None:
    code = "import sys, agent.knowledge, agent.library; print([m for m in ('chromadb', 'onnxruntime', 'bm25s') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------------ store


@pytest.fixture(scope="module")
def full_kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeBase]:
    """All bundled docs, hash embedder, in a module-wide L4_HOME (one build for many tests)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("L4_HOME", str(tmp_path_factory.mktemp("kbhome")))
        kb = KnowledgeBase.open(embedder="hash")
        kb.build()
        yield kb


def test_store_builds_reuses_and_rebuilds_on_change(tmp_path: Path) -> None:
    docs = _copy_docs(tmp_path / "docs", SMALL_SET)
    kb = KnowledgeBase.open([docs], embedder="hash", bundled=False)
    first = kb.build()
    assert first.rebuilt and first.docs == len(SMALL_SET) and first.chunks >= len(SMALL_SET)
    assert first.path.parent.name == "cache" and first.path.name.startswith("kb-")
    again = KnowledgeBase.open([docs], embedder="hash", bundled=False).build()
    assert not again.rebuilt and again.path == first.path

    doc = docs / "disk-full-enospc.md"
    doc.write_text(doc.read_text().replace("No space left on device", "No space left on device (edited)", 1))
    kb2 = KnowledgeBase.open([docs], embedder="hash", bundled=False)
    assert kb2.path != first.path
    hits = kb2.search("why did it say no space left on device edited")  # builds on first use
    assert hits and hits[0].id == "disk-full-enospc"
    assert (kb2.path / "ready-hash.json").is_file()

    (docs / "slurm-job-time-limit.md").unlink()
    kb3 = KnowledgeBase.open([docs], embedder="hash", bundled=False)
    assert kb3.build().docs == len(SMALL_SET) - 1
    with pytest.raises(KnowledgeError):
        kb3.get("slurm-job-time-limit")


def test_force_rebuild_and_damaged_store(tmp_path: Path) -> None:
    docs = _copy_docs(tmp_path / "docs", SMALL_SET[:4])
    kb = KnowledgeBase.open([docs], embedder="hash", bundled=False)
    kb.build()
    assert kb.build(force=True).rebuilt
    (kb.path / "docs.json").write_text("{not json")
    kb_again = KnowledgeBase.open([docs], embedder="hash", bundled=False)
    assert kb_again.search("GPU has fallen off the bus")[0].id == "xid-79-gpu-fallen-off-the-bus"


def test_search_raw_log_line(full_kb: KnowledgeBase) -> None:
    line = "gpu-07:1182:1390 [3] NCCL WARN NET/IB : Got completion from peer 10.4.2.9<40211> with error 12, opcode 0, len 0, vendor err 129"
    hits = full_kb.search(line, top=5)
    assert hits[0].id == "nccl-ib-completion-error-12-retry-exceeded"
    assert hits[0].signature
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)


def test_search_raw_line_without_signature(full_kb: KnowledgeBase) -> None:
    hits = full_kb.search("RuntimeError: No CUDA GPUs are available", top=3)
    assert "cuda-no-cuda-capable-device" in [h.id for h in hits]


def test_search_paraphrase(full_kb: KnowledgeBase) -> None:
    hits = full_kb.search("the slurm job was cancelled when it hit the time limit", top=3)
    assert hits[0].id == "slurm-job-time-limit"


def test_specific_signature_outranks_family(full_kb: KnowledgeBase) -> None:
    line = "EJ0001: [PID: 771] 2025-01-02-03:04:05.006.007 Failed to initialize the HCCP process. Reason: Maybe the last training process is running."
    ids = [h.id for h in full_kb.search(line, top=3)]
    assert ids.index("ascend-device-occupied-residual-process") < ids.index("cann-ej-hccp-error-family")


def test_stack_filter(full_kb: KnowledgeBase) -> None:
    hits = full_kb.search("collective operation timeout watchdog", top=10, stack="ascend")
    assert hits and all(h.stack in ("ascend", "any") for h in hits)
    assert any(h.stack == "cuda" for h in full_kb.search("NCCL watchdog collective timeout", top=10, stack="cuda"))


def test_kb_search_json_shape(full_kb: KnowledgeBase) -> None:
    hits = full_kb.search("GPU has fallen off the bus", top=3)
    assert len(hits) == 3
    items = json.loads(json.dumps([h.to_json_dict() for h in hits]))
    for item in items:
        assert list(item) == ["id", "title", "category", "subcategory", "stack", "score"]
        assert isinstance(item["score"], float) and 0 <= item["score"] <= 1
        assert item["subcategory"] in SUBCATEGORIES[item["category"]]
    assert full_kb.search("", top=3) == [] and full_kb.search("x", top=0) == []


def test_get_doc(full_kb: KnowledgeBase) -> None:
    doc = full_kb.get("xid-79-gpu-fallen-off-the-bus")
    assert doc.category == "hardware" and doc.remediation
    with pytest.raises(KnowledgeError, match="no knowledge doc"):
        full_kb.get("no-such-doc")


def test_onnx_embedder_finds_paraphrase(tmp_path: Path) -> None:
    """The real MiniLM int8 model, dense ranking alone, on a small doc set."""
    docs = _copy_docs(tmp_path / "docs", SMALL_SET)
    kb = KnowledgeBase.open([docs], embedder="onnx", bundled=False)
    info = kb.build()
    assert info.embedder == "onnx" and info.rebuilt
    assert (
        kb.search("the GPU disappeared from the bus mid-training", top=1, mode="dense")[0].id
        == "xid-79-gpu-fallen-off-the-bus"
    )
    assert (
        kb.search("a job got cancelled because it ran past its wall-clock allowance", top=1, mode="dense")[0].id
        == "slurm-job-time-limit"
    )
    assert (
        kb.search("the network card retried too many times", top=3)[0].id
        == "nccl-ib-completion-error-12-retry-exceeded"
    )


def test_a_damaged_semantic_store_degrades_to_lexical_and_a_rebuild_repairs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Probe S04d: a truncated chroma.sqlite3 broke every search and every diagnosis."""
    from agent.knowledge import KnowledgeBase

    monkeypatch.setenv("L4_HOME", str(tmp_path / "home"))
    kb = KnowledgeBase.open(None, "hash")
    kb.build()
    sqlite = next((kb.path / "chroma").glob("*.sqlite3"))
    sqlite.write_bytes(sqlite.read_bytes()[:4096])
    damaged = KnowledgeBase.open(None, "hash")
    hits = damaged.search("NCCL WARN NET/IB : Got completion from peer 10.0.0.2 with error 12", top=3)
    assert hits and any("damaged" in n for n in damaged.notices)
    rebuilt = KnowledgeBase.open(None, "hash")
    rebuilt.build(force=True)
    again = KnowledgeBase.open(None, "hash")
    assert again.search("NCCL WARN NET/IB : Got completion from peer", top=3) and not again.notices
