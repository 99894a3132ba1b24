"""Releases of a source: each version a publisher issues, and exactly what it changed.

A ``Release`` is one version of a source (a rules reference reissued in March, the FAQ
of 1.4): its label, when it was published and from when it applies, and the list of
what it changed (``ReleaseChange``), one kind per item, as readers name them: rules
reworded (a word diff), re-titled (old title → new), renumbered (old number → new),
added and removed; errata and FAQ questions likewise. The importer makes both
(``rules.importing.releases``); pages and the API read them, and count them by kind
(``count_by_kind``).

**Every source has a release from its first import on.** A source imported before it
had versions gets a first release, "as first imported" (``Release.initial``), dated by
that import, the first time a version of it is imported (or by the migration that
brought releases to sources that had none), so ``?as_of=`` reads back to the beginning.

**What a release stores is enough to read the source as it was.** A change keeps the
item's state *before* the release (number, title, text). So an entry's text as of
release R is the state before the first change to it in a release after R, or, when
no later release changed it, its current text; an entry first "added" after R did
not exist then. Releases store only what changed: an unchanged re-import stores
nothing, and the first release of a source lists its entries as added (its texts are
the entries' current ones until a later release changes them).

**An entry keeps its identity across releases** (same row, same id): a rule renumbered
from 7.3a to 7.4a is the same entry, and ``previous_numbers`` says until which release
it was 7.3a (stored with the entry, ``rules.derived.relations``), which is how an old
citation finds it (``former_number``).

The as-of reading follows the releases, not every moderator's edit between them (those
are in the entry's history): a release is what the publisher printed.
"""

import re
from dataclasses import dataclass
from datetime import date

from django.db import models
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from ..shared.languages import ui_language_for
from ..shared.text import shown_number
from .choices import INITIAL_RELEASE_LABEL, release_label
from .models import Entry, Source
from .querysets import Status

INITIAL_LABEL = INITIAL_RELEASE_LABEL


class ReleaseQuerySet(models.QuerySet):
    def for_reading(self):
        """Without a pending release's document (megabytes for a PDF): what lists read."""
        return self.defer("pending_document", "pending_options")

    def public(self):
        """What readers see, newest first: applied and upcoming releases, not one held for
        review, without their documents."""
        return self.for_reading().filter(held=False).order_by("-sequence")

    def applied(self):
        """Releases whose text is the site's (an upcoming one waits for its date)."""
        return self.filter(pending=False)

    def upcoming(self):
        """Releases waiting for their effective date, with their document (not one held
        for a moderator's review: it waits for no date)."""
        return self.filter(pending=True, held=False)

    def next_sequence(self, source: Source) -> int:
        """The sequence of a new release of ``source``: after every release it has."""
        return (self.filter(source=source).aggregate(last=models.Max("sequence"))["last"] or 0) + 1

    def as_of(self, source: Source, label: str) -> "Release | None":
        """The release of ``source`` a reader means by ``label``: its version label, or a
        date (``YYYY-MM-DD``: the last release in effect on that day). A label no
        database could hold (a NUL character) names none."""
        if "\x00" in label:
            return None
        releases = self.public().filter(source=source)
        release = releases.filter(version=label).first()
        if release is not None:
            return release
        try:
            day = date.fromisoformat(label)
        except ValueError:
            return None
        return releases.applied().filter(effective_on__lte=day).first()


