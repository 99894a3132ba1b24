"""Errata applied: an entry's text as corrected, each changed passage marked.

An erratum says what the printed rule said (``original_text``) and what it says now
(``corrected_text``). Where that printed passage occurs in the body of an entry the
erratum affects, the entry reads "as corrected": the corrected text stands in its place,
marked (``<ins>``) and linked to the erratum; the printed text is one click away, with
the passages the errata replace marked too (``<del>``).

Decisions:

- **Data, not a guess.** A passage is replaced only where the erratum's original text
  occurs in the body as written, Markdown and ``[[links]]`` included. The one leeway is
  white space: a run of spaces or a single line break in either text counts as one space
  (a copy of printed text is wrapped differently); a blank line matches only a blank
  line. A passage that starts or ends with a letter or digit does not match inside a
  word ("3" is not found in "13"), and a match that would cut a ``[[link]]`` in two, or
  start just after a backslash escape, is no match. Every occurrence is replaced (the
  erratum says "X now reads Y"); the page says how many there were. An erratum whose
  passage is not found is applied nowhere and the page says so; its box still shows it.
- **Oldest first.** Errata apply in date order (undated ones first, then the errata
  list's order), each to the text the earlier ones left, so a later erratum may correct
  what an earlier one wrote; a passage a later erratum replaces is marked as the later
  one's (both are named in the notice).
- **Which errata:** published, of the entry's game and in its language (an erratum
  quotes the text of its language), with an original text. The entry's own status does not matter: the
  moderators' view of a draft shows what readers will get.
- **Marked in the rendered HTML.** The Markdown is rendered once per view with two
  sentinels (Unicode noncharacters, never part of a rules text; removed from the texts
  first) around each change, outside any list or heading marker at a line's start. In
  the sanitised HTML every piece of text between the sentinels is wrapped in ``<ins>``
  (or ``<del>``), so a change may span paragraphs, list items, emphasis and links, and
  a numbered link to the erratum's box on the page (``#erratum-<id>``) follows it. Should
  a sentinel land anywhere but in text (an address, say), nothing is marked and the page
  shows the printed text with a notice, rather than an unmarked change.
- **When written, like the relations.** Stored in ``Entry.corrections`` (JSON: the two
  HTML texts and each erratum's count) with a fingerprint of what it was made from: the
  body's and each erratum's own HTML fingerprints (``rules.derived.rendering``: the texts and
  where their links point) and the errata's titles and dates. ``refresh(game_id)`` runs
  with the relations refresh (``rules.derived.relations.refresh``: every entry, erratum, link and
  import write) and renders again only the entries whose fingerprint changed. The entry
  page reads the entry row only, as before.
"""

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser

from django.db.models import F, Q

from ..content.prepared import prepared_rows
from ..content.querysets import Status
from ..content.stored import erratum_anchor as anchor
from ..shared.anchors import add_rule_ids
from ..shared.bulk import store_fingerprinted
from ..shared.wikilinks import WIKI_LINK

# Raise when the stored output changes; ``manage.py render_html`` redoes all.
# 2: numbered rules keep their ids in the corrected text.
VERSION = "2"
START, END = "\ufdd0", "\ufdd1"
SENTINELS = re.compile(f"[{START}{END}]")


# --- applying errata to a text ------------------------------------------------------------


@dataclass(frozen=True)
class ErratumText:
    """What applying an erratum needs of it."""

    id: int
    slug: str
    title: str
    published_on: str | None  # ISO date
    original: str
    corrected: str


@dataclass(frozen=True)
class Piece:
    """A run of the text: printed (``erratum`` None) or written by an erratum.

    ``printed`` is the span of the printed body it stands for: exactly its own for
    printed text, the whole passage replaced for an erratum's text.
    """

    text: str
    erratum: int | None
    printed: tuple[int, int]

    def cut(self, start: int, end: int) -> "Piece":
        return Piece(self.text[start:end], self.erratum, self.printed_span(start, end))

    def printed_span(self, start: int, end: int) -> tuple[int, int]:
        if self.erratum is not None:
            return self.printed
        return self.printed[0] + start, self.printed[0] + end


