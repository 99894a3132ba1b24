"""Entry previews: an entry's title and first lines, for hover and tap previews.

The site's pages (``static/js/previews.js``) show a preview of every cross-reference,
see-also label and ``[[Term]]`` link; the embed script does the same on other sites and
turns ``[[Game: Term]]`` text into links. Both read what this module returns through the
API (``rules.api.previews``).

Decisions:

- **Found as the page finds it.** ``preview_by_slug`` takes what an entry's address
  holds (game, slug, and the language of the UI or of ``?content=``) and picks the
  version the page would show: the one in that language, else the first by language,
  followed to its translation in that language where there is one (the page redirects
  there). So the preview is of the page the link opens.
- **Terms resolve by the cross-reference rule**, as ``[[Term]]`` in a body does: a
  *published* entry of the game whose title, else alias, has the term's normalised form
  (``rules.shared.text.normalize_label``). A term that only matches once diacritics and
  punctuation are folded ("Zdolnosci" for "Zdolności", typed on a keyboard without
  them) is taken next. Candidates come from the search index's name keys
  (``SearchName``, an index range scan), never from a scan of the game's entries; the
  game may be given by slug or by any of its names.
- **The first lines are plain text** (``excerpt``), taken from the stored HTML
  (``Entry.body_html``): paragraphs and list items on lines of their own, at most
  ``EXCERPT_LENGTH`` characters, cut at a word. Text, not HTML, so a client on another
  site puts it in with ``textContent`` and nothing in it can run. Only the head of the
  stored HTML is read from the database (``HTML_HEAD`` characters, which hold far more
  text than an excerpt needs), so a long rule section costs no more than a short one.
  It is made when read, for one entry (or the few terms of a lookup), and the whole
  response is cached like every API response (``rulesite.response_cache``).
- **A fixed number of queries**: a preview by slug is one query (two when it follows a
  translation), a lookup of up to ``MAX_TERMS`` terms three (games, name keys, entries)
  and a fourth when some were found in another language than the one asked for (their
  versions in it).
"""

from dataclasses import dataclass
from html.parser import HTMLParser

from django.db.models import F, Value
from django.db.models.functions import Greatest, StrIndex, Substr

from ..content.addresses import entry_path_template
from ..content.models import Entry, Game
from ..shared.languages import CONTENT_LANGUAGE_CODES
from ..shared.text import normalize_label
from .models import SearchName
from .normalize import name_key

EXCERPT_LENGTH = 300  # characters of plain text
HTML_HEAD = 4000  # characters of stored HTML read for an excerpt
MAX_TERMS = 50  # terms in one lookup
NAME_KEY_LENGTH = 200  # SearchName.key's length


@dataclass(frozen=True)
class Preview:
    id: int
    title: str
    number: str
    language: str
    game_slug: str
    game_name: str  # in the entry's language
    excerpt: str
    truncated: bool  # the entry says more than the excerpt
    path: str  # Entry.canonical_url(): the entry's own page


# --- plain text from stored HTML ---------------------------------------------------------

_BLOCKS = {
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "table",
    "tr",
    "hr",
}


