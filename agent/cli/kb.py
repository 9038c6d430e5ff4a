"""`l4 kb`: build, search and show the troubleshooting knowledge base."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from . import OutputFormat, _fail, _print_warnings, _user_errors, err, out

kb_app: typer.Typer = typer.Typer(help="The troubleshooting knowledge base (Ascend and CUDA): build, search, show.", no_args_is_help=True)

KnowledgeDirOpt = Annotated[
    list[Path] | None, typer.Option("--knowledge-dir", help="Extra folder of your own knowledge docs (repeatable).")
]


class Embedder(str, Enum):
    onnx = "onnx"
    lexical = "lexical"
    hash = "hash"


@kb_app.command("build")
def kb_build(
    knowledge_dir: KnowledgeDirOpt = None,
    embedder: Annotated[Embedder, typer.Option(help="onnx (semantic, MiniLM shipped in a package), lexical (BM25 only) or hash.")] = Embedder.onnx,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if the store is up to date.")] = False,
) -> None:
    """Build (or refresh) the vector store from the knowledge docs; diagnoses then use semantic retrieval too."""
    from ..knowledge import KnowledgeBase

    with _user_errors():
        kb = KnowledgeBase.open(knowledge_dir, embedder.value)
        err.print("building the knowledge store (about half a minute for onnx)…", markup=False)
        info = kb.build(force=force)
    _print_warnings(list(info.warnings))
    state = "built" if info.rebuilt else "up to date"
    out.print(f"{info.docs} docs, {info.chunks} chunks, {info.embedder}: {state} in {info.seconds:.1f}s ({info.path})", markup=False)


@kb_app.command("search")
def kb_search(
    query: Annotated[str, typer.Argument(help="A raw log line or a question.")],
    top: Annotated[int, typer.Option(min=1, help="How many results.")] = 5,
    stack: Annotated[str | None, typer.Option(help="Only docs for this stack: ascend, cuda (docs for any stack are always kept).")] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", "-f", help="text or json (CONTRACTS.md).")] = OutputFormat.text,
    knowledge_dir: KnowledgeDirOpt = None,
    embedder: Annotated[Embedder, typer.Option(help="onnx (semantic + lexical), lexical (BM25 only, no build wait) or hash.")] = Embedder.onnx,
) -> None:
    """Search the knowledge base: signature matches first, then BM25 and semantic retrieval fused."""
    from ..knowledge import KnowledgeBase

    if stack not in (None, "cuda", "ascend", "any"):
        _fail(f"unknown stack {stack!r} — use ascend, cuda or any", 2)
    if stack not in (None, "cuda", "ascend", "any"):
        _fail(f"unknown stack {stack!r} — use ascend, cuda or any", 2)
    with _user_errors():
        kb = KnowledgeBase.open(knowledge_dir, embedder.value)
        if not kb.is_built():
            err.print(f"building the {embedder.value} knowledge store once (see `l4 kb build`)…", markup=False)
        hits = kb.search(query, top=top, stack=stack)
    _print_warnings(kb.notices)
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps([h.to_json_dict() for h in hits], indent=2) + "\n")
        return
    if not hits:
        out.print("No matching docs.", markup=False)
        return
    table = Table(show_edge=False)
    for col in ("score", "id", "category", "stack", "title"):
        table.add_column(col, overflow="fold")
    for h in hits:
        table.add_row(f"{h.score:.2f}", Text(h.id), f"{h.category}/{h.subcategory}", h.stack, Text(h.title))
    out.print(table)


@kb_app.command("show")
def kb_show(
    doc_id: Annotated[str, typer.Argument(help="A doc id, e.g. nccl-ib-completion-error-12-retry-exceeded.")],
    knowledge_dir: KnowledgeDirOpt = None,
) -> None:
    """Show one knowledge doc: meaning, remediation, what to collect, sources."""
    from ..knowledge import load_docs

    with _user_errors():
        docs = {d.id: d for d in load_docs(knowledge_dir)}
    doc = docs.get(doc_id)
    if doc is None:
        close = [d for d in docs if doc_id.lower() in d]
        hint = f"similar ids: {', '.join(close[:5])}" if close else "find ids with `l4 kb search QUERY`"
        _fail(f"no knowledge doc {doc_id!r} — {hint}")
        return
    out.print(Text(f"{doc.title}", style="bold"))
    out.print(Text(f"{doc.id} · {doc.category}/{doc.subcategory} · stack {doc.stack} · severity {doc.severity}"))
    out.print(Text(""))
    out.print(Text(doc.body))
    for heading, items in (("Remediation", doc.remediation), ("Collect next", doc.collect_next), ("Sources", doc.sources)):
        if items:
            out.print(Text(f"\n{heading}", style="bold"))
            for item in items:
                out.print(Text(f"  - {item}"))
