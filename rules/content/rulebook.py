"""Stepping through a game's texts in reading order: rulebooks, previous and next, contents.

A reader works through a rulebook a section at a time, and leafs through a glossary an
entry at a time. This module says what that order is, once, for the entry pages'
previous/next links (stored when written, ``navigation``), the contents page and the
printed booklets (``rules.builds.booklet``), so all of them agree.

Decisions:

- **A rulebook** is the rule sections (``Entry.Kind.SECTION``) of one game and language
  that cite the same source: two imported documents (a "Learn to play" and a rules
  reference, say) are two rulebooks, whose ``order`` both start at 0. Sections citing no
  source form one rulebook too. A section belongs to the rulebook of the top of its tree.
- **Document order** is the section tree read top to bottom: each section, then its
  sub-sections, siblings by ``order`` (then id). For an import that is the order of the
  document; for sections added in the admin it keeps every section under its parent.
  A section whose parent is not a published section starts a tree of its own (as on the
  game page); sections in a loop of parents are read after the rest, once each.
- **Glossary entries and rulings** (every other kind) are read A–Z by title, in the
  alphabetical order of their language, letter by letter, exactly as the game page
  lists them (``rules.shared.collation.letter_groups``).
- **Previous and next stay inside their sequence**: a rulebook's first section has no
  previous, its last no next; glossary entries step through the glossary only.
- **Stored with the entry** (``Entry.relations["navigation"]``, computed by
  ``rules.derived.relations.compute`` through ``navigation()``): the previous and next entry and
  the section's ancestors, so the entry page stays one query. Nothing that counts the
  whole sequence ("7 of 240") is stored: adding one section would rewrite every entry
  after it; as it is, a new entry changes only its neighbours. The whole contents are a
  page of their own (``contents``), one query, with the reader's place marked.
- Only published entries are in a sequence; a draft has no navigation until it is
  published.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape

from ..shared.collation import letter_groups
from ..shared.text import numbered_title, shown_number
from .prepared import prepared_rows
from .querysets import Status

SECTION = "section"  # Entry.Kind.SECTION (models imports this module's users, not this)
ROW_FIELDS = ("pk", "kind", "source_id", "parent_id", "order", "title", "slug", "number")


@dataclass(frozen=True)
class Row:
    """The few columns of an entry that its place in a sequence needs."""

    pk: int
    kind: str
    source_id: int | None
    parent_id: int | None
    order: int
    title: str
    slug: str
    number: str

    @property
    def display_title(self) -> str:  # Entry.__str__
        return numbered_title(self.number, self.title)

    def linked(self) -> dict:
        """As ``rules.derived.relations`` stores a linked entry."""
        return {"id": self.pk, "title": self.title, "slug": self.slug, "number": self.number}


@dataclass
class Placed:
    row: Row
    depth: int  # 0 for the top of a tree
    ancestors: list[Row]  # the top first


@dataclass
class Rulebook:
    source_id: int | None
    items: list[Placed] = field(default_factory=list)


def glossary(rows: Iterable[Row], language: str):
    """The glossary entries and rulings among ``rows`` by letter (``LetterGroup``s), in
    the game page's A–Z order."""
    return letter_groups(sorted((row for row in rows if row.kind != SECTION), key=lambda row: row.pk), language)


def rulebooks(rows: Iterable[Row]) -> list[Rulebook]:
    """The rule sections among ``rows`` (one game and language, published) as rulebooks,
    each in document order. Rulebooks come in the order of their first section."""
    sections = sorted((row for row in rows if row.kind == SECTION), key=lambda row: (row.order, row.pk))
    ids = {row.pk for row in sections}
    children: dict[int | None, list[Row]] = defaultdict(list)
    for row in sections:
        children[row.parent_id if row.parent_id in ids and row.parent_id != row.pk else None].append(row)

    books: dict[int | None, Rulebook] = {}
    seen: set[int] = set()

    def walk(top: Row) -> None:
        book = books.setdefault(top.source_id, Rulebook(top.source_id))
        stack = [(top, 0, [])]
        while stack:
            row, depth, ancestors = stack.pop()
            if row.pk in seen:
                continue
            seen.add(row.pk)
            book.items.append(Placed(row, depth, ancestors))
            below = [*ancestors, row]
            stack.extend((child, depth + 1, below) for child in reversed(children.get(row.pk, [])))

    for top in children.get(None, []):
        walk(top)
    for row in sections:  # only sections whose parents form a loop are left
        if row.pk not in seen:
            walk(row)
    return list(books.values())


