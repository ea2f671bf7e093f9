"""MkDocs hook: the docstrings use Sphinx roles (``:class:`~graphir.model.Model```), which
mkdocstrings renders as text; show them as the code they name."""
from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:class|attr|meth|func|mod|data|exc|obj):(<code>)~?")


def on_page_content(html: str, **_: Any) -> str:
    return _ROLE.sub(r"\1", html)