class Release(models.Model):
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="releases", verbose_name=_("source"))
    # The position among the source's releases: 1, 2, 3 … in the order they were imported.
    sequence = models.PositiveIntegerField(_("sequence"), editable=False)
    version = models.CharField(_("version"), max_length=100)
    published_on = models.DateField(_("published on"), null=True, blank=True)
    effective_on = models.DateField(_("effective from"), null=True, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    # An upcoming release (its effective date ahead) keeps its document and the import's
    # options until that day, when the worker imports it (``rules.importing.upcoming``); its
    # change list is the plan until then. Both are cleared once it is the site's text.
    pending = models.BooleanField(_("upcoming, not applied yet"), default=False, editable=False)
    # Held for a moderator's review (the admin upload's default for a version): pending,
    # with no date, and not public until it is published.
    held = models.BooleanField(_("held for review"), default=False, editable=False)
    # The source as it was first imported, before it had versions: made when the first
    # version arrives (rules.importing.releases), its label the source's version then.
    initial = models.BooleanField(_("as first imported"), default=False, editable=False)
    pending_document = models.BinaryField(null=True, editable=False)
    pending_options = models.JSONField(default=dict, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ReleaseQuerySet.as_manager()

    class Meta:
        ordering = ["source", "sequence"]
        verbose_name = _("release")
        verbose_name_plural = _("releases")
        constraints = [
            models.UniqueConstraint(fields=["source", "version"], name="unique_release_version"),
            models.UniqueConstraint(fields=["source", "sequence"], name="unique_release_sequence"),
        ]

    def __str__(self) -> str:
        return f"{self.source.title} {self.version}"

    @property
    def upcoming(self) -> bool:
        """Announced, not the site's text yet: waiting for its effective date (or, on
        that day, for the worker to apply it). A held release is not announced."""
        if self.held:
            return False
        return self.pending or (self.effective_on is not None and self.effective_on > timezone.localdate())

    @property
    def label(self) -> str:
        """Its version as readers see it (``choices.release_label``)."""
        return release_label(self.version, self.initial)

    def get_absolute_url(self) -> str:
        """Its "what changed" page, with the UI in the source's language."""
        with translation.override(ui_language_for(self.source.language)):
            return reverse("rules:release", kwargs={"game": self.source.game.slug, "pk": self.pk})


class ReleaseChange(models.Model):
    class Kind(models.TextChoices):
        """One kind per item and release, the first that applies: its text was reworded
        (its number or title may have moved too), else its title changed beyond the number
        it holds, else only its number moved; or it was added, or removed."""

        REWORDED = "reworded", _("reworded")
        RETITLED = "retitled", _("re-titled")
        RENUMBERED = "renumbered", _("renumbered")
        ADDED = "added", _("added")
        REMOVED = "removed", _("removed")

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="changes")
    item_type = models.CharField(max_length=16)  # entry | erratum | question
    # The item's id: no foreign key, as a removed item's change outlives it. None only in
    # an upcoming release's plan, for an item it will add.
    item_id = models.PositiveBigIntegerField(null=True)
    change = models.CharField(max_length=16, choices=Kind.choices)
    order = models.PositiveIntegerField(default=0)  # the document's order
    number = models.CharField(max_length=32, blank=True)
    title = models.CharField(max_length=300)
    slug = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True)  # the text this release gives it (not for "removed")
    # The state before this release (empty for "added"): what as-of readings show.
    previous_number = models.CharField(max_length=32, blank=True)
    previous_title = models.CharField(max_length=300, blank=True)
    previous_slug = models.CharField(max_length=200, blank=True)
    previous_text = models.TextField(blank=True)
    diff_html = models.TextField(blank=True)  # "reworded": the word diff, escaped
    # Its title changed beyond the number it holds (a "retitled" one, or a reworded one
    # re-titled too); not when the source's pattern made both titles from its numbers.
    title_changed = models.BooleanField(default=False)
    # "removed": the item of the same release its text went to (the most similar one it
    # added or reworded), if any: where a reader of the old address is sent on.
    successor_id = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["release", "order", "pk"]
        indexes = [
            models.Index(fields=["item_type", "item_id"]),
            models.Index(fields=["previous_number"]),
        ]

    def __str__(self) -> str:
        return f"{self.change} {self.number or self.previous_number} {self.title}"

    @property
    def moved(self) -> bool:
        """Its number changed (a removed rule's number is its last one)."""
        return bool(self.previous_number) and self.previous_number != self.number and self.change != "removed"

    @property
    def retitled(self) -> bool:
        """Its title changed, beyond the number a numbered title holds."""
        return self.change == self.Kind.RETITLED or (self.title_changed and self.change != self.Kind.REMOVED)

    @property
    def readdressed(self) -> bool:
        """Its address changed (the old one redirects to it)."""
        return bool(self.previous_slug) and self.previous_slug != self.slug and self.change != "removed"


