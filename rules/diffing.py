"""Readable word diffs for errata: what the printed rule said → what it says now."""

import difflib
import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_TOKENS = re.compile(r"\s+|[^\s]+")


def word_diff_html(original: str, corrected: str) -> SafeString:
    """``<del>`` for removed words, ``<ins>`` for added ones; everything escaped."""
    a, b = _TOKENS.findall(original), _TOKENS.findall(corrected)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(escape("".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(f"<del>{escape(''.join(a[i1:i2]))}</del>")
        if op in ("insert", "replace"):
            out.append(f"<ins>{escape(''.join(b[j1:j2]))}</ins>")
    return mark_safe("".join(out))  # noqa: S308 - every piece is escaped above
