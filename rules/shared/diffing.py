"""Readable word diffs for errata: what the printed rule said → what it says now."""

import difflib
import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_TOKENS = re.compile(r"\s+|[^\s]+")


def word_diff_html(original: str, corrected: str, context: int | None = None) -> SafeString:
    """``<del>`` for removed words, ``<ins>`` for added ones; everything escaped.

    With ``context`` (in words), a long unchanged stretch keeps only that many words on
    each side of a change and shows "…" for the rest, so a one-word edit in a long body
    reads as one line (the history and the import preview); without it the whole text
    is shown (an erratum's diff on the public page).
    """
    a, b = _TOKENS.findall(original), _TOKENS.findall(corrected)
    out = []
    opcodes = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    for index, (op, i1, i2, j1, j2) in enumerate(opcodes):
        if op == "equal":
            out.append(escape(_shortened(a[i1:i2], context, first=index == 0, last=index == len(opcodes) - 1)))
            continue
        if op in ("delete", "replace"):
            out.append(f"<del>{escape(''.join(a[i1:i2]))}</del>")
        if op in ("insert", "replace"):
            out.append(f"<ins>{escape(''.join(b[j1:j2]))}</ins>")
    return mark_safe("".join(out))  # noqa: S308 - every piece is escaped above


def _shortened(tokens: list[str], context: int | None, first: bool, last: bool) -> str:
    """An unchanged run of tokens, cut to ``context`` words next to each change."""
    keep = None if context is None else context * 2  # tokens: each word has its space
    if keep is None or len(tokens) <= keep * 2 + 2:
        return "".join(tokens)
    head = [] if first else tokens[:keep]
    tail = [] if last else tokens[-keep:]
    return "".join(head).rstrip() + " … " + "".join(tail).lstrip()