def initial_release(source: Source, label: str = "") -> "Release":
    """The release "as first imported" of a source that has items but no release: sequence
    0, before any other; dated by the day its first item was written; labelled with the
    source's version then (``label``) or ``INITIAL_LABEL``; listing each of its items as
    added, as they are now (``ReleaseChange`` keeps an item's state before a later
    release changes it, so this is the state every later reading starts from)."""
    tables = [
        ("entry", source.entries.all(), ("number", "title", "slug", "body")),
        ("erratum", source.errata.all(), (None, "title", "slug", "corrected_text")),
        # faq builds on rules: its questions are reached through the source, by name
        ("question", source.faq_questions.all(), (None, "question", "slug", "answer")),
    ]
    firsts = [items.aggregate(first=models.Min("created_at"))["first"] for _type, items, _fields in tables]
    first = min((created for created in firsts if created), default=source.created_at)
    day = timezone.localdate(first) if first else timezone.localdate()
    release = Release.objects.create(
        source=source, sequence=0, version=(label or INITIAL_LABEL)[:100], published_on=day, effective_on=day,
        initial=True,
    )  # fmt: skip
    if first:  # among the source's releases, it comes first in time too
        Release.objects.filter(pk=release.pk).update(created_at=first)
    changes = []
    for type_, items, (number, title, slug, text) in tables:
        fields = ["pk", title, slug, text, *([number] if number else [])]
        for order, row in enumerate(items.order_by("order", "pk").values_list(*fields)):
            changes.append(
                ReleaseChange(
                    release=release, item_type=type_, item_id=row[0], change=ReleaseChange.Kind.ADDED, order=order,
                    number=row[4] if number else "", title=row[1][:300], slug=row[2], text=row[3],
                )  # fmt: skip
            )
    ReleaseChange.objects.bulk_create(changes, batch_size=500)
    return release


# The order kinds are listed and counted in, everywhere: what changed in place first.
KINDS = tuple(ReleaseChange.Kind)


def count_by_kind(changes) -> dict[str, int]:
    """Kind → how many of ``changes`` (release changes, or the importer's change lines),
    every kind present, in ``KINDS`` order."""
    counts = dict.fromkeys(KINDS, 0)
    for change in changes:
        kind = change.change if hasattr(change, "change") else change
        counts[ReleaseChange.Kind(kind)] += 1
    return {str(kind): count for kind, count in counts.items()}


def counts_text(counts: dict[str, int]) -> str:
    """"reworded: 2, re-titled: 0, renumbered: 6, added: 1, removed: 0" in the active
    language: the one summary of a change list (import report, job page, messages)."""
    return ", ".join(f"{ReleaseChange.Kind(kind).label}: {counts.get(kind, 0)}" for kind in KINDS)


def number_spellings(number: str) -> set[str]:
    """``number`` as typed and with its letters either case ("601.2A" is 601.2a): the
    exact values a lookup asks for, so it keeps the column's index (``iexact`` cannot)."""
    return {number, number.lower(), number.upper()}


def took(number: str) -> models.QuerySet:
    """The applied changes that took ``number`` (either case) from a rule: it was
    renumbered, or reworded or re-titled under a new number."""
    spellings = number_spellings(number)
    return ReleaseChange.objects.filter(
        item_type="entry",
        previous_number__in=spellings,
        change__in=[ReleaseChange.Kind.RENUMBERED, ReleaseChange.Kind.REWORDED, ReleaseChange.Kind.RETITLED],
        release__pending=False,
    ).exclude(number__in=spellings)


def renumbered_from(number: str) -> models.QuerySet:
    """The ids of the entries that had ``number`` until a release gave them another (a
    subquery: ``Entry.objects.filter(pk__in=renumbered_from("7.3a"))``)."""
    return took(number).values("item_id")


def former_number(game_id: int, language: str, number: str) -> ReleaseChange | None:
    """The latest release change that took ``number`` from a rule of the game's
    ``language``, or None: where an old citation of ``number`` went."""
    return (
        took(number)
        .filter(release__source__game_id=game_id, release__source__language=language)
        .select_related("release")
        .order_by("-release__created_at", "-pk")
        .first()
    )


def _removals() -> models.QuerySet:
    """The removals of entries by applied, public releases, newest first."""
    return ReleaseChange.objects.filter(
        item_type="entry", change=ReleaseChange.Kind.REMOVED, release__pending=False, release__held=False
    ).order_by("-release__effective_on", "-release__sequence", "-pk")


def removals_subquery() -> models.QuerySet:
    """The removals of the entry ``OuterRef("pk")``, newest first (for an annotation)."""
    return _removals().filter(item_id=models.OuterRef("pk"))


def removed_entries() -> models.QuerySet:
    """The ids of archived entries a release removed (a subquery): a removed rule keeps
    its row, its history and a trace readers and the API can find by its old number or
    address, though it is no longer published."""
    return Entry.objects.filter(status=Status.ARCHIVED, pk__in=_removals().values("item_id")).values("pk")


