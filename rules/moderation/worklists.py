"""The moderators' worklists: what is left to do, as queries with a fixed cost.

Five lists, each scoped to a queryset of games (``rules.moderation.permissions.editable_games(user)``):

- **wanted entries**: cross-reference labels that resolve to nothing yet, the most asked
  for first; the front page counts those at least ``WANTED_AT_LEAST`` entries ask for
  (a label one entry mentions in passing is rarely the next entry to write);
- **untranslated entries**: published entries with no published version in another of
  the game's content languages, per language pair;
- **outdated translations**: translations whose original changed since the version they
  were made from or last checked against (``Entry.translation_status``,
  ``rules.derived.translation_status``);
- **entries touched by errata**: a published erratum changed after the entry's text was
  last written or confirmed (``Entry.body_checked_at``);
- **waiting for review**: entries, errata and FAQ questions in review.

Every function runs a fixed number of queries whatever the number of rows (rows are
grouped in Python from one query instead of one query per row); the tests hold them to
it. Two small writers act on the lists ("create this entry", "text checked"); they live
here, beside the lists they empty, and not in the admin views.

``rules`` never imports ``faq``: FAQ questions are reached through the reverse relation
``Entry.faq_questions``, as ``rules.content.querysets`` does.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from ..content.history import stamp
from ..content.journal import unit_of_work
from ..content.models import CrossReference, Entry, Erratum, Game
from ..content.querysets import Status
from ..content.version import lock_for_writing
from ..shared.collation import sort_by_title, sort_key
from ..shared.text import normalize_label

IN_PROGRESS = (Status.DRAFT, Status.REVIEW)
# The wanted labels worth a moderator's time first: asked for by this many entries or more.
WANTED_AT_LEAST = 2


def question_model():
    """faq.Question, reached through the reverse relation (``rules`` does not import ``faq``)."""
    return Entry._meta.get_field("faq_questions").related_model


# --- Wanted entries -------------------------------------------------------------------


@dataclass
class WantedLabel:
    """A label that entries ask for and no published entry answers (yet)."""

    game: Game
    language: str
    normalized_label: str
    label: str  # as most often written
    entries: list[Entry]  # the (non-archived) entries asking for it, by title
    existing: Entry | None = None  # an unpublished entry already named so

    @property
    def count(self) -> int:
        return len(self.entries)


def _unresolved(games: QuerySet, game_id: int | None = None, language: str | None = None) -> QuerySet:
    """Unresolved references asked for by entries that are not archived.

    An archived entry no longer asks for anything: its references would otherwise keep
    a label on the list forever.
    """
    refs = CrossReference.objects.filter(target__isnull=True, entry__game__in=games).exclude(
        entry__status=Status.ARCHIVED
    )
    if game_id is not None:
        refs = refs.filter(entry__game_id=game_id)
    if language:
        refs = refs.filter(entry__language=language)
    return refs


def wanted_count(games: QuerySet, at_least: int = 1) -> int:
    """How many different labels are wanted by ``at_least`` entries or more (one query)."""
    labels = (
        _unresolved(games)
        .order_by()
        .values("entry__game_id", "entry__language", "normalized_label")
        .annotate(asking=Count("entry_id", distinct=True))
    )
    return labels.filter(asking__gte=at_least).count()


def wanted_entries(
    games: QuerySet, *, game_id: int | None = None, language: str | None = None, at_least: int = 1
) -> list[WantedLabel]:
    """Wanted labels asked for by ``at_least`` entries or more, most asked for first
    (two queries).

    Grouped by game, language and normalised label; the label shown is the spelling
    most entries use. A label stays wanted while its only match is an unpublished entry
    (resolution matches published entries only); that entry is reported in
    ``existing`` so the page offers to finish it instead of creating a duplicate.
    """
    refs = (
        _unresolved(games, game_id, language)
        .select_related("entry__game")
        .only(
            "label",
            "normalized_label",
            "entry__id",
            "entry__title",
            "entry__number",
            "entry__slug",
            "entry__status",
            "entry__language",
            "entry__game__id",
            "entry__game__slug",
            "entry__game__name",
        )
        .order_by("pk")
    )
    groups: dict[tuple[int, str, str], dict] = {}
    for ref in refs:
        entry = ref.entry
        key = (entry.game_id, entry.language, ref.normalized_label)
        group = groups.setdefault(key, {"game": entry.game, "spellings": Counter(), "entries": {}})
        group["spellings"][ref.label] += 1
        group["entries"].setdefault(entry.pk, entry)

    drafts = _unpublished_by_name(games, {key[:2] for key in groups}, game_id, language)
    wanted = [
        WantedLabel(
            game=group["game"],
            language=language_,
            normalized_label=normalized,
            label=group["spellings"].most_common(1)[0][0],
            entries=sort_by_title(group["entries"].values(), language_),
            existing=drafts.get((game_pk, language_, normalized)),
        )
        for (game_pk, language_, normalized), group in groups.items()
        if len(group["entries"]) >= at_least
    ]
    wanted.sort(key=lambda w: (-w.count, w.game.name, w.language, sort_key(w.label, w.language)))
    return wanted


def _unpublished_by_name(games, pairs, game_id, language) -> dict[tuple[int, str, str], Entry]:
    """(game id, language, normalised title or alias) → an unpublished entry so named.

    A draft or an entry in review is preferred over an archived one (it is closer to
    being published).
    """
    if not pairs:
        return {}
    entries = (
        Entry.objects.filter(game__in=games)
        .exclude(status=Status.PUBLISHED)
        .only("pk", "game_id", "language", "title", "aliases", "status", "slug", "number")
        .order_by("pk")
    )
    if game_id is not None:
        entries = entries.filter(game_id=game_id)
    if language:
        entries = entries.filter(language=language)
    found: dict[tuple[int, str, str], Entry] = {}
    for entry in entries:
        if (entry.game_id, entry.language) not in pairs:
            continue
        for name in entry.names:
            key = (entry.game_id, entry.language, normalize_label(str(name)))
            current = found.get(key)
            if current is None or (current.status == Status.ARCHIVED and entry.status != Status.ARCHIVED):
                found[key] = entry
    return found


def entry_named(game: Game, language: str, label: str) -> Entry | None:
    """An entry of any status whose title or alias matches ``label`` the way references do."""
    wanted = normalize_label(label)
    if not wanted:
        return None
    rows = Entry.objects.filter(game=game, language=language).order_by("pk").values_list("pk", "title", "aliases")
    for pk, title, aliases in rows:
        if wanted in {normalize_label(str(name)) for name in [title, *(aliases or [])]}:
            return Entry.objects.select_related("game").get(pk=pk)
    return None


def create_wanted_entry(game: Game, language: str, label: str, user) -> tuple[Entry, bool]:
    """A draft entry named ``label``, or the entry that already has that name.

    Returns ``(entry, created)``. Never creates a duplicate: a second click, or a list
    that went stale because someone else created it meanwhile, gets the existing entry.
    The game row is locked for the check and the insert, so two moderators clicking at
    once on PostgreSQL are served one after the other (SQLite serialises writes anyway).
    Saved through ``Entry.save()``: the history records who and why, and the draft's
    title joins the reference resolution (it resolves once it is published).
    """
    with unit_of_work():
        lock_for_writing()  # before the game row (rules.content.version)
        Game.objects.select_for_update().filter(pk=game.pk).first()
        existing = entry_named(game, language, label)
        if existing is not None:
            return existing, False
        entry = Entry(game=game, language=language, title=label.strip(), status=Status.DRAFT)
        stamp(entry, "created from the wanted list", user)
        entry.save()
    return entry, True


# --- Untranslated entries -------------------------------------------------------------


@dataclass
class LanguagePair:
    """Published entries of a game in ``source`` with no published version in ``target``."""

    game: Game
    source: str
    target: str
    missing: int
    in_progress: int  # of those, how many have a draft or in-review translation


@dataclass
class Untranslated:
    entry: Entry
    in_progress: Entry | None  # a draft or in-review version in the target language


def _content_languages(published_rows) -> dict[int, list[str]]:
    """Game id → languages with published entries, most entries first."""
    counts: dict[int, Counter] = defaultdict(Counter)
    for game_id, language, _key in published_rows:
        counts[game_id][language] += 1
    return {
        game_id: sorted(counter, key=lambda code: (-counter[code], code)) for game_id, counter in counts.items()
    }


def _pair_counts(games: QuerySet, game_id: int | None = None) -> dict[tuple[int, str, str], tuple[int, int]]:
    """(game id, from, to) → (missing, in progress), for every ordered pair of content languages.

    Two queries: the published entries' keys and the in-progress entries' keys. A draft
    or in-review version makes a translation "in progress"; an archived one does not
    (it was retired, the entry is untranslated again).
    """
    entries = Entry.objects.filter(game__in=games)
    if game_id is not None:
        entries = entries.filter(game_id=game_id)
    published = list(
        entries.filter(status=Status.PUBLISHED).order_by().values_list("game_id", "language", "translation_key")
    )
    pending = entries.filter(status__in=IN_PROGRESS).order_by().values_list("game_id", "language", "translation_key")
    published_keys: dict[tuple[int, str], list] = defaultdict(list)
    for game_pk, language, key in published:
        published_keys[game_pk, language].append(key)
    pending_keys: dict[tuple[int, str], set] = defaultdict(set)
    for game_pk, language, key in pending:
        pending_keys[game_pk, language].add(key)

    counts = {}
    for game_pk, languages in _content_languages(published).items():
        for source in languages:
            for target in languages:
                if source == target:
                    continue
                translated = set(published_keys[game_pk, target])
                missing = [key for key in published_keys[game_pk, source] if key not in translated]
                started = pending_keys[game_pk, target]
                counts[game_pk, source, target] = (len(missing), sum(key in started for key in missing))
    return counts


def untranslated_count(games: QuerySet) -> int:
    """Missing translations over every language pair of every game (two queries)."""
    return sum(missing for missing, _started in _pair_counts(games).values())


def untranslated_pairs(games: QuerySet, *, game_id: int | None = None) -> list[LanguagePair]:
    """Every ordered pair of each game's content languages with its counts (three queries).

    A game's content languages are the languages it has published entries in, most
    entries first; pairs with nothing missing are listed too (with 0), so the page shows
    which pairs are complete.
    """
    counts = _pair_counts(games, game_id)
    game_objects = Game.objects.in_bulk({game_pk for game_pk, _s, _t in counts})
    pairs = [
        LanguagePair(game=game_objects[game_pk], source=source, target=target, missing=missing, in_progress=started)
        for (game_pk, source, target), (missing, started) in counts.items()
    ]
    return sorted(pairs, key=lambda p: (p.game.name, p.game.pk, -p.missing, p.source, p.target))


def untranslated_entries(game: Game, source: str, target: str) -> list[Untranslated]:
    """Published entries of ``game`` in ``source`` with no published version in ``target`` (two queries)."""
    translated = Entry.objects.published().filter(game=game, language=target).values("translation_key")
    entries = list(
        Entry.objects.published()
        .filter(game=game, language=source)
        .exclude(translation_key__in=translated)
        .select_related("game")
    )
    if not entries:
        return []
    started = {
        entry.translation_key: entry
        for entry in Entry.objects.filter(
            game=game,
            language=target,
            status__in=IN_PROGRESS,
            translation_key__in=Entry.objects.published()
            .filter(game=game, language=source)
            .exclude(translation_key__in=translated)
            .values("translation_key"),
        )
        .select_related("game")
        .order_by("-pk")
    }
    entries.sort(key=lambda e: (sort_key(e.title, source), e.pk))
    return [Untranslated(entry=entry, in_progress=started.get(entry.translation_key)) for entry in entries]


# --- Outdated translations ------------------------------------------------------------


@dataclass
class OutdatedTranslation:
    """A translation whose original changed since it was made or last checked."""

    entry: Entry
    original: dict  # id, title, slug, number, language (as stored with the translation)
    checked_on: str  # the date of the original's version it matches (ISO)


def _outdated(games: QuerySet, game_id: int | None = None, language: str | None = None) -> QuerySet:
    """Translations (not archived) whose stored status says their original changed since
    the version they match; one whose base is unknown (never checked) is not listed: it
    says so on its own page."""
    rows = (
        Entry.objects.filter(game__in=games, translation_status__up_to_date=False)
        .exclude(translation_status__checked_on=None)
        .exclude(status=Status.ARCHIVED)
    )
    if game_id is not None:
        rows = rows.filter(game_id=game_id)
    if language:
        rows = rows.filter(language=language)
    return rows


def outdated_count(games: QuerySet) -> int:
    """How many translations are behind their original (one query)."""
    return _outdated(games).count()


def outdated_translations(
    games: QuerySet, *, game_id: int | None = None, language: str | None = None
) -> list[OutdatedTranslation]:
    """Translations behind their original, the longest behind first (one query)."""
    rows = [
        OutdatedTranslation(entry, entry.translation_status["original"], entry.translation_status["checked_on"])
        for entry in _outdated(games, game_id, language)
        .select_related("game")
        .defer("body", "body_html", "relations", "corrections")  # the list shows titles only
    ]
    rows.sort(key=lambda row: (row.checked_on, row.entry.game.name, row.entry.language, row.entry.pk))
    return rows


# --- Entries touched by errata --------------------------------------------------------


@dataclass
class StaleEntry:
    """An entry whose text has not been written or confirmed since these errata changed."""

    entry: Entry
    errata: list[Erratum] = field(default_factory=list)

    @property
    def latest_change(self) -> datetime:
        return max(erratum.updated_at for erratum in self.errata)


def _stale_links(games: QuerySet, game_id: int | None = None, language: str | None = None) -> QuerySet:
    """(erratum, entry) links where a published erratum changed after the entry's text was checked.

    An erratum's ``updated_at`` moves with every save (its text, its status, the entries
    it affects), so a changed or newly published erratum puts its entries back on the
    list; writing the body (``Entry.save()``), an import that changes it, or "Mark text
    as checked" takes them off. Archived entries are left out.
    """
    links = (
        Erratum.affects.through.objects.filter(
            erratum__status=Status.PUBLISHED,
            erratum__game__in=games,
            erratum__updated_at__gt=F("entry__body_checked_at"),
        )
        .exclude(entry__status=Status.ARCHIVED)
    )
    if game_id is not None:
        links = links.filter(entry__game_id=game_id)
    if language:
        links = links.filter(entry__language=language)
    return links


def errata_count(games: QuerySet) -> int:
    """How many entries wait for their text to be checked against errata (one query)."""
    return _stale_links(games).values("entry_id").distinct().count()


def entries_touched_by_errata(
    games: QuerySet, *, game_id: int | None = None, language: str | None = None
) -> list[StaleEntry]:
    """Entries to check against their errata, the longest waiting first (one query)."""
    links = (
        _stale_links(games, game_id, language)
        .select_related("entry__game", "erratum__game")
        .order_by("entry__body_checked_at", "entry_id", "erratum__updated_at", "erratum_id")
    )
    stale: dict[int, StaleEntry] = {}
    for link in links:
        stale.setdefault(link.entry_id, StaleEntry(entry=link.entry)).errata.append(link.erratum)
    return list(stale.values())


def mark_text_checked(entry: Entry) -> None:
    """The body already says what the errata say: take the entry off the errata list.

    Only ``body_checked_at`` changes, by an UPDATE rather than ``save()``: it is
    bookkeeping, not content (history leaves it out), and a save would bump
    ``updated_at`` and show the entry as "recently changed" to readers. The admin view
    records who did it in the admin log.
    """
    now = timezone.now()
    Entry.objects.filter(pk=entry.pk).update(body_checked_at=now)
    entry.body_checked_at = now


# --- Waiting for review ---------------------------------------------------------------


@dataclass
class ReviewItem:
    obj: object  # an Entry, Erratum or Question
    changed_at: datetime
    changed_by: str | None  # the username on the newest history record (None: a script)

    @property
    def opts(self):
        return self.obj._meta

    @property
    def model_name(self) -> str:
        return self.obj._meta.model_name

    @property
    def verbose_name(self) -> str:
        return self.obj._meta.verbose_name

    @property
    def status(self) -> str:
        return self.obj.status


def review_models() -> list:
    return [Entry, Erratum, question_model()]


def _last_changed_by(model) -> Subquery:
    """The user on the item's newest history record, as a subquery (no query per row)."""
    history = model.history.model
    username = f"history_user__{get_user_model().USERNAME_FIELD}"
    return Subquery(
        history.objects.filter(id=OuterRef("pk")).order_by("-history_date", "-history_id").values(username)[:1]
    )


