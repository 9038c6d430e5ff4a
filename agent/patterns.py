"""What a regex says about itself: how narrow it is, and a literal every match contains.

Shared by the knowledge signatures (ranking: a specific regex beats a family regex) and the
fault library (a substring pre-filter before the regex runs). Both read the parsed pattern
(``re._parser``) rather than guessing from the source text, falling back to a character
count if the internals ever change.
"""

from __future__ import annotations

import re
import sys
from typing import Any

# A regex with this many literal characters is specific: it will not fire on benign lines, so
# among such matches relevance decides; family regexes (``\bEJ\d{4}\b``: 2) rank below them.
SPECIFIC_LITERALS = 20

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