@dataclass
class Applied:
    """The body with the errata applied: its pieces, and how many places each erratum changed."""

    body: str
    pieces: list[Piece]
    places: list[int]

    @property
    def changed(self) -> bool:
        return any(self.places)

    def corrected_marks(self) -> tuple[str, list[list[int]]]:
        """The corrected Markdown with sentinels, and the errata of each marked run."""
        spans, pos = [], 0
        for piece in self.pieces:
            if piece.erratum is not None:
                spans.append((pos, pos + len(piece.text), [piece.erratum]))
            pos += len(piece.text)
        return with_sentinels("".join(p.text for p in self.pieces), spans)

    def printed_marks(self) -> tuple[str, list[list[int]]]:
        """The printed Markdown with sentinels around every passage the errata replace
        (overlapping passages merged, naming each erratum)."""
        merged: list[list] = []
        for piece in sorted((p for p in self.pieces if p.erratum is not None), key=lambda p: p.printed):
            start, end = piece.printed
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
                if piece.erratum not in merged[-1][2]:
                    merged[-1][2].append(piece.erratum)
            else:
                merged.append([start, end, [piece.erratum]])
        return with_sentinels(self.body, [(start, end, sorted(errata)) for start, end, errata in merged])


def passage_pattern(original: str) -> re.Pattern | None:
    """The regular expression that finds an erratum's printed passage (see the module's
    decisions: exact, but for white space; never inside a word)."""
    text = original.strip()
    if not text:
        return None
    parts = []
    for part in re.split(r"(\s+)", text):
        if not part:
            continue
        if not part.isspace():
            parts.append(re.escape(part))
        elif re.search(r"\n[^\S\n]*\n", part):  # a blank line
            parts.append(r"[^\S\n]*\n(?:[^\S\n]*\n)+[^\S\n]*")
        else:  # spaces and at most one line break
            parts.append(r"(?:[^\S\n]+\n?[^\S\n]*|\n[^\S\n]*)")
    head = r"(?<!\w)" if re.match(r"\w", text) else ""
    tail = r"(?!\w)" if re.search(r"\w$", text) else ""
    return re.compile(head + "".join(parts) + tail)


def _clean_cut(text: str, start: int, end: int, links: list[tuple[int, int]]) -> bool:
    if start > 0 and text[start - 1] == "\\":
        return False
    return not any(a < start < b or a < end < b for a, b in links)


def _replace(pieces: list[Piece], start: int, end: int, text: str, erratum: int) -> list[Piece]:
    before, after, spans = [], [], []
    pos = 0
    for piece in pieces:
        a, b = pos, pos + len(piece.text)
        pos = b
        if b <= start:
            before.append(piece)
        elif a >= end:
            after.append(piece)
        else:
            if a < start:
                before.append(piece.cut(0, start - a))
            spans.append(piece.printed_span(max(start, a) - a, min(end, b) - a))
            if b > end:
                after.append(piece.cut(end - a, b - a))
    printed = (min(s for s, _ in spans), max(e for _, e in spans))
    return [*before, Piece(text, erratum, printed), *after]


def apply_errata(body: str, errata: list[ErratumText]) -> Applied:
    """``body`` with each erratum's corrected text in place of its original passage,
    oldest erratum first (``errata`` in that order)."""
    body = SENTINELS.sub("", body or "")
    pieces = [Piece(body, None, (0, len(body)))]
    places = []
    for index, erratum in enumerate(errata):
        pattern = passage_pattern(SENTINELS.sub("", erratum.original))
        if pattern is None:
            places.append(0)
            continue
        text = "".join(piece.text for piece in pieces)
        links = [m.span() for m in WIKI_LINK.finditer(text)]
        spans = [m.span() for m in pattern.finditer(text) if _clean_cut(text, *m.span(), links)]
        corrected = SENTINELS.sub("", erratum.corrected).strip()
        for start, end in reversed(spans):  # from the end: earlier offsets stay valid
            pieces = _replace(pieces, start, end, corrected, index)
        places.append(len(spans))
    return Applied(body, pieces, places)


# A line's block markup: indentation, list markers, heading hashes, quote marks, a table's pipe.
_BLOCK_PREFIX = re.compile(r"(?:[^\S\n]*(?:[-*+]|\d{1,9}[.)]|#{1,6}|>|\|)(?=\s)[^\S\n]*|[^\S\n]+)*")


