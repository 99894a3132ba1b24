"""The pipeline's last step: what the public sees of each item, and the change feed.

For every game a unit of work touched, the signature of every public item's API
representation is computed from the rows it is made of (``SIGNED``: an item's own
columns, the fingerprints of its derived columns, what it embeds of other items) and
compared with what ``PublicItem`` stored. An item that appeared is ``created``, one
whose signature changed is ``updated``, one no longer public (deleted, unpublished,
archived, its game deleted) is ``deleted``, or ``removed`` with the release when a
release removed it (``rules.content.releases``): rows of ``PublicChange``, the public
change feed (``GET /api/v1/changes/``). So a draft never appears, publishing is a creation,
unpublishing a deletion, and a change to anything embedded in an item's JSON (a linked
entry renamed, an erratum or FAQ question added, a translation linked) is an update of
that item, without any write path having to know what embeds what.

The signatures read small columns: an entry's texts and everything it shows of other
items are represented by the fingerprints the earlier steps keep (``html_fingerprint``:
its texts and where their links point; ``relations_fingerprint``: its parent, children,
cross-references, translations, errata and questions), so a game of 20,000 entries is
signed without reading its texts. And after an ordinary write only the candidates are
signed: the items the unit wrote and those whose derived columns the earlier steps
wrote (``rules.shared.bulk.noting_rows_written``), plus the games they are in (a game
shows its entry count); a change of a game or a source (a slug or title every item of
the game embeds) signs the whole game.
"""

import hashlib
from collections import defaultdict
from collections.abc import Iterable

from django.apps import apps
from django.db.models import Count, Q
from django.db.models.functions import Now

from ..content.querysets import Status
from ..content.version import lock_for_writing
from ..shared.bulk import insert_rows, update_rows
from . import stored_json
from .models import FeedHorizon, FeedKind, PublicChange, PublicItem

# Created and updated rows in this order of kinds (a game before what is in it), deleted
# rows in the reverse order.
ORDER = (FeedKind.GAME, FeedKind.SOURCE, FeedKind.ENTRY, FeedKind.ERRATUM, FeedKind.QUESTION)
SOURCE = ("source_id", "source__title", "source__kind", "source__official")
# The columns each kind's API representation is made of (rules.api.serializers, faq.api).
SIGNED = {
    FeedKind.GAME: ("slug", "name", "localized_names", "publisher", "year", "bgg_id"),
    FeedKind.SOURCE: ("game__slug", "language", "title", "kind", "version", "official", "url", "attribution"),
    FeedKind.ENTRY: (
        "game__slug", "language", "title", "slug", "aliases", "kind", "number", "page", "is_fragment", *SOURCE,
        "html_fingerprint", "relations_fingerprint", "corrections_fingerprint", "translation_status_fingerprint",
    ),
    FeedKind.ERRATUM: (
        "game__slug", "language", "title", "slug", "kind", "original_text", "corrected_text", "page",
        "published_on", *SOURCE, "html_fingerprint",
    ),
    FeedKind.QUESTION: (
        "game__slug", "language", "question", "slug", "answer", "topic", "page", *SOURCE, "html_fingerprint",
    ),
}  # fmt: skip
MODELS = {
    FeedKind.GAME: "rules.Game",
    FeedKind.SOURCE: "rules.Source",
    FeedKind.ENTRY: "rules.Entry",
    FeedKind.ERRATUM: "rules.Erratum",
    FeedKind.QUESTION: "faq.Question",  # named, never imported (rules does not import faq)
}
# The entries an erratum or question embeds (their summaries: id, title, slug).
EMBEDDED_ENTRIES = {FeedKind.ERRATUM: "affects", FeedKind.QUESTION: "related_entries"}
CHUNK = 500  # ids per IN (...) list


class Live:
    """An item as it is now: its place (game, language, slug, number) and signature."""

    __slots__ = ("game_id", "game_slug", "language", "slug", "number", "signature")

    def __init__(self, game_id, game_slug, language, slug, number, signature):
        self.game_id, self.game_slug, self.language = game_id, game_slug, language or ""
        self.slug, self.number, self.signature = slug or "", number or "", signature


