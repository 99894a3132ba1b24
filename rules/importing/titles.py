"""Titles of numbered rules that have none of their own: one pattern, one meaning.

A rulebook's numbered paragraph ("7. Als meerdere speciale krachten …") has a number and
a text but no title; the importer gives it one from a pattern: ``{number}`` is its
number, ``{parent}`` (or ``{section}``) the title of the section heading it stands under.
The default, ``{parent} {number}``, makes "Combat 7.3a"; Blue Moon's demo rules are
"Regel {number}".

The pattern belongs to the source, not to one import: the command line
(``--numbered-title``), the admin upload (*Titles of numbered rules*) and the manifest
(``numbered_title``) all name the same thing, and the source keeps the one used
(``Source.numbered_title``), so a later version imported without it titles its rules as
the first did. A source imported before it kept one has its pattern read back from its
rules' titles (``infer``). A rule whose stored title is no rendering of the pattern (a
moderator named it) keeps that title when a new version brings its text under a new
number (``rules.importing.writing``).

Pure functions: no database, no Django.
"""

import re
from collections import Counter
from functools import cache

DEFAULT = "{parent} {number}"
# A pattern read back from titles must fit this many of the source's numbered rules
# whose titles hold their number (more than half: one re-titled rule changes nothing).
INFER_SHARE = 0.5


def problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot title numbered rules, or None: it must name ``{number}``
    (else every rule would get the same title) and no other field than ``{parent}`` or
    ``{section}``."""
    fields = re.findall(r"\{([^{}]*)\}", pattern)
    unknown = sorted({name for name in fields if name not in ("number", "parent", "section")})
    if unknown:
        return f"unknown field {{{unknown[0]}}} in the title pattern {pattern!r}: use {{number}} and {{parent}}"
    if "number" not in fields:
        return f"the title pattern {pattern!r} must contain {{number}}, or every rule gets the same title"
    if len(pattern) > 200:
        return "the title pattern is longer than 200 characters"
    return None


def render(pattern: str, parent: str, number: str) -> str:
    """The title ``pattern`` gives rule ``number`` under the section titled ``parent``."""
    try:
        title = pattern.format(parent=parent, section=parent, number=number)
    except (KeyError, IndexError, ValueError):
        title = f"{parent} {number}"
    return " ".join(title.split())


def _piece(text: str) -> str:
    """A regular expression for a piece of a pattern without ``{number}``: its words as
    written (any white space between), a section's title (``{parent}``) as anything."""
    out = []
    for part in re.split(r"(\{(?:parent|section)\})", text):
        if part in ("{parent}", "{section}"):
            out.append(".*?")
        elif part:
            out.append(r"\s*".join(re.escape(word) for word in part.split(" ")))
    return "".join(out)


@cache
def _pieces(pattern: str) -> tuple[re.Pattern, re.Pattern] | None:
    """What comes before and after ``{number}`` in ``pattern``, as regular expressions,
    compiled once per pattern (an import asks for each of its rules); None for a pattern
    that names the number other than once."""
    parts = pattern.split("{number}")
    if len(parts) != 2:
        return None
    return re.compile(_piece(parts[0]), re.DOTALL), re.compile(_piece(parts[1]), re.DOTALL)


def is_rendering(title: str, pattern: str, number: str) -> bool:
    """Whether ``title`` is what ``pattern`` makes of rule ``number`` (under some section):
    a title the importer gave, not one a moderator chose."""
    pieces = _pieces(pattern) if number else None
    if pieces is None:
        return False
    before, after = pieces
    title = " ".join(title.split())
    start = title.find(number)
    while start != -1:
        if before.fullmatch(title[:start]) and after.fullmatch(title[start + len(number) :]):
            return True
        start = title.find(number, start + 1)
    return False


def infer(rules: list[tuple[str, str, list[str]]]) -> str | None:
    """The pattern a source's numbered rules were titled with, from (number, title, the
    titles of the sections it stands under) for each: the pattern that more than half of
    the titles holding their number share: ``{parent} {number}`` where a title is a
    section's title and the number, else a literal one ("Regel {number}"); None when no
    pattern is shared that widely."""
    templates: Counter[str] = Counter()
    for number, title, sections in rules:
        title = " ".join(title.split())
        if not number or number not in title:
            continue
        if any(title == render(DEFAULT, section, number) for section in sections):
            templates[DEFAULT] += 1
        else:
            templates[title.replace(number, "{number}", 1)] += 1
    if not templates:
        return None
    template, count = templates.most_common(1)[0]
    if count < 2 or count <= INFER_SHARE * sum(templates.values()):
        return None
    return template
