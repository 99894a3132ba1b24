"""A printed booklet: a game's whole glossary, or its rulebooks, on one page made to print.

Title page, table of contents, every entry in reading order (``rules.content.rulebook``: the
glossary A–Z as the game page lists it, rule sections in document order), each erratum
about an entry as a numbered footnote under it, and print styles with no navigation
(``static/css/rulebook.css``). The same ``Booklet`` is also written as a PDF
(``rules.builds.booklet_pdf``).

Decisions:

- **One query**: the entries with the columns a booklet shows, their stored HTML
  (``body_html``, rendered when written) and the errata stored with them
  (``Entry.relations["errata"]``, ``rules.derived.relations``), and their sources' details by a
  join. Nothing is rendered or resolved when a booklet is read.
- **Errata applied, as footnotes**: the entry's text as corrected where its errata
  apply (``Entry.corrections``, ``rules.derived.corrections``: each changed passage marked and
  linked to its footnote), else as printed; then each published erratum about it (its
  change as a word diff where the original is known, else the corrected text), numbered
  through the booklet, with a marker at the entry's title.
- **Anchors**: an entry with a rule number is at ``#<number>`` ("#601.2a", as on its own
  page); any other at ``#entry-<slug>``. An id a body repeats (the same rule number in
  two texts) is dropped after its first use, so every id on the page is unique.
- **A rulebook** is the sections citing one source (``rules.content.rulebook``); the booklet
  of the rules holds every rulebook of the game and language, or one (``source``).
"""

import re
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q
from django.utils.translation import gettext as _

from ..content.querysets import Status
from ..content.rulebook import ROW_FIELDS, SECTION, Placed, Row, glossary, rulebooks
from ..content.stored import ErratumOnPage, erratum_anchor
from ..shared.text import shown_number

GLOSSARY, RULES = "glossary", "rules"
PARTS = (GLOSSARY, RULES)
_ID = re.compile(r' id="([^"]*)"')


@dataclass(frozen=True)
class SourceInfo:
    title: str
    version: str
    attribution: str
    official: bool
    url: str


@dataclass(frozen=True)
class Footnote:
    number: int
    erratum: ErratumOnPage


@dataclass
class BookletEntry:
    row: Row
    anchor: str
    level: int  # its heading: 2 to 6
    depth: int
    aliases: list
    page: str
    is_fragment: bool
    body_html: str
    footnotes: list[Footnote]

    @property
    def title(self) -> str:
        return self.row.title

    @property
    def number(self) -> str:
        """The number to show before the title ("" where the title holds it)."""
        return shown_number(self.row.number, self.row.title)


@dataclass
class Part:
    """A letter of the glossary, or one rulebook."""

    title: str
    anchor: str
    entries: list[BookletEntry] = field(default_factory=list)
    items: list[Placed] = field(default_factory=list)  # a rulebook's tree, for its contents


@dataclass
class Booklet:
    kind: str  # GLOSSARY or RULES
    title: str
    sources: list[SourceInfo]
    updated_at: datetime | None
    parts: list[Part]
    anchors: dict[int, str]  # entry id → its anchor on the page
    show_part_titles: bool  # a glossary's letters; rulebooks when there are several

    @property
    def entries(self) -> list[BookletEntry]:
        return [entry for part in self.parts for entry in part.entries]

    @property
    def footnote_count(self) -> int:
        return sum(len(entry.footnotes) for entry in self.entries)


def _published(game, language: str, kind: str, source_id: int | None):
    from ..content.models import Entry

    entries = Entry.objects.filter(game=game, language=language, status=Status.PUBLISHED)
    if kind == GLOSSARY:
        return entries.filter(~Q(kind=SECTION))
    entries = entries.filter(kind=SECTION)
    if source_id == 0:  # the sections citing no source
        return entries.filter(source__isnull=True)
    if source_id is not None:
        return entries.filter(source_id=source_id)
    return entries


def has_entries(game, language: str, kind: str, source_id: int | None = None) -> bool:
    """Whether that booklet would print anything (one small query, nothing built)."""
    return _published(game, language, kind, source_id).exists()