def digest(values: Iterable) -> str:
    return hashlib.blake2b(repr(tuple(values)).encode(), digest_size=16).hexdigest()


def live_items(
    game_ids: set[int], items: dict[str, set[int]] | None = None, whole: set[int] = frozenset()
) -> dict[tuple[str, int], Live]:
    """(kind, id) → Live for every public item of these games (the games themselves, and
    with ``items`` only those items of each kind, wherever they are, and every item of the
    ``whole`` games)."""
    found: dict[tuple[str, int], Live] = {}
    Entry = apps.get_model("rules.Entry")
    games = apps.get_model(MODELS[FeedKind.GAME])._default_manager.filter(pk__in=game_ids)
    # A game's JSON shows its published entries' count and languages.
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    published = Entry._default_manager.filter(game_id__in=game_ids, status=Status.PUBLISHED)
    for game_id, language, count in published.order_by().values_list("game_id", "language").annotate(n=Count("pk")):
        counts[game_id][language] = count
    for pk, *values in games.values_list("pk", *SIGNED[FeedKind.GAME]):
        signature = digest((*values, sorted(counts[pk].items())))
        found[(FeedKind.GAME, pk)] = Live(pk, values[0], "", values[0], "", signature)
    for kind in ORDER[1:]:
        model = apps.get_model(MODELS[kind])
        ids = None if items is None else sorted(items.get(kind, ()))
        names = ("pk", "game_id", *SIGNED[kind])
        slug_at = names.index("slug") if "slug" in names else None
        number_at = names.index("number") if "number" in names else None
        for rows, embedded in _rows(kind, model, game_ids, ids, whole):
            for row in rows.order_by().values_list(*names):
                pk, game_id, game_slug, language = row[0], row[1], row[2], row[3]
                signature = digest((*row[2:], embedded.get(pk, ())))
                found[(kind, pk)] = Live(
                    game_id, game_slug, language, row[slug_at] if slug_at else "", row[number_at] if number_at else "",
                    signature,
                )  # fmt: skip
    return found


def _rows(kind: str, model, game_ids: set[int], ids: list[int] | None, whole: set[int]):
    """(queryset of the public rows, what they embed): every row of the games (``ids``
    None), or every row of the ``whole`` games and the given ids elsewhere, a chunk at a
    time (each item signed once)."""
    public = model._default_manager.all() if kind == FeedKind.SOURCE else model._default_manager.filter(
        status=Status.PUBLISHED
    )
    every = game_ids if ids is None else whole
    if every:
        yield public.filter(game_id__in=every), _embedded_entries(kind, model, {"game_id__in": every})
    for start in range(0, len(ids or ()), CHUNK):
        chunk = ids[start : start + CHUNK]
        rows = public.filter(pk__in=chunk).exclude(game_id__in=whole)
        yield rows, _embedded_entries(kind, model, {"pk__in": chunk})


def _embedded_entries(kind: str, model, items: dict) -> dict[int, list]:
    """Item id → the (id, title, slug) of the published entries it embeds, in id order
    (``items``: a lookup of the items, ``{"game_id__in": …}`` or ``{"pk__in": …}``)."""
    name = EMBEDDED_ENTRIES.get(kind)
    if name is None:
        return {}
    through = model._meta.get_field(name).remote_field.through
    own = model._meta.model_name  # the through table's column to the item: erratum, question
    lookup = {f"{own}__{key}": value for key, value in items.items()}
    rows = (
        through._default_manager.filter(**lookup, entry__status=Status.PUBLISHED)
        .order_by(f"{own}_id", "entry_id")
        .values_list(f"{own}_id", "entry_id", "entry__title", "entry__slug")
    )
    embedded: dict[int, list] = defaultdict(list)
    for item_id, *entry in rows:
        embedded[item_id].append(tuple(entry))
    return embedded