def waiting_for_review(games: QuerySet, *, models=None, game_id: int | None = None) -> list[ReviewItem]:
    """Items in review, oldest change first, with who changed them last (one query per model)."""
    items = []
    for model in models if models is not None else review_models():
        rows = model.objects.filter(game__in=games, status=Status.REVIEW)
        if game_id is not None:
            rows = rows.filter(game_id=game_id)
        for obj in rows.select_related("game").annotate(last_changed_by=_last_changed_by(model)):
            items.append(ReviewItem(obj=obj, changed_at=obj.updated_at, changed_by=obj.last_changed_by))
    items.sort(key=lambda item: (item.changed_at, item.model_name, item.obj.pk))
    return items


def review_counts(games: QuerySet, *, models=None, game_id: int | None = None) -> dict[str, int]:
    """``{"review": n, "draft": n}`` over entries, errata and FAQ questions (one query per model)."""
    totals = {"review": 0, "draft": 0}
    for model in models if models is not None else review_models():
        rows = model.objects.filter(game__in=games)
        if game_id is not None:
            rows = rows.filter(game_id=game_id)
        counts = rows.aggregate(
            review=Count("pk", filter=Q(status=Status.REVIEW)), draft=Count("pk", filter=Q(status=Status.DRAFT))
        )
        totals["review"] += counts["review"]
        totals["draft"] += counts["draft"]
    return totals


# --- All of them at once --------------------------------------------------------------


def summary(games: QuerySet, *, review_in=None) -> dict[str, int]:
    """The count of every list, for the overview page and the admin index (nine queries);
    ``wanted`` counts the labels ``WANTED_AT_LEAST`` entries ask for, ``wanted_all``
    every wanted label."""
    counts = review_counts(games, models=review_in)
    return {
        "wanted": wanted_count(games, WANTED_AT_LEAST),
        "wanted_all": wanted_count(games),
        "wanted_at_least": WANTED_AT_LEAST,
        "outdated": outdated_count(games),
        "untranslated": untranslated_count(games),
        "errata": errata_count(games),
        "review": counts["review"],
        "drafts": counts["draft"],
    }
