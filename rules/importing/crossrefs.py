"""Cross-reference lines ("See also: A, B and C") in every language we read.

A cross-reference line starts with one of the PHRASES of any language (documents mix
languages, so all of them are tried), usually followed by a colon. Its labels are split
on commas and semicolons (not inside brackets) and on the conjunction before the last
label ("A, B and C", "A, B, and C", "A, B und C", "A, B i C", "A, B en C"). A label that
itself contains "and" ("In Play and Out of Play") is kept whole unless the document says
otherwise: see ``split_labels``.
"""

import re

# The phrases that open a cross-reference line, per language. A colon may follow
# (French puts a space before it); the phrases in WITHOUT_COLON also count without one
# ("Zie ook Draken"), when a capitalised label follows.
# fmt: off
PHRASES = {
    "en": ["see also", "related", "see"],
    "de": ["siehe auch", "siehe"],
    "pl": ["zobacz też", "zobacz także", "zobacz również", "patrz też", "patrz także", "patrz również", "zobacz", "patrz"],
    "nl": ["zie ook", "zie"],
    "fr": ["voir aussi", "voir également", "voir"],
    "es": ["véase también", "ver también", "véase"],
    "it": ["vedi anche", "vedi"],
}
WITHOUT_COLON = {
    "see also", "siehe auch", "zobacz też", "zobacz także", "zobacz również", "patrz też", "patrz także",
    "patrz również", "zie ook", "voir aussi", "voir également", "véase también", "ver también", "vedi anche",
}
# fmt: on
# "and" before the last label of a list, per language (en, de, pl ×2, nl, fr, es, it).
FINAL_CONJUNCTIONS = ["and", "und", "i", "oraz", "en", "et", "y", "e", "&"]

_phrases = sorted({p for ps in PHRASES.values() for p in ps}, key=len, reverse=True)
_with_colon = "|".join(re.escape(p) for p in _phrases)
_without_colon = "|".join(re.escape(p) for p in _phrases if p in WITHOUT_COLON)
_EMPHASIS = r"[*_]{0,3}"  # Markdown: "**See also:** A, B" or "*Related*: A"
LINE = re.compile(
    rf"^\(?{_EMPHASIS}(?:(?:{_with_colon}){_EMPHASIS}\s*:{_EMPHASIS}"
    rf"|(?:{_without_colon}){_EMPHASIS}\s+(?=(?-i:[*_\[\"“„'‘«A-ZÀ-ÞĄĆĘŁŃÓŚŹŻ])))\s*(?P<labels>\S.*)$",
    re.IGNORECASE,
)
_CONJUNCTION = re.compile(
    rf"\s+(?:{'|'.join(re.escape(c) for c in FINAL_CONJUNCTIONS)})\s+", re.IGNORECASE
)
_LEADING_CONJUNCTION = re.compile(
    rf"^(?:{'|'.join(re.escape(c) for c in FINAL_CONJUNCTIONS)})\s+", re.IGNORECASE
)
_WIKI_LINK = re.compile(r"\[\[([^\[\]|]+?)(?:\|[^\[\]]+?)?\]\]")
_MD_LINK = re.compile(r"\[([^\[\]]+)\]\([^()\s]*\)")
# A page reference after a label: "Combat (page 12)", "Kampf (S. 12)", "Walka (str. 12)".
_PAGE_REF = re.compile(
    r"\s*(?:\((?:p|pp|page|pages|s|seite|seiten|str|strona|blz|pag|pág|página|p\.\s*ex)\.?\s*\d+[^)]*\)"
    r"|,?\s+(?:on\s+)?(?:page|p\.|seite|s\.|str\.|blz\.|página|pág\.)\s*\d+)$",
    re.IGNORECASE,
)
_QUOTES = " \"'“”„‘’«»*_"


def match_cross_reference_line(text: str) -> str | None:
    """The label part of a cross-reference line, or None if the line is not one."""
    text = text.strip()
    match = LINE.match(text)
    if not match:
        return None
    labels = match.group("labels").strip()
    if text.startswith("(") and labels.endswith(")"):
        labels = labels[:-1].rstrip()
    return labels or None


def normalise_title(text: str) -> str:
    """How titles are compared when deciding whether a label names a known entry."""
    return " ".join(text.split()).strip(_QUOTES + ".").casefold()


def split_labels(text: str, known: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """ "A, B; C and D" → [A, B, C, D].

    ``known`` holds the (normalised) titles of the document's own entries. A part with a
    conjunction in it is split when both sides are known titles and the whole is not;
    otherwise only the last part of a list of two or more is split, and only when the
    label after the conjunction starts with a capital ("…, Piloci i Ekwipunek" but not
    "…, Im Spiel und nicht im Spiel"). A single label is never split on evidence of
    capitals alone: "In Play and Out of Play" stays one label.
    """
    text = _WIKI_LINK.sub(lambda m: m.group(1), text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = text.strip().rstrip(".").strip()
    parts = [_LEADING_CONJUNCTION.sub("", part.strip()) for part in _split_outside_brackets(text)]
    parts = [part for part in parts if part.strip(_QUOTES)]
    out: list[str] = []
    for index, part in enumerate(parts):
        last_of_list = index == len(parts) - 1 and len(parts) >= 2
        out.extend(_split_conjunction(part, known, last_of_list))
    labels: list[str] = []
    for label in out:
        label = _PAGE_REF.sub("", label).strip(_QUOTES).rstrip(".").strip(_QUOTES)
        if label and label not in labels:
            labels.append(label)
    return labels


def _split_outside_brackets(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for position, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
        elif char in ",;" and depth == 0:
            parts.append(text[start:position])
            start = position + 1
    parts.append(text[start:])
    return parts


def _split_conjunction(part: str, known, last_of_list: bool) -> list[str]:
    part = part.strip()
    matches = list(_CONJUNCTION.finditer(part))
    if not matches:
        return [part]
    if known and normalise_title(part) in known:
        return [part]
    if known:
        for match in matches:
            left, right = part[: match.start()].strip(), part[match.end() :].strip()
            if normalise_title(left) in known and normalise_title(right) in known:
                return [left, right]
    if last_of_list:
        match = matches[-1]
        right = part[match.end() :].strip()
        first = right.lstrip(_QUOTES + "([")[:1]
        if first.isupper() or first.isdigit():
            return [part[: match.start()].strip(), right]
    return [part]