def with_sentinels(text: str, spans: list[tuple[int, int, list[int]]]) -> tuple[str, list[list[int]]]:
    """``text`` with START and END around each span's words (not around the white space
    or the block markup at its edges, which must stay at their line's start)."""
    out, marks, pos = [], [], 0
    for start, end, errata in spans:
        while start < end and text[start] in " \t\n":
            start += 1
        if start == 0 or text[start - 1] == "\n":
            start = _BLOCK_PREFIX.match(text, start, end).end()
        while end > start and text[end - 1].isspace():
            end -= 1
        out += [text[pos:start], START, text[start:end], END]
        marks.append(errata)
        pos = end
    out.append(text[pos:])
    return "".join(out), marks


# --- marking the rendered HTML -------------------------------------------------------------


class MarkingFailed(Exception):
    """A sentinel landed somewhere other than in text: nothing can be marked."""


@dataclass(frozen=True)
class Mark:
    """How one marked run is shown: its element, and the links to its errata after it."""

    tag: str  # "ins" or "del"
    errata: list  # [(number, ErratumText)]


class _Marker(HTMLParser):
    """Re-emits sanitised HTML, wrapping the text between sentinels and linking the
    errata after each run. Tags pass through verbatim; text is escaped again."""

    def __init__(self, marks: list[Mark]):
        super().__init__(convert_charrefs=True)
        self.marks = iter(marks)
        self.active: Mark | None = None
        self.out: list[str] = []

    def _tag(self) -> None:
        raw = self.get_starttag_text()
        if SENTINELS.search(raw):
            raise MarkingFailed(raw)
        self.out.append(raw)

    def handle_starttag(self, tag, attrs):
        self._tag()

    def handle_startendtag(self, tag, attrs):
        self._tag()

    def handle_endtag(self, tag):
        self.out.append(f"</{tag}>")

    def handle_data(self, data):
        for part in re.split(f"([{START}{END}])", data):
            if part == START:
                if self.active is not None:
                    raise MarkingFailed("nested")
                self.active = next(self.marks, None)
                if self.active is None:
                    raise MarkingFailed("more runs than marks")
            elif part == END:
                if self.active is None:
                    raise MarkingFailed("an end without a start")
                self.out.append(_references(self.active))
                self.active = None
            elif part:
                text = escape(part, quote=False)
                if self.active is not None and not part.isspace():
                    text = f"{_opening(self.active)}{text}</{self.active.tag}>"
                self.out.append(text)

    def close(self):
        super().close()
        if self.active is not None or next(self.marks, None) is not None:
            raise MarkingFailed("a run left open or a mark unused")


def _opening(mark: Mark) -> str:
    _number, erratum = mark.errata[-1]
    datetime = f' datetime="{escape(erratum.published_on)}"' if erratum.published_on else ""
    return f'<{mark.tag} class="erratum-change" cite="#{anchor(erratum.id)}"{datetime}>'


def _references(mark: Mark) -> str:
    """A numbered link to each erratum's box; its name is the erratum's title (the
    text's language: the stored HTML holds no words of the interface)."""
    return "".join(
        f'<a class="erratum-ref" href="#{anchor(erratum.id)}" title="{escape(erratum.title)}">'
        f'<sup>{number}</sup><span class="visually-hidden"> {escape(erratum.title)}</span></a>'
        for number, erratum in mark.errata
    )


def mark_html(html: str, marks: list[Mark]) -> str:
    parser = _Marker(marks)
    parser.feed(html)
    parser.close()
    return "".join(parser.out)


# --- one entry --------------------------------------------------------------------------


def correct(body: str, errata: list[ErratumText], render) -> dict:
    """What ``Entry.corrections`` stores for ``body`` and its errata (oldest first);
    ``render`` turns Markdown into sanitised HTML (``rules.derived.rendering.render_text``)."""
    applied = apply_errata(body, errata)
    # The errata that changed the text are numbered 1, 2 … in the order they apply.
    numbered, listed = {}, []
    for index, (erratum, places) in enumerate(zip(errata, applied.places, strict=True)):
        if places:
            numbered[index] = (len(numbered) + 1, erratum)
        listed.append(
            {
                "id": erratum.id, "slug": erratum.slug, "title": erratum.title, "published_on": erratum.published_on,
                "places": places, "number": numbered[index][0] if places else None,
            }  # fmt: skip
        )
    if not applied.changed:
        return {"errata": listed, "corrected_html": "", "printed_html": "", "failed": False}
    try:
        views = {}
        for name, tag, (markdown, runs) in (
            ("corrected_html", "ins", applied.corrected_marks()),
            ("printed_html", "del", applied.printed_marks()),
        ):
            marks = [Mark(tag, [numbered[index] for index in run]) for run in runs]
            views[name] = mark_html(str(render(markdown)), marks)
        # Numbered rules keep their ids (#601.2a, rules.shared.anchors) in the view read by
        # default; the printed one, on the same page, must not repeat them.
        views["corrected_html"] = add_rule_ids(views["corrected_html"])
    except MarkingFailed:
        return {"errata": listed, "corrected_html": "", "printed_html": "", "failed": True}
    return {"errata": listed, **views, "failed": False}


