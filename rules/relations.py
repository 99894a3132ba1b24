"""What an entry shows of other items, computed when anything is written.

An entry's page and its JSON show its see-also targets and ``[[links]]``, the published
entries linking to it, the errata and FAQ rulings about it, its parent, its sub-sections
and its translations. Loading those per request took six queries, and compiling them
most of the time of an entry page. Instead every entry stores them, ready to show
(``Entry.relations``, JSON), and a page or an API list reads the entry row alone.

Decisions:

- **Computed per game, after every write that can change them.** ``refresh(game_id)``
  computes the relations of every entry of a game (all languages: translations cross
  them) in six queries and writes only the entries whose relations changed (a hash of
  the JSON, ``Entry.relations_fingerprint``). It runs where links are resolved
  (``rules.references.resolve_references``: every entry save, delete, import and
  publication), and after every save, deletion and change of the entry list of an
  erratum (signals, ``connect_signals``) or a FAQ question (``faq.apps``). Bulk writers
  and admin requests defer it to the end of their work (``deferred()``), so it runs
  once per game, in the same transaction as the write: the content version that makes
  cached responses invalid (``rules.content_version``) changes with it.
- **Only what is public.** Every related item is published (a draft never shows
  through another entry's page); the entry's own status does not matter, so the
  moderators' preview of a draft shows what readers will get once it is published.
- **Addresses at read time.** Entries are stored by slug, not URL: the URL depends on
  the reader's UI language, and one ``reverse()`` per page builds them all
  (``entry_url_template``). A game's new slug therefore needs no refresh.
- **Derived data, no history.** Written with plain ``UPDATE`` statements
  (``rules.bulk.update_rows``: no history version, no ``updated_at`` change, no
  signals), like the stored HTML (``rules.rendering``).
- ``manage.py render_html`` computes everything again; so does every ``migrate`` that
  ran migrations.
"""

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from operator import itemgetter

from django.db.models.signals import m2m_changed, post_delete, post_save
from django.urls import reverse
from django.utils.functional import cached_property

from .bulk import store_fingerprinted
from .collation import sort_by_title
from .querysets import Status
from .rulebook import navigation as rulebook_navigation
from .text import numbered_title

_pending: ContextVar[set | None] = ContextVar("pending_relations", default=None)


# --- computing and storing ----------------------------------------------------------------


def _linked(pk, title, slug, number="") -> dict:
    return {"id": pk, "title": title, "slug": slug, "number": number}


def compute(game_id: int) -> dict[int, dict]:
    """Entry id → its relations, for every entry of one game, in six queries."""
    from .models import CrossReference, Entry, Erratum

    rows = list(
        Entry.objects.filter(game_id=game_id)
        .order_by("order", "pk")
        .values_list("pk", "language", "translation_key", "parent_id", "title", "slug", "number", "status")
    )
    entries = {row[0]: row for row in rows}
    published = {pk for pk, *_rest, status in rows if status == Status.PUBLISHED}
    found = {
        pk: {
            "parent": None,
            "references": [],
            "referenced_by": [],
            "errata": [],
            "questions": [],
            "children": [],
            "translations": [],
        }
        for pk in entries
    }

    def linked(pk: int) -> dict:
        _pk, _language, _key, _parent, title, slug, number, _status = entries[pk]
        return _linked(pk, title, slug, number)

    versions = defaultdict(list)
    for pk, language, key, parent_id, *_rest in rows:  # in document order
        if parent_id in published:
            found[pk]["parent"] = linked(parent_id)
        if parent_id in found and pk in published:
            found[parent_id]["children"].append(linked(pk))
        if pk in published:
            versions[key].append((language, pk))
    for pk, _language, key, *_rest in rows:
        found[pk]["translations"] = [
            {**linked(other), "language": language} for language, other in sorted(versions[key]) if other != pk
        ]

    references = (
        CrossReference.objects.filter(entry__game_id=game_id)
        .order_by("entry_id", "in_body", "order", "pk")
        .values_list("entry_id", "label", "in_body", "target_id")
    )
    referrers = defaultdict(dict)
    for entry_id, label, in_body, target_id in references:
        target = linked(target_id) if target_id in published else None
        found[entry_id]["references"].append({"label": label, "in_body": in_body, "target": target})
        if target is not None and entry_id in published and entry_id != target_id:
            referrers[target_id].setdefault(entry_id, linked(entry_id))  # linked twice: listed once
    for target_id, items in referrers.items():
        language = entries[target_id][1]  # references stay within a language
        found[target_id]["referenced_by"] = sort_by_title(items.values(), language, title=itemgetter("title"))

    # From the game's errata (an erratum is about entries of its own game): the index on
    # the errata's game, where filtering by the entries' game scanned every entry per
    # erratum on SQLite.
    affects = Erratum.affects.through.objects.filter(
        erratum__game_id=game_id, entry__game_id=game_id, erratum__status=Status.PUBLISHED
    )
    for entry_id, *erratum in affects.order_by(
        "erratum__language", "erratum__order", "erratum__title", "erratum_id"
    ).values_list(
        "entry_id", "erratum_id", "erratum__title", "erratum__slug", "erratum__kind", "erratum__language",
        "erratum__game__slug", "erratum__original_text", "erratum__corrected_html", "erratum__diff_html",
    ):  # fmt: skip
        pk, title, slug, kind, language, game, original, corrected_html, diff_html = erratum
        found[entry_id]["errata"].append(
            {
                "id": pk, "title": title, "slug": slug, "kind": kind, "language": language, "game": game,
                "has_original": bool(original), "corrected_html": corrected_html, "diff_html": diff_html,
            }  # fmt: skip
        )

    # faq builds on rules, never the reverse: its questions are reached through the
    # reverse relation's table, by name.
    related = Entry._meta.get_field("faq_questions").through.objects
    for entry_id, pk, question, slug, language, game, answer_html in (
        related.filter(question__game_id=game_id, entry__game_id=game_id, question__status=Status.PUBLISHED)
        .order_by("question__language", "question__order", "question__question", "question_id")
        .values_list(
            "entry_id", "question_id", "question__question", "question__slug", "question__language",
            "question__game__slug", "question__answer_html",
        )  # fmt: skip
    ):
        found[entry_id]["questions"].append(
            {
                "id": pk,
                "question": question,
                "slug": slug,
                "language": language,
                "game": game,
                "answer_html": answer_html,
            }
        )

    # Previous, next and ancestors in reading order (rules.rulebook): a sixth query.
    places = rulebook_navigation(game_id)
    for pk, relations in found.items():
        relations["navigation"] = places.get(pk)
    return found


