"""The lexical ranker's text: a log-aware BM25 tokenizer, and what BM25 indexes for a doc.

Raw log lines are best served lexically: rare tokens such as error codes and env-var names
carry the meaning. The tokenizer keeps compound identifiers (``NCCL_SOCKET_IFNAME``,
``EJ0001``) whole and also splits them, stems with PyStemmer, and drops per-job noise (IPs,
long hex). ``bm25s`` and PyStemmer are imported on first use only.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from .docs import KnowledgeDoc

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