# --- every entry of a game, when written --------------------------------------------------


@prepared_rows(int)
def _errata_rows(game_id: int):
    """The same SQL for every game (rules.content.prepared: compiled once)."""
    from ..content.models import Erratum

    # From the game's errata (a small table, by its game index), each to its entries by
    # their primary key: a condition on the entries' columns here (their game, their
    # language) leads SQLite to look up every entry of the game for each erratum, ten
    # times slower, so those are checked below.
    through = Erratum.affects.through.objects.filter(
        erratum__game_id=game_id, erratum__status=Status.PUBLISHED
    ).exclude(erratum__original_text="")
    return through.order_by(
        F("erratum__published_on").asc(nulls_first=True), "erratum__order", "erratum__title", "erratum_id"
    ).values_list(
        "entry_id", "entry__game_id", "entry__language", "erratum__language", "erratum_id", "erratum__slug",
        "erratum__title", "erratum__published_on", "erratum__original_text", "erratum__corrected_text",
        "erratum__html_fingerprint",
    )  # fmt: skip


def _errata_by_entry(game_id: int):
    """Entry id → [(erratum, its HTML fingerprint)], oldest first."""
    rows = _errata_rows(game_id)
    found = defaultdict(list)
    for entry_id, game, language, erratum_language, pk, slug, title, published_on, original, corrected, html in rows:
        if game != game_id or language != erratum_language:
            continue
        published = published_on.isoformat() if published_on else None
        found[entry_id].append((ErratumText(pk, slug, title, published, original, corrected), html))
    return found


def fingerprint(entry_html_fingerprint: str, errata) -> str:
    """A hash of what an entry's corrections are made from."""
    digest = hashlib.blake2b(f"{VERSION}\x00{entry_html_fingerprint}".encode(), digest_size=16)
    for erratum, html_fingerprint in errata:
        digest.update(f"\x01{erratum.id}\x02{erratum.slug}\x02{erratum.title}\x02{erratum.published_on}\x02{html_fingerprint}".encode())
    return digest.hexdigest()


def compute(game_id: int, only_changed: bool = False) -> dict[int, tuple[dict, str]]:
    """Entry id → (its corrections, their fingerprint), for the entries of one game that
    have errata to apply or had some; with ``only_changed``, only those whose stored
    fingerprint differs. Two queries, and one per language whose texts have links."""
    from ..content.models import Entry
    from .references import link_targets
    from .rendering import render_text

    errata = _errata_by_entry(game_id)
    rows = (
        Entry.objects.filter(game_id=game_id)
        .filter(Q(pk__in=list(errata)) | ~Q(corrections_fingerprint=""))
        .values_list("pk", "language", "body", "html_fingerprint", "corrections_fingerprint")
    )
    targets: dict[str, dict] = {}
    found = {}
    for pk, language, body, html_fingerprint, stored in rows:
        mine = errata.get(pk, [])
        digest = fingerprint(html_fingerprint, mine) if mine else ""
        if only_changed and digest == stored:
            continue
        if not mine:
            found[pk] = ({}, "")
            continue
        texts = [body, *(erratum.corrected for erratum, _ in mine)]
        if any("[[" in text for text in texts) and language not in targets:
            targets[language] = link_targets(game_id, language)
        links = targets.get(language, {})
        found[pk] = (
            correct(body, [erratum for erratum, _ in mine], lambda text, links=links: render_text(text, links)),
            digest,
        )
    return found


def refresh(game_id: int) -> int:
    """Store the corrections of every entry of one game whose inputs changed; return how many."""
    from ..content.models import Entry

    return store_fingerprinted(Entry, "corrections", compute(game_id, only_changed=True))