def fingerprint(relations: dict) -> str:
    encoded = json.dumps(relations, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    return hashlib.blake2b(encoded, digest_size=16).hexdigest()


def refresh(game_id: int) -> int:
    """Store the relations of every entry of one game that changed; return how many."""
    from .models import Entry

    computed = compute(game_id)
    stored = dict(Entry.objects.filter(game_id=game_id).values_list("pk", "relations_fingerprint"))
    changed = {}
    for pk, relations in computed.items():
        digest = fingerprint(relations)
        if stored.get(pk) != digest:
            changed[pk] = (relations, digest)
    written = store_fingerprinted(Entry, "relations", changed)
    refresh_stored_with_relations(game_id)
    return written


def refresh_stored_with_relations(game_id: int) -> None:
    """What else entries store about other items, kept up to date by the same writes:
    their text with its errata applied (``rules.corrections``) and, for translations,
    whether their original changed since (``rules.translation_status``). Each writes
    only the entries whose inputs changed."""
    from . import corrections, translation_status

    corrections.refresh(game_id)
    translation_status.refresh(game_id)


def refresh_all() -> int:
    from .models import Game

    return sum(refresh(pk) for pk in Game.objects.order_by("pk").values_list("pk", flat=True))


def refresh_after_migrate(sender, using="default", plan=None, **kwargs) -> None:
    if plan:  # only when migrations ran
        refresh_all()


def request_refresh(game_ids: Iterable[int]) -> None:
    """Refresh now, or at the end of the surrounding ``deferred()`` block."""
    pending = _pending.get()
    for game_id in game_ids:
        if game_id is None:
            continue
        if pending is not None:
            pending.add(game_id)
        else:
            refresh(game_id)


@contextmanager
def deferred():
    """Collect refresh requests and refresh each game once, when the block ends."""
    if _pending.get() is not None:  # nested: the outermost block refreshes
        yield
        return
    pending: set = set()
    token = _pending.set(pending)
    try:
        yield
    finally:
        _pending.reset(token)
    for game_id in sorted(pending):
        refresh(game_id)


# --- the signals of items whose changes show on entries -------------------------------------


def _games_of_entries(entry_ids) -> set[int]:
    from .models import Entry

    return set(Entry.objects.filter(pk__in=list(entry_ids)).values_list("game_id", flat=True).distinct())


def about_changed(sender, instance, action, pk_set=None, **kwargs) -> None:
    """The entries an erratum (``affects``) or question (``related_entries``) is about
    changed, from either side of the relation."""
    if action in ("post_add", "post_remove", "post_clear"):
        request_refresh({instance.game_id, *(_games_of_entries(pk_set) if pk_set else ())})


def connect_item(model, relation) -> None:
    """Keep entries' relations up to date with ``model``'s items (errata, questions)."""
    uid = model._meta.label_lower
    post_save.connect(_item_saved, sender=model, weak=False, dispatch_uid=f"relations-save-{uid}")
    post_delete.connect(_item_deleted, sender=model, weak=False, dispatch_uid=f"relations-delete-{uid}")
    m2m_changed.connect(about_changed, sender=relation.through, weak=False, dispatch_uid=f"relations-m2m-{uid}")


def _item_saved(sender, instance, **kwargs) -> None:
    field = next(f for f in sender._meta.many_to_many if f.related_model._meta.label == "rules.Entry")
    ids = getattr(instance, field.name).values_list("pk", flat=True)
    request_refresh({instance.game_id, *_games_of_entries(ids)})


def _item_deleted(sender, instance, **kwargs) -> None:
    # The relation's rows are gone with the item; its game is where it was shown.
    request_refresh({instance.game_id})


def _entry_deleted(sender, instance, **kwargs) -> None:
    """An entry deleted any way (the admin's bulk delete too): its links resolve again."""
    from .references import request_resolution

    request_resolution(instance.game_id, instance.language)


def connect_signals() -> None:
    from .models import Entry, Erratum, Source

    connect_item(Erratum, Erratum.affects)
    # A deleted source leaves its sections citing none: another rulebook (rules.rulebook).
    post_delete.connect(_item_deleted, sender=Source, weak=False, dispatch_uid="relations-source-deleted")
    post_delete.connect(_entry_deleted, sender=Entry, weak=False, dispatch_uid="relations-entry-deleted")


# --- reading ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LinkedEntry:
    """An entry as another entry's page shows it (same game and language)."""

    id: int
    title: str
    slug: str
    number: str
    language: str
    url: str

    def get_absolute_url(self) -> str:
        return self.url

    @property
    def display_title(self) -> str:  # Entry.__str__
        return numbered_title(self.number, self.title)


@dataclass(frozen=True)
class ErratumOnPage:
    id: int
    title: str
    slug: str
    kind: str
    language: str
    game: str
    has_original: bool
    corrected_html: str
    diff_html: str

    @property
    def original_text(self) -> bool:  # the templates ask whether the original is known
        return self.has_original

    def get_kind_display(self) -> str:
        from .models import Erratum

        return str(Erratum.Kind(self.kind).label) if self.kind in Erratum.Kind.values else self.kind

    def get_absolute_url(self) -> str:
        return reverse("rules:errata", kwargs={"game": self.game}) + f"#{self.slug}"


@dataclass(frozen=True)
class QuestionOnPage:
    id: int
    question: str
    slug: str
    language: str
    game: str
    answer_html: str


class EntryRelations:
    """An entry's stored relations, for a page in the active UI language."""

    def __init__(self, entry):
        self.entry = entry
        self.data = entry.relations or {}
        self._url = None

    def _entry(self, item: dict, language: str | None = None) -> LinkedEntry:
        from .models import entry_url_template

        if self._url is None:
            self._url = entry_url_template(self.entry.game.slug)
        language = language or self.entry.language
        return LinkedEntry(
            item["id"],
            item["title"],
            item["slug"],
            item.get("number", ""),
            language,
            self._url.format(slug=item["slug"]),
        )

    @cached_property
    def parent(self) -> LinkedEntry | None:
        parent = self.data.get("parent")
        return self._entry(parent) if parent else None

    @cached_property
    def see_also(self) -> list[tuple[str, str | None]]:
        """(label, URL or None) for each see-also label, in order."""
        return [
            (ref["label"], self._entry(ref["target"]).url if ref["target"] else None)
            for ref in self.data.get("references", [])
            if not ref["in_body"]
        ]

    @cached_property
    def referenced_by(self) -> list[LinkedEntry]:
        return [self._entry(item) for item in self.data.get("referenced_by", [])]

    @cached_property
    def children(self) -> list[LinkedEntry]:
        return [self._entry(item) for item in self.data.get("children", [])]

    @cached_property
    def translations(self) -> list[LinkedEntry]:
        """The other versions, each linking to its own page (``Entry.canonical_url``): in
        the reader's UI language, the page would send them back to this version."""
        from .models import entry_path_template

        game_slug = self.entry.game.slug
        return [
            LinkedEntry(
                item["id"], item["title"], item["slug"], item.get("number", ""), item["language"],
                entry_path_template(game_slug, item["language"]).format(slug=item["slug"]),
            )  # fmt: skip
            for item in self.data.get("translations", [])
        ]

    @cached_property
    def errata(self) -> list[ErratumOnPage]:
        return [ErratumOnPage(**item) for item in self.data.get("errata", [])]

    @cached_property
    def questions(self) -> list[QuestionOnPage]:
        return [QuestionOnPage(**item) for item in self.data.get("questions", [])]

    @cached_property
    def navigation(self) -> "Navigation | None":
        """Previous, next and ancestors in reading order (``rules.rulebook``); None for
        an entry in no sequence (a draft)."""
        place = self.data.get("navigation")
        if not place:
            return None
        return Navigation(
            sequence=place["sequence"],
            previous=self._entry(place["previous"]) if place["previous"] else None,
            next=self._entry(place["next"]) if place["next"] else None,
            ancestors=[self._entry(item) for item in place["ancestors"]],
            letter=place.get("letter", ""),
        )


@dataclass(frozen=True)
class Navigation:
    sequence: str  # "rules" or "glossary"
    previous: LinkedEntry | None
    next: LinkedEntry | None
    ancestors: list[LinkedEntry]
    letter: str  # in the glossary: the id of its letter on the game page ("letter-B")

    @property
    def in_rulebook(self) -> bool:
        return self.sequence == "rules"
