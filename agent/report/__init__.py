"""The HTML report: one self-contained page that shows a failure instead of telling it.

``render_html(diagnosis, analysis)`` returns the page: the verdict, swimlanes of the
failure episode (node by time), iteration time over the run, the blame graph, the
evidence with context read back from the files, remediation and knowledge. Everything is
inline (CSS, a few lines of JS, SVG drawn here), so it opens offline from a mail
attachment. Each module owns one part: ``lanes``, ``pace`` (progress), ``blame``,
``evidence``; ``page`` assembles them and renders ``templates/``.
"""

from __future__ import annotations

from .page import render_html

__all__ = ["render_html"]