def refresh(game_ids: Iterable[int], items: dict[str, set[int]] | None = None, whole: Iterable[int] = ()) -> int:
    """Bring ``PublicItem`` up to date for these games (every item of them; with
    ``items``, the games' own rows, those items, and every item of the ``whole`` games)
    and write a ``PublicChange`` row per item that appeared, changed or disappeared; how
    many rows were written to the feed."""
    whole = {game for game in whole if game is not None}
    game_ids = {game for game in game_ids if game is not None} | whole
    if not game_ids and not items:
        return 0
    live = live_items(game_ids, items, whole)
    if items is None:
        stored = {
            (item.kind, item.object_id): item for item in PublicItem.objects.filter(game_id__in=game_ids).defer("body")
        }
    else:
        games_and_wholes = Q(kind=FeedKind.GAME, object_id__in=game_ids) | Q(game_id__in=whole)
        known = PublicItem.objects.filter(games_and_wholes).defer("body")
        stored = {(item.kind, item.object_id): item for item in known}
        for kind, ids in items.items():
            ids = sorted(ids)
            for start in range(0, len(ids), CHUNK):
                chunk = PublicItem.objects.filter(kind=kind, object_id__in=ids[start : start + CHUNK])
                for item in chunk.defer("body"):
                    stored[(item.kind, item.object_id)] = item
    # An item moved here from a game outside this unit's scope: its row is elsewhere.
    missing = defaultdict(list)
    for kind, pk in live.keys() - stored.keys():
        missing[kind].append(pk)
    for kind, ids in missing.items():
        for start in range(0, len(ids), CHUNK):
            for item in PublicItem.objects.filter(kind=kind, object_id__in=ids[start : start + CHUNK]).defer("body"):
                stored[(item.kind, item.object_id)] = item

    created, updated, deleted = [], [], []
    for key in sorted(live, key=_order):
        now, before = live[key], stored.get(key)
        if before is None:
            created.append((key, now))
        elif before.signature != now.signature:
            updated.append((key, before, now))
    for key in sorted(stored.keys() - live.keys(), key=_order, reverse=True):
        deleted.append((key, stored[key]))

    removals = _removals([key for key, _before in deleted])
    feed = [_row(key, PublicChange.Action.CREATED, now) for key, now in created]
    feed += [_row(key, PublicChange.Action.UPDATED, now, before) for key, before, now in updated]
    feed += [
        _row(key, PublicChange.Action.REMOVED, before, release=removals[key])
        if key in removals
        else _row(key, PublicChange.Action.DELETED, before)
        for key, before in deleted
    ]
    if feed:
        _write(feed, created, updated, deleted)
    # Each item's JSON, where its signature changed (stored_json); in the games signed
    # whole, also where none was stored yet (rows from before bodies were stored).
    keys = [key for key, _now in created] + [key for key, _before, _now in updated]
    keys += stored_json.missing(game_ids if items is None else whole)
    stored_json.refresh(keys)
    return len(feed)


def _write(feed: list, created: list, updated: list, deleted: list) -> None:
    # Ids in commit order: a reader who saw id n must never later find a smaller id
    # committed. Every content writer holds the version row's lock from its first write
    # to its commit (PostgreSQL; SQLite has one writer at a time): taking it before the
    # ids are drawn makes a later writer's ids larger and visible later.
    lock_for_writing()
    insert_rows(PublicChange, FEED_FIELDS, feed)
    insert_rows(
        PublicItem, ITEM_FIELDS, ((*key, *_place(now), now.signature) for key, now in created)
    )
    if updated:
        rows = ((before.pk, *_place(now), now.signature) for _, before, now in updated)
        update_rows(PublicItem, ITEM_FIELDS[2:], rows)
        ids = [before.pk for _, before, _ in updated]
        for start in range(0, len(ids), CHUNK):
            PublicItem.objects.filter(pk__in=ids[start : start + CHUNK]).update(changed_at=Now())
    gone = [before.pk for _, before in deleted]
    for start in range(0, len(gone), CHUNK):
        PublicItem.objects.filter(pk__in=gone[start : start + CHUNK]).delete()