class _TextLines(HTMLParser):
    """The text of sanitised HTML, a line per paragraph, heading and list item."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines: list[list[str]] = [[]]
        self.lists: list[list[int] | None] = []  # per open list: [next number] or None

    def _break(self) -> None:
        if self.lines[-1]:
            self.lines.append([])

    def handle_starttag(self, tag, attrs):
        if tag == "br":
            self._break()
        elif tag in ("ul", "ol"):
            start = dict(attrs).get("start") or "1"
            self.lists.append([int(start)] if tag == "ol" and start.isdigit() else None)
            self._break()
        elif tag == "li":
            self._break()
            counter = self.lists[-1] if self.lists else None
            if counter is None:
                self.lines[-1].append("• ")
            else:
                self.lines[-1].append(f"{counter[0]}. ")
                counter[0] += 1
        elif tag in _BLOCKS:
            self._break()

    def handle_endtag(self, tag):
        if tag in ("ul", "ol") and self.lists:
            self.lists.pop()
        if tag in _BLOCKS:
            self._break()

    def handle_data(self, data):
        self.lines[-1].append(data)

    def text(self) -> list[str]:
        lines = (" ".join("".join(parts).split()) for parts in self.lines)
        return [line for line in lines if line and line not in ("•", "• ")]


def excerpt(html: str, length: int = EXCERPT_LENGTH, *, cut: bool = False) -> tuple[str, bool]:
    """The first ``length`` characters of the HTML's text, lines kept, cut at a word.

    Returns the text and whether there is more (``cut``: the HTML given is only the
    head of the stored HTML, so there is more whatever it holds).
    """
    html = html or ""
    if cut and html.rfind("<") > html.rfind(">"):
        html = html[: html.rfind("<")]  # never half a tag
    parser = _TextLines()
    parser.feed(html)
    parser.close()
    text = "\n".join(parser.text())
    if cut and not html.endswith(">") and not html[-1:].isspace():
        text = text[: max(text.rfind(" "), text.rfind("\n"), 0)]  # nor half a word
    if len(text) <= length:
        return (text + "…" if cut and text else text), cut
    head = text[: length + 1]
    space = max(head.rfind(" "), head.rfind("\n"))
    head = head[:space] if space > length * 0.6 else head[:length]
    return head.rstrip(" \n,;:–—-") + "…", True


# --- finding entries ---------------------------------------------------------------------

_FIELDS = (
    "pk",
    "title",
    "number",
    "language",
    "slug",
    "translation_key",
    "game__slug",
    "game__name",
)


def _rows(queryset, rule: str | None = None):
    if rule:
        # From the block with this rule's id (rules.shared.anchors), when the body has one.
        queryset = queryset.annotate(rule_at=StrIndex("body_html", Value(f' id="{rule}"'))).annotate(
            html_head=Substr("body_html", Greatest(F("rule_at"), Value(1)), HTML_HEAD + 1)
        )
        return queryset.values(*_FIELDS, "game__localized_names", "html_head", "rule_at")
    return queryset.annotate(html_head=Substr("body_html", 1, HTML_HEAD + 1)).values(
        *_FIELDS, "game__localized_names", "html_head"
    )


def _preview(row: dict, rule: str | None = None) -> Preview:
    head = row["html_head"] or ""
    found_rule = bool(rule and row.get("rule_at"))
    if found_rule:
        head = "<p" + head  # the head starts inside the rule's start tag: ' id="601.2a">…'
    text, truncated = excerpt(head[:HTML_HEAD], cut=len(head) > HTML_HEAD)
    names = row["game__localized_names"] or {}
    return Preview(
        id=row["pk"],
        title=row["title"],
        number=row["number"],
        language=row["language"],
        game_slug=row["game__slug"],
        game_name=names.get(row["language"]) or row["game__name"],
        excerpt=text,
        truncated=truncated,
        path=entry_path_template(row["game__slug"], row["language"]).format(slug=row["slug"])
        + (f"#{rule}" if found_rule else ""),
    )


def preview_by_slug(game: str, slug: str, language: str | None = None, rule: str | None = None) -> Preview | None:
    """The preview of the entry at ``/<language>/games/<game>/rules/<slug>/``, or None.

    With a ``rule`` ("601.2a", the address's fragment), the excerpt starts at that
    numbered rule of the text (``rules.shared.anchors``) where it has one, and the path keeps
    the fragment."""
    published = Entry.objects.published()
    rows = list(_rows(published.filter(game__slug=game, slug=slug).order_by("language"), rule))
    if not rows:
        return None
    row = next((r for r in rows if r["language"] == language), rows[0])
    if language and row["language"] != language:
        translated = _rows(
            published.filter(translation_key=row["translation_key"], language=language), rule
        ).first()
        row = translated or row
    return _preview(row, rule)


def find_game(name: str) -> tuple[int, str] | None:
    """(id, slug) of the game with this slug (in any case), or this name in any language."""
    wanted, as_slug = normalize_label(name), name.strip().lower()
    by_name = None
    # Games are few: read whole (one query) rather than search JSON names per database.
    for pk, slug, game_name, localized in Game.objects.order_by("pk").values_list(
        "pk", "slug", "name", "localized_names"
    ):
        if slug == as_slug:
            return pk, slug
        names = [game_name, *(str(value) for value in (localized or {}).values())]
        if by_name is None and wanted and any(normalize_label(n) == wanted for n in names):
            by_name = (pk, slug)
    return by_name


def previews_by_term(game: str, terms: list[str], language: str | None = None):
    """The game's slug (None if unknown) and, for each term, the preview of the entry it
    names (None when no published entry has that title or alias).

    With a ``language``, a name found in it wins over the same name in another, and an
    entry found in another language is shown in ``language`` where it has a version in
    it (as ``preview_by_slug`` does): "Bar Stool" on a German page is the "Barhocker".
    """
    found_game = find_game(game)
    if found_game is None:
        return None, [None] * len(terms)
    game_id, game_slug = found_game
    keys = {name_key(term)[:NAME_KEY_LENGTH] for term in terms} - {""}
    if not keys:
        return game_slug, [None] * len(terms)
    candidates = list(
        SearchName.objects.filter(
            key__in=keys, position=0, game_id=game_id, document__item_type="entry"
        ).values_list("key", "alias", "document__item_id", "document__title", "language")
    )
    order = {code: index for index, code in enumerate(CONTENT_LANGUAGE_CODES)}

    def best(term: str) -> int | None:
        key, label = name_key(term)[:NAME_KEY_LENGTH], normalize_label(term)
        ranked = sorted(
            (
                normalize_label(alias or title) != label,  # the same name before a folded one
                bool(alias),  # a title before an alias, as link_targets ranks them
                lang != language,  # the language asked for first
                order.get(lang, len(order)),
                title,
                item_id,
            )
            for cand_key, alias, item_id, title, lang in candidates
            if cand_key == key
        )
        return ranked[0][-1] if ranked else None

    chosen = [best(term) for term in terms]
    ids = {item_id for item_id in chosen if item_id is not None}
    if not ids:
        return game_slug, [None] * len(terms)
    published = Entry.objects.published()
    rows = {row["pk"]: row for row in _rows(published.filter(pk__in=ids))}
    elsewhere = {row["translation_key"] for row in rows.values() if row["language"] != language}
    if language and elsewhere:
        translations = published.filter(translation_key__in=elsewhere, language=language)
        versions = {row["translation_key"]: row for row in _rows(translations)}
        rows = {pk: versions.get(row["translation_key"], row) for pk, row in rows.items()}
    return game_slug, [_preview(rows[item_id]) if item_id in rows else None for item_id in chosen]
