"""Small text helpers shared by the models, the importer and search."""

import re
import unicodedata

from anyascii import anyascii

_NON_SLUG = re.compile(r"[^a-z0-9]+")
_SPACES = re.compile(r"\s+")


def shown_number(number: str, title: str) -> str:
    """The number to show before a title: "" when there is none or the title ends with it
    (an imported "Regel 7" keeps its number in its title)."""
    return number if number and not title.endswith(number) else ""


def numbered_title(number: str, title: str) -> str:
    """A title as lists and headings show it: "2.1. Casting", or the title alone."""
    shown = shown_number(number, title)
    return f"{shown}. {title}" if shown else title


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


# Characters no text of ours holds and some layer refuses: NUL (PostgreSQL's text and
# jsonb cannot store it), the other C0 controls but tab, line feed and carriage return
# (XML 1.0, so the Atom feeds, cannot carry them; they are invisible on a page), and
# lone surrogates (not encodable as UTF-8, so no database driver can send them).
UNSTORABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")


def unstorable_character(text: str) -> tuple[int, str] | None:
    """(offset, description) of the first character ``UNSTORABLE`` matches, or None."""
    match = UNSTORABLE.search(text) if isinstance(text, str) else None
    if match is None:
        return None
    char = match.group()
    if char == "\x00":
        what = "a NUL character (U+0000)"
    elif char < " ":
        what = f"a control character (U+{ord(char):04X})"
    else:
        what = f"a lone surrogate (U+{ord(char):04X}), which is not a character"
    return match.start(), what


def strings_in(value):
    """The strings in a value: itself, or those inside its lists and objects (keys too),
    at any depth: what a JSON field or a label list holds."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