def removal_at(game_id: int, slug: str, languages: list[str]) -> ReleaseChange | None:
    """Where a reader asks for ``slug`` of a game and no published entry is there: the
    release change that removed the rule that had that address (by the address it had
    when removed, or a former address that led to it), preferring ``languages`` in their
    order; None when no release removed such a rule, or it is back (published) since."""
    from .models import EntryRedirect

    former = EntryRedirect.objects.filter(game_id=game_id, old_slug=slug).values("entry_id")
    changes = list(
        _removals()
        .filter(release__source__game_id=game_id)
        .filter(models.Q(slug=slug) | models.Q(item_id__in=former))
        .select_related("release__source__game")[:20]
    )
    back = set(
        Entry.objects.filter(pk__in=[c.item_id for c in changes], status=Status.PUBLISHED).values_list("pk", flat=True)
    )
    changes = [change for change in changes if change.item_id not in back]
    if not changes:
        return None
    rank = {language: index for index, language in enumerate(languages)}
    return min(changes, key=lambda change: rank.get(change.release.source.language, len(rank)))


@dataclass(frozen=True)
class EntryAsOf:
    """An entry as a release had it: ``exists`` False when it came later."""

    exists: bool
    number: str = ""
    title: str = ""
    text: str = ""
    current: bool = True  # the text is the entry's current text

    @property
    def shown_number(self) -> str:
        """The number to show before the title ("" when the title ends with it)."""
        return shown_number(self.number, self.title)


def _removed_by_then(entry, release: Release) -> bool:
    """Whether the entry's last change up to ``release`` (included) removed it."""
    last = (
        ReleaseChange.objects.filter(
            item_type="entry",
            item_id=entry.pk,
            release__source_id=release.source_id,
            release__sequence__lte=release.sequence,
            release__pending=False,
        )
        .order_by("-release__sequence", "-pk")
        .first()
    )
    return last is not None and last.change == ReleaseChange.Kind.REMOVED


def _changed_after(release: Release) -> models.QuerySet:
    """The changes to entries of the release's source by the applied releases after it,
    oldest first: the first one of an entry holds its state as ``release`` had it."""
    return ReleaseChange.objects.filter(
        item_type="entry",
        release__source_id=release.source_id,
        release__sequence__gt=release.sequence,
        release__pending=False,
    ).order_by("release__sequence", "pk")


def entry_as_of(entry, release: Release) -> EntryAsOf:
    """``entry`` as ``release`` had it (see the module docstring): not there when a later
    release added it, or when this release or one before removed it and none since
    brought it back."""
    later = _changed_after(release).filter(item_id=entry.pk).first()
    if later is None:
        if entry.status != Status.PUBLISHED and _removed_by_then(entry, release):
            return EntryAsOf(False)
        return EntryAsOf(True, entry.number, entry.title, entry.body, current=True)
    if later.change == ReleaseChange.Kind.ADDED:
        return EntryAsOf(False)
    return EntryAsOf(True, later.previous_number, later.previous_title, later.previous_text, current=False)


@dataclass(frozen=True)
class IndexLine:
    number: str
    title: str
    entry_id: int | None  # the entry now (None: a release after removed it)
    slug: str  # its page now ("" when removed)


def _natural(number: str) -> tuple:
    """ "7.10a" after "7.9b": numbers compared part by part, as numbers where they are."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.findall(r"\d+|[a-z]+", number))


def index_as_of(release: Release, published_only: bool = True) -> list[IndexLine]:
    """Every entry of the release's source as that release had it, in rule order: the
    entries there now (with the state before a later release changed them) and those a
    later release removed; not those a later release added. Two queries."""
    entries = Entry.objects.filter(source_id=release.source_id)
    if published_only:
        entries = entries.filter(status=Status.PUBLISHED)
    now = {
        pk: (number, title, slug) for pk, number, title, slug in entries.values_list("pk", "number", "title", "slug")
    }
    earliest: dict[int, ReleaseChange] = {}
    for change in _changed_after(release):
        earliest.setdefault(change.item_id, change)
    lines = []
    for item_id in {*now, *earliest}:
        later = earliest.get(item_id)
        if later is not None and later.change == ReleaseChange.Kind.ADDED:
            continue  # came later
        current = now.get(item_id)
        if later is None:
            if current is None:
                continue  # not in this source then (or not public)
            number, title, slug = current
        elif current is None and later.change != ReleaseChange.Kind.REMOVED:
            continue  # there, but not public now
        else:
            number, title = later.previous_number, later.previous_title
            slug = current[2] if current else ""
        lines.append(IndexLine(number, title, item_id if current else None, slug))
    return sorted(lines, key=lambda line: (_natural(line.number), line.title))
