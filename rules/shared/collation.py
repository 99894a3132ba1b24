"""Alphabetical order as each language sorts, and the letters of its A–Z index.

ICU's collation with the CLDR's rules for each language (PyICU, from the
``pyicu-wheels`` package, which bundles ICU, so no system library or compiler is
needed): German files Ä, Ö, Ü with A, O, U; Polish puts ą after a, ł after l, ś after s,
ź and ż after z; Spanish ñ after n; Dutch "ij" is an i and a j (as Van Dale and the CLDR
sort it, not the old telephone-book y). Numbers in titles sort by their value ("Phase 2"
before "Phase 10").

The letters a glossary is grouped under come from ICU's ``AlphabeticIndex`` with the
same locale, so the jump links match the order: Polish has Ć, Ł, Ó, Ś, Ź and Ż of their
own, German has no Ä (Ärger is under A), Spanish has Ñ, Dutch has no IJ (IJzer is under
I). Titles that start with a digit or a symbol go under ``#``, titles in another script
under ``…`` at the end.

Leading punctuation and spaces do not count (a quoted „Title“ sorts and files under T).
Keys are computed when a list is read: a sort key costs about a quarter of a
microsecond, so a 619-entry glossary sorts and groups in well under a millisecond (see
the manual, "Alphabetical order"), and nothing needs storing or recomputing when ICU's
version changes. Each thread builds its own collator per language once (a fraction of
a millisecond).
"""

import threading
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TypeVar

import icu

T = TypeVar("T")

# Labels of ICU's catch-all buckets: before the first letter (digits, symbols), and
# after the last letter or between scripts (another script than the language's).
UNDERFLOW_LABEL = "#"
OTHER_LABEL = "…"
_NORMAL_BUCKET = 0  # AlphabeticIndex's U_ALPHAINDEX_NORMAL; 1 underflow, 2 inflow, 3 overflow

_local = threading.local()


def _tools(language: str) -> tuple:
    """(collator, immutable index) for ``language``, made once per thread."""
    tools = getattr(_local, "tools", None)
    if tools is None:
        tools = _local.tools = {}
    if language not in tools:
        locale = icu.Locale(language)
        collator = icu.Collator.createInstance(locale)
        # Numbers by their value: "Card type 2" before "Card type 10".
        collator.setAttribute(icu.UCollAttribute.NUMERIC_COLLATION, icu.UCollAttributeValue.ON)
        tools[language] = (collator, icu.AlphabeticIndex(locale).buildImmutableIndex())
    return tools[language]


def _significant(title: str) -> str:
    """The title from its first character that is not punctuation or a space."""
    if title[:1].isalnum():  # nearly every title: no loop
        return title
    for position, char in enumerate(title):
        if unicodedata.category(char)[0] not in "PZ":
            return title[position:]
    return title


def sort_key(title: str, language: str) -> bytes:
    """A key that orders titles as ``language`` sorts them (bytes: compare as bytes)."""
    return _tools(language)[0].getSortKey(_significant(title))


def sort_by_title(items: Iterable[T], language: str, title: Callable[[T], str] = attrgetter("title")) -> list[T]:
    """``items`` in the alphabetical order of ``language`` by their title (stable)."""
    collator = _tools(language)[0]
    return sorted(items, key=lambda item: collator.getSortKey(_significant(title(item))))


@dataclass(frozen=True)
class LetterGroup:
    """One letter of an A–Z index: its label, the id its jump link points at, its items."""

    letter: str
    anchor: str
    bucket: int = field(repr=False, compare=False)
    items: list = field(default_factory=list)


def letter_groups(
    items: Iterable[T], language: str, title: Callable[[T], str] = attrgetter("title")
) -> list[LetterGroup]:
    """``items`` sorted as ``language`` sorts, grouped by the letter of its A–Z index."""
    collator, index = _tools(language)
    rows = []
    for item in items:
        text = _significant(title(item))
        rows.append((index.getBucketIndex(text), collator.getSortKey(text), item))
    # By letter first: the index's buckets are in the collator's order, so this is the
    # collator's order, with each letter's items together whatever the collator says.
    rows.sort(key=lambda row: row[:2])
    groups: list[LetterGroup] = []
    for bucket, _key, item in rows:
        if not groups or groups[-1].bucket != bucket:
            groups.append(_group(index, bucket))
        groups[-1].items.append(item)
    return groups


def _group(index, bucket: int) -> "LetterGroup":
    label, kind = index.getBucket(bucket)
    if kind == _NORMAL_BUCKET:
        return LetterGroup(label, f"letter-{label}", bucket)
    if bucket == 0:
        return LetterGroup(UNDERFLOW_LABEL, "letter-0-9", bucket)
    return LetterGroup(OTHER_LABEL, f"letter-other-{bucket}", bucket)