def embedding(entry_ids: Iterable[int]) -> dict[str, set[int]]:
    """The errata and questions that embed these entries' summaries (id, title, slug):
    candidates when the entries change, though no column of theirs does."""
    entry_ids = sorted(set(entry_ids))
    found: dict[str, set[int]] = defaultdict(set)
    for kind, name in EMBEDDED_ENTRIES.items():
        model = apps.get_model(MODELS[kind])
        through = model._meta.get_field(name).remote_field.through
        own = f"{model._meta.model_name}_id"
        for start in range(0, len(entry_ids), CHUNK):
            rows = through._default_manager.filter(entry_id__in=entry_ids[start : start + CHUNK])
            found[kind].update(rows.values_list(own, flat=True))
    return found


def embedders_of(game_ids: Iterable[int]) -> dict[str, set[int]]:
    """Every erratum and question of these games, public now or before: when an entry is
    deleted its links to them are gone before this step runs (the link rows go with it,
    without a signal), so which of them showed it can no longer be asked."""
    game_ids = set(game_ids)
    found: dict[str, set[int]] = defaultdict(set)
    if not game_ids:  # no entry deleted (the usual unit): four empty queries not even built
        return found
    for kind in EMBEDDED_ENTRIES:
        model = apps.get_model(MODELS[kind])
        found[kind].update(model._default_manager.filter(game_id__in=game_ids).values_list("pk", flat=True))
        found[kind].update(
            PublicItem.objects.filter(kind=kind, game_id__in=game_ids).values_list("object_id", flat=True)
        )
    return found


def prune(before) -> int:
    """Delete the feed's rows older than ``before`` and remember the last id deleted (a
    cursor before it answers 410); how many rows were deleted. The newest row is always
    kept, so the feed's cursor never goes back."""
    newest = PublicChange.objects.order_by("-id").values_list("id", flat=True).first()
    if newest is None:
        return 0
    old = PublicChange.objects.filter(at__lt=before, id__lt=newest)
    last = old.order_by("-id").values_list("id", flat=True).first()
    if last is None:
        return 0
    deleted, _ = PublicChange.objects.filter(id__lte=last).delete()
    horizon, _ = FeedHorizon.objects.get_or_create(pk=1)
    FeedHorizon.objects.filter(pk=1).update(pruned_through=max(horizon.pruned_through, last))
    return deleted


def known_games() -> set[int]:
    """The games public items were last seen in (deleted games included)."""
    return set(PublicItem.objects.order_by().values_list("game_id", flat=True).distinct()) - {None}


ITEM_FIELDS = ("kind", "object_id", "game_id", "game_slug", "language", "slug", "number", "signature")
FEED_FIELDS = (
    "kind", "object_id", "action", "game_slug", "language", "old_slug", "new_slug", "old_number", "new_number",
    "release_id",
)  # fmt: skip


def _order(key: tuple[str, int]) -> tuple[int, int]:
    kind, pk = key
    return (ORDER.index(kind), pk)


def _place(item) -> tuple:
    return (item.game_id, item.game_slug, item.language, item.slug, item.number)


def _row(key, action, now, before=None, release=None) -> tuple:
    kind, pk = key
    renamed = before is not None and before.slug != now.slug
    renumbered = before is not None and before.number != now.number
    return (
        kind, pk, action, now.game_slug, now.language,
        before.slug if renamed else "", now.slug if renamed else "",
        before.number if renumbered else "", now.number if renumbered else "",
        release,
    )  # fmt: skip


def _removals(keys: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
    """(kind, id) → the release that removed it, for those of ``keys`` (items no longer
    public) that an applied release lists as removed: a query per kind with any."""
    ReleaseChange = apps.get_model("rules.ReleaseChange")
    found: dict[tuple[str, int], int] = {}
    by_kind: dict[str, list[int]] = defaultdict(list)
    for kind, pk in keys:
        if kind in (FeedKind.ENTRY, FeedKind.ERRATUM, FeedKind.QUESTION):
            by_kind[kind].append(pk)
    for kind, ids in by_kind.items():
        for start in range(0, len(ids), CHUNK):
            changes = ReleaseChange.objects.filter(
                item_type=kind, item_id__in=ids[start : start + CHUNK], change="removed", release__pending=False
            ).order_by("item_id", "-release__sequence")
            for item_id, release_id in changes.values_list("item_id", "release_id"):
                found.setdefault((kind, item_id), release_id)
    return found
