"""Small text helpers shared by the models, the importer and search."""

import re
import unicodedata

from anyascii import anyascii

_NON_SLUG = re.compile(r"[^a-z0-9]+")
_SPACES = re.compile(r"\s+")


def slugify_title(text: str, max_length: int = 200) -> str:
    """A readable ASCII slug with real transliteration (ł→l, ß→ss, é→e, ü→u).

    Django's ``slugify`` drops letters it cannot decompose (``ł`` vanishes), so
    "Zdolności" would become "zdolnoci"; anyascii transliterates every script.
    """
    ascii_text = anyascii(text).lower()
    slug = _NON_SLUG.sub("-", ascii_text).strip("-")
    return slug[:max_length].strip("-") or "entry"


def normalize_label(text: str) -> str:
    """The key a cross-reference label and an entry title are matched on.

    NFKC (so ligatures and full-width forms compare equal), case-folded, typographic
    quotes and surrounding punctuation removed, internal white space collapsed.
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = _SPACES.sub(" ", text)
    return text.strip(" \t\"'\u201c\u201d\u201e.,;:!?()[]")


def fold_diacritics(text: str) -> str:
    """ASCII-fold for search: "Zdolności" and "zdolnosci" meet."""
    return anyascii(text).lower()


def normalize_newlines(text: str) -> str:
    """``\n`` line ends only: browsers send a textarea's lines ended with ``\r\n``, and
    a text saved from the admin must not differ from the same text imported (or show
    every line as changed in its history)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if text and "\r" in text else text


def normalize_text_fields(obj, names) -> None:
    """Apply ``normalize_newlines`` to the named text fields of ``obj``."""
    for name in names:
        setattr(obj, name, normalize_newlines(getattr(obj, name)))
