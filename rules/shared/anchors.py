"""Deep links to numbered rules inside a text: ``…/rules/casting-spells/#601.2a``.

A rules text imported as one entry keeps its numbered paragraphs ("601.2a To cast a
spell, …", written ``**601.2a** To cast …`` by the importer). Each paragraph, list item
or heading that opens with a rule number gets that number as its ``id`` when the body is
rendered (``add_rule_ids``, called by ``rules.derived.rendering`` for entry bodies only, so an
erratum shown on the same page cannot repeat an id), and search links a hit found in
such a paragraph to it (``rule_at``).

Decisions:

- **What counts as a rule number**: a number with a sub-number ("2.3", "601.2a",
  "100.1.4") or a letter ("7a"), with or without a closing ".", or a whole number with
  its "." ("7. Combat"); followed by a space. "2 players each draw" opens with no rule
  number. One rule for the HTML and the plain text search keeps
  (``rules.search.index.plain_text``), so a link search makes always has its target.
- **The number is the id, as written** ("601.2a"): HTML5 allows any id without spaces;
  CSS and ``querySelector`` need it escaped (``CSS.escape``), ``getElementById`` does
  not. Ids of the site's own markup start with a letter, so no rule number takes one.
- **Added after sanitising**: nh3 drops every ``id`` written in a text, so the only ids
  in stored HTML are these, made of digits, letters and dots.
- **Once per text**: a number that opens two paragraphs names the first.
"""

import re

_NUMBER = r"(?:\d{1,4}(?:\.\d{1,4})+[a-z]?|\d{1,4}[a-z])\.?|\d{1,4}\."
# An id add_rule_ids gives (the number without its closing "."): what a fragment names.
RULE_ID = re.compile(r"\d{1,4}(?:\.\d{1,4})*[a-z]?")


def _number_at_start(after: str) -> re.Pattern:
    return re.compile(rf"(?P<number>{_NUMBER})(?={after})")


# In text (a line of plain text): the number, then a space or the line's end.
TEXT_START = _number_at_start(r"\s|$")
# In stored HTML: a block's start tag, perhaps an emphasis around the number, the number.
_INLINE = r"(?:<(?:strong|b|em|i)>)?"
HTML_START = re.compile(rf"<(?P<tag>p|li|h[2-6])>(?P<inline>{_INLINE})(?P<number>{_NUMBER})(?=\s|</)")
_OPENS_WITH_DIGIT = re.compile(rf"<(?:p|li|h[2-6])>{_INLINE}\d")  # a quick no: most texts have no rule numbers


def rule_number(text: str) -> str | None:
    """The rule number a line of text opens with ("601.2a"), without its closing "."."""
    match = TEXT_START.match(text.lstrip())
    return match.group("number").rstrip(".") if match else None


def add_rule_ids(html: str) -> str:
    """Sanitised HTML with an ``id`` on each block that opens with a rule number."""
    if not html or not _OPENS_WITH_DIGIT.search(html):
        return html
    used: set[str] = set()

    def with_id(match: re.Match) -> str:
        number = match.group("number").rstrip(".")
        if number in used:
            return match.group(0)
        used.add(number)
        return f'<{match.group("tag")} id="{number}">{match.group("inline")}{match.group("number")}'

    return HTML_START.sub(with_id, html)


_RULE_IDS = re.compile(r'<(?:p|li|h[2-6]) id="([^"]+)"')


def rule_ids(html: str) -> list[str]:
    """The rule numbers ``add_rule_ids`` gave ids to in ``html``, in order."""
    return _RULE_IDS.findall(html) if ' id="' in html else []


def rule_at(text: str, offset: int) -> str | None:
    """The rule whose paragraph holds ``text[offset]``: the number opening the nearest
    line at or before it that opens with one (``text`` keeps its line breaks)."""
    start = text.rfind("\n", 0, offset) + 1
    while True:
        end = text.find("\n", start)
        number = rule_number(text[start : end if end >= 0 else len(text)])
        if number or start == 0:
            return number
        start = text.rfind("\n", 0, start - 1) + 1