# --- stored with each entry (rules.derived.relations) ------------------------------------------


@prepared_rows(int)
def _published_rows(game_id: int):
    """The same SQL for every game (rules.content.prepared: compiled once)."""
    from .models import Entry

    published = Entry.objects.filter(game_id=game_id, status=Status.PUBLISHED)
    return published.order_by().values_list("language", *ROW_FIELDS)


def navigation(game_id: int) -> dict[int, dict]:
    """Entry id → its place in its sequence, for every published entry of one game:
    ``{"sequence": "rules" | "glossary", "previous", "next": linked or None,
    "ancestors": [linked, …]}`` and, in the glossary, ``"letter"``: the id of its letter
    on the game page. One query."""
    by_language: dict[str, list[Row]] = defaultdict(list)
    for language, *values in _published_rows(game_id):
        by_language[language].append(Row(*values))
    found: dict[int, dict] = {}
    for language, rows in by_language.items():
        for book in rulebooks(rows):
            _step_through([placed.row for placed in book.items], "rules", found)
            for placed in book.items:
                found[placed.row.pk]["ancestors"] = [row.linked() for row in placed.ancestors]
        letters = glossary(rows, language)
        _step_through([row for group in letters for row in group.items], "glossary", found)
        for group in letters:
            for row in group.items:
                found[row.pk]["letter"] = group.anchor  # the game page's A–Z jump target
    return found


def _step_through(rows: list[Row], sequence: str, found: dict[int, dict]) -> None:
    for index, row in enumerate(rows):
        found[row.pk] = {
            "sequence": sequence,
            "previous": rows[index - 1].linked() if index else None,
            "next": rows[index + 1].linked() if index + 1 < len(rows) else None,
            "ancestors": [],
        }


# --- the contents page ------------------------------------------------------------------


@dataclass(frozen=True)
class ContentsBook:
    source_id: int | None
    title: str  # the source's title, or "" for sections citing none
    items: list[Placed]


def contents(game, language: str) -> list[ContentsBook]:
    """The rulebooks of a game in one language, for its contents page: one query."""
    from .models import Entry

    rows = (
        Entry.objects.published()
        .for_game(game)
        .for_language(language)
        .filter(kind=SECTION)
        .order_by()
        .values_list(*ROW_FIELDS, "source__title")
    )
    titles, sections = {}, []
    for *values, source_title in rows:
        row = Row(*values)
        titles[row.source_id] = source_title or ""
        sections.append(row)
    return [ContentsBook(book.source_id, titles[book.source_id], book.items) for book in rulebooks(sections)]


def tree_html(items: list[Placed], href, current: str | None = None, current_label: str = "") -> str:
    """Nested ``<ol>`` of a rulebook's sections (items in document order), every value
    escaped. ``href(row)`` gives each link; the item whose slug is ``current`` is marked
    (``aria-current``, a visible label). Built in Python: a rulebook has hundreds of
    sections, and a template recursion per section costs more than the page."""
    out, depth = ['<ol class="toc-list">'], 0
    for index, placed in enumerate(items):
        row = placed.row
        if index:
            if placed.depth > depth:
                out.append('<ol class="toc-list">' * (placed.depth - depth))
            else:
                out.append("</li>" + "</ol></li>" * (depth - placed.depth))
        depth = placed.depth
        here = current is not None and row.slug == current
        shown = shown_number(row.number, row.title)
        number = f'<span class="toc-number">{escape(shown)}.</span> ' if shown else ""
        title = escape(row.title)
        attributes = ' class="toc-here" aria-current="location"' if here else ""
        label = f' <span class="toc-here-label">{escape(current_label)}</span>' if here and current_label else ""
        out.append(
            f'<li id="toc-{escape(row.slug)}"><a href="{escape(href(row))}"{attributes}>{number}{title}</a>{label}'
        )
    if items:
        out.append("</li>" + "</ol></li>" * depth)
    out.append("</ol>")
    return "".join(out)
