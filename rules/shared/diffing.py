"""Readable word diffs for errata: what the printed rule said → what it says now."""

import difflib
import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_TOKENS = re.compile(r"\s+|[^\s]+")
_WORDS = re.compile(r"\s*\S+\s*|\s+")  # a word with the white space after it (the first: before it too)
# Texts of more tokens than this (both together; about 2,000 words) are compared word by
# word, their white space riding along with the word before it. Token by token the
# white space between words, half of all tokens, makes difflib's matching quadratic: a
# whole chapter stored as one entry (134 KB, 17,000 words) took 47 s to diff, so long that
# planning a new version of a large rules document took minutes (bench/plan_release.py);
# word by word it takes 0.03 s. Below it, the diff is token by token as it always was
# (a change of white space alone shows too).
LONG_TEXT_TOKENS = 4000


def word_diff_html(original: str, corrected: str, context: int | None = None) -> SafeString:
    """``<del>`` for removed words, ``<ins>`` for added ones; everything escaped.

    With ``context`` (in words), a long unchanged stretch keeps only that many words on
    each side of a change and shows "…" for the rest, so a one-word edit in a long body
    reads as one line (the history and the import preview); without it the whole text
    is shown (an erratum's diff on the public page). A very long text
    (``LONG_TEXT_TOKENS``) is compared word by word: a change of its white space alone
    is not shown.
    """
    a, b = _TOKENS.findall(original), _TOKENS.findall(corrected)
    per_word = 2  # tokens: each word has its space
    keys_a, keys_b = a, b
    if len(a) + len(b) > LONG_TEXT_TOKENS:
        a, b = _WORDS.findall(original), _WORDS.findall(corrected)
        keys_a, keys_b, per_word = [word.strip() for word in a], [word.strip() for word in b], 1
    out = []
    opcodes = difflib.SequenceMatcher(a=keys_a, b=keys_b, autojunk=False).get_opcodes()
    for index, (op, i1, i2, j1, j2) in enumerate(opcodes):
        if op == "equal":
            shown = _shortened(a[i1:i2], context, first=index == 0, last=index == len(opcodes) - 1, per_word=per_word)
            out.append(escape(shown))
            continue
        if op in ("delete", "replace"):
            out.append(f"<del>{escape(''.join(a[i1:i2]))}</del>")
        if op in ("insert", "replace"):
            out.append(f"<ins>{escape(''.join(b[j1:j2]))}</ins>")
    return mark_safe("".join(out))  # noqa: S308 - every piece is escaped above


def _shortened(tokens: list[str], context: int | None, first: bool, last: bool, per_word: int = 2) -> str:
    """An unchanged run of tokens, cut to ``context`` words next to each change
    (``per_word``: tokens a word takes)."""
    keep = None if context is None else context * per_word
    if keep is None or len(tokens) <= keep * 2 + 2:
        return "".join(tokens)
    head = [] if first else tokens[:keep]
    tail = [] if last else tokens[-keep:]
    return "".join(head).rstrip() + " … " + "".join(tail).lstrip()