def build(game, language: str, kind: str, source_id: int | None = None) -> Booklet:
    """The booklet of one game and language: ``kind`` is GLOSSARY or RULES; ``source_id``
    narrows RULES to one rulebook (0: the sections citing no source). One query."""
    rows = _published(game, language, kind, source_id).order_by().values_list(
        *ROW_FIELDS, "aliases", "page", "is_fragment", "body_html", "relations__errata", "corrections__corrected_html",
        "updated_at",
        "source__title", "source__version", "source__attribution", "source__official", "source__url",
    )  # fmt: skip
    width = len(ROW_FIELDS)
    by_pk, sources, updated = {}, {}, None
    for values in rows:
        row = Row(*values[:width])
        aliases, page, is_fragment, body_html, errata, corrected_html, updated_at, *source = values[width:]
        # The text as corrected where errata apply to it (rules.derived.corrections), else as printed.
        by_pk[row.pk] = (row, aliases or [], page, is_fragment, corrected_html or body_html or "", errata or [])
        updated = max(updated, updated_at) if updated else updated_at
        if row.source_id is not None:
            sources[row.source_id] = SourceInfo(
                *(value or "" for value in source[:3]), bool(source[3]), source[4] or ""
            )
    rows_only = [item[0] for item in by_pk.values()]

    if kind == GLOSSARY:
        letters = glossary(rows_only, language)
        parts = [Part(group.letter, group.anchor) for group in letters]
        placed = [[Placed(row, 0, []) for row in group.items] for group in letters]
        title, show_part_titles, base_level = _("Glossary"), True, 3
    else:
        books = rulebooks(rows_only)
        parts = [
            Part(
                sources[book.source_id].title if book.source_id in sources else _("Rule sections"),
                f"rulebook-{index}",
                items=book.items,
            )
            for index, book in enumerate(books, 1)
        ]
        placed = [book.items for book in books]
        show_part_titles = len(books) > 1
        base_level = 3 if show_part_titles else 2
        if len(books) == 1 and books[0].source_id in sources:
            title = sources[books[0].source_id].title
        else:
            title = _("Rules")

    used_ids: set[str] = {"booklet-contents-heading"}
    anchors: dict[int, str] = {}
    footnote = 0
    for part, items in zip(parts, placed, strict=True):
        used_ids.add(part.anchor)
        for item in items:
            row, aliases, page, is_fragment, body_html, errata = by_pk[item.row.pk]
            anchor = row.number if row.number and row.number not in used_ids else f"entry-{row.slug}"
            used_ids.add(anchor)
            anchors[row.pk] = anchor
            notes = []
            for erratum in errata:
                footnote += 1
                notes.append(Footnote(footnote, ErratumOnPage(**erratum)))
                # A corrected passage's mark points at this entry's footnote for it.
                body_html = body_html.replace(f'"#{erratum_anchor(erratum["id"])}"', f'"#fn-{footnote}"')
            part.entries.append(
                BookletEntry(
                    row=row,
                    anchor=anchor,
                    level=min(base_level + item.depth, 6),
                    depth=item.depth,
                    aliases=aliases,
                    page=page,
                    is_fragment=is_fragment,
                    body_html=_unique_ids(body_html, used_ids),
                    footnotes=notes,
                )
            )
    return Booklet(
        kind=kind,
        title=title,
        sources=[sources[pk] for pk in sorted(sources, key=lambda pk: sources[pk].title)],
        updated_at=updated,
        parts=parts,
        anchors=anchors,
        show_part_titles=show_part_titles,
    )


def _unique_ids(html: str, used: set[str]) -> str:
    """Stored HTML whose ids (rule numbers, ``rules.shared.anchors``) are not used yet on the
    page; an id already used is dropped."""
    if ' id="' not in html:
        return html

    def keep_or_drop(match: re.Match) -> str:
        if match.group(1) in used:
            return ""
        used.add(match.group(1))
        return match.group(0)

    return _ID.sub(keep_or_drop, html)
