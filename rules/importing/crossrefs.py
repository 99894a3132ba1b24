"""Cross-reference lines ("See also: A, B and C") in every language we read."""

import re

# The phrases that open a cross-reference line, per language. A colon may follow
# (French puts a space before it; Dutch often leaves it out).
PHRASES = {
    "en": ["see also", "related", "see"],
    "de": ["siehe auch", "siehe"],
    "pl": ["zobacz też", "zobacz także", "patrz też", "patrz także", "zobacz"],
    "nl": ["zie ook", "zie"],
    "fr": ["voir aussi", "voir"],
    "es": ["véase también", "ver también", "véase"],
    "it": ["vedi anche", "vedi"],
}
# "and" before the last label of a list, per language.
FINAL_CONJUNCTIONS = ["and", "und", "i", "oraz", "en", "et", "y", "e"]

_phrases = sorted({p for ps in PHRASES.values() for p in ps}, key=len, reverse=True)
# Bare "see"/"siehe"/"zie"… only with a colon; the longer phrases also without one.
_with_colon = "|".join(re.escape(p) for p in _phrases)
_without_colon = "|".join(re.escape(p) for p in _phrases if " " in p or p == "related")
LINE = re.compile(
    rf"^(?:(?:{_with_colon})\s*:|(?:{_without_colon})\s+(?=[\"“„'A-ZÀ-ÞĄĆĘŁŃÓŚŹŻ]))\s*(?P<labels>\S.*)$",
    re.IGNORECASE,
)
_FINAL = re.compile(rf"\s+(?:{'|'.join(FINAL_CONJUNCTIONS)})\s+", re.IGNORECASE)


def match_cross_reference_line(text: str) -> str | None:
    """The label part of a cross-reference line, or None if the line is not one."""
    match = LINE.match(text.strip())
    return match.group("labels").strip() if match else None


def split_labels(text: str) -> list[str]:
    """"A, B; C and D" → [A, B, C, D]; a single label is never split on "and"."""
    text = text.strip().rstrip(".")
    parts = [part.strip() for part in re.split(r"[;,]", text) if part.strip()]
    if len(parts) >= 2:
        last = _FINAL.split(parts[-1])
        if len(last) == 2:
            parts = parts[:-1] + [p.strip() for p in last if p.strip()]
    return [part.strip(" \"'“”„") for part in parts if part.strip(" \"'“”„")]
