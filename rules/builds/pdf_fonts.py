"""The fonts of the PDF booklets (``rules.builds.booklet_pdf``) and the characters they have.

Decisions:

- **DejaVu Sans for text, DejaVu Sans Mono for code**, four styles each, cut down by
  ``scripts/subset_pdf_fonts.py`` to the Latin scripts of every content language,
  Greek, typographic punctuation and the symbols a game text uses (``rules/builds/fonts/``,
  the list and sizes in its LICENSE.txt). Every style of a family has the same
  characters. fpdf2's own code font, Courier, is a PDF core font: Latin-1 only, no "ł".
- **A character no font has** (an emoji, CJK) never fails a PDF: ``printable`` writes
  U+FFFD, the replacement character, in its place, so the reader sees that something
  is missing where it was; an invisible formatting character (a zero-width space, a
  direction mark) is dropped, another kind of space is a space. fpdf2's fallback fonts
  were the other way, but they would need a font with those glyphs (megabytes for CJK)
  and make fpdf2 split every text a character at a time.
"""

import re
import unicodedata
from functools import cache
from pathlib import Path

from fontTools.ttLib import TTFont

FONTS = Path(__file__).resolve().parent / "fonts"
SANS, MONO = "dejavu", "dejavu-mono"
FILES = {
    SANS: {"": "DejaVuSans", "B": "DejaVuSans-Bold", "I": "DejaVuSans-Oblique", "BI": "DejaVuSans-BoldOblique"},
    MONO: {
        "": "DejaVuSansMono", "B": "DejaVuSansMono-Bold", "I": "DejaVuSansMono-Oblique",
        "BI": "DejaVuSansMono-BoldOblique",
    },
}  # fmt: skip
REPLACEMENT = "\ufffd"
_LINE_BREAKS = "\t\n\r"  # no glyphs: fpdf2 lays them out


def add_fonts(pdf) -> None:
    """Register both families, every style, with an fpdf2 document."""
    for family, styles in FILES.items():
        for style, name in styles.items():
            pdf.add_font(family, style, str(FONTS / f"{name}.ttf"))


@cache
def coverage(family: str) -> frozenset[int]:
    """The code points every style of a family has a glyph for."""
    return frozenset.intersection(
        *(frozenset(TTFont(FONTS / f"{name}.ttf", lazy=True).getBestCmap()) for name in FILES[family].values())
    )


@cache
def missing(family: str) -> re.Pattern:
    """A run of characters the family has no glyph for."""
    points = sorted(coverage(family) | {ord(char) for char in _LINE_BREAKS})
    ranges, start = [], points[0]
    for previous, point in zip(points, [*points[1:], None], strict=True):
        if point != previous + 1:
            ranges.append(re.escape(chr(start)) + (f"-{re.escape(chr(previous))}" if previous > start else ""))
            start = point
    return re.compile(f"[^{''.join(ranges)}]+")


def _stand_in(char: str) -> str:
    kind = unicodedata.category(char)
    if kind in ("Cc", "Cf"):  # a control or formatting character: nothing to see
        return ""
    return " " if kind[0] == "Z" else REPLACEMENT


def _replace(match: re.Match) -> str:
    return "".join(map(_stand_in, match.group()))


def printable(text: str, family: str = SANS) -> str:
    """``text`` with every character the family lacks replaced (see the decisions)."""
    pattern = missing(family)
    return pattern.sub(_replace, text) if pattern.search(text) else text
