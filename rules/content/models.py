"""Games, sources, glossary entries and rule sections, cross-references and errata."""

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from ..shared.languages import CONTENT_LANGUAGES, UI_LANGUAGES, ui_language_for
from ..shared.text import normalize_label, normalize_text_fields, numbered_title, slugify_title
from . import entry_links
from .addresses import CONTENT_PARAMETER
from .choices import ErratumKind
from .journal import unit_of_work
from .querysets import EntryQuerySet, GameQuerySet, PublishableQuerySet, SourceQuerySet, Status
from .stored import Corrections, EntryRelations, TranslationState

# Stored HTML (rules.derived.rendering): derived from the texts, so kept out of their history.
RENDERED_FIELDS = {
    "entry": [
        "body_html", "html_fingerprint", "relations", "relations_fingerprint",
        "corrections", "corrections_fingerprint", "translation_status", "translation_status_fingerprint",
    ],
    "erratum": ["corrected_html", "diff_html", "html_fingerprint"],
    "question": ["answer_html", "html_fingerprint"],
}

# A row a large import created (or is publishing) is stored as a draft until the import's
# last batch: this column names the import holding it back (``rules.importing.rows``,
# "Transactions"), and the import's end publishes every row it names with one UPDATE
# per table. Bookkeeping, not content: kept out of the history and the change journal.
HELD_BY_IMPORT = "held_by_import"


def held_by_import_field():
    return models.UUIDField(
        _("held back by import"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("Set while an import that publishes this item is still writing; published when it ends."),
    )


def held_by_import_index(name: str) -> models.Index:
    """Only held rows are in it: the import's end finds its own at once."""
    return models.Index(fields=[HELD_BY_IMPORT], condition=models.Q(held_by_import__isnull=False), name=name)


STATUS_CHOICES = [
    (Status.DRAFT, _("Draft")),
    (Status.REVIEW, _("In review")),
    (Status.PUBLISHED, _("Published")),
    (Status.ARCHIVED, _("Archived")),
]


# What Entry.save() compares with the row as loaded: a rename, a body edit, a move, and
# whether the title was public (Entry.was_published_as).
STORED_FIELDS = ("title", "slug", "body", "game_id", "language", "status")


def unique_slug_for(obj, text: str) -> str:
    """A slug for ``text`` that no sibling (same model, game and language) uses yet."""
    base = slugify_title(text)
    siblings = type(obj)._default_manager.filter(game_id=obj.game_id, language=obj.language)
    if obj.pk:
        siblings = siblings.exclude(pk=obj.pk)
    taken = set(siblings.filter(slug__startswith=base).values_list("slug", flat=True))
    slug, counter = base, 2
    while slug in taken:
        slug, counter = f"{base}-{counter}", counter + 1
    return slug



def most_content_first(counts: dict[str, int]) -> list[str]:
    """Languages by how much published content they have, most first (then by code)."""
    return sorted(counts, key=lambda code: (-counts[code], code))

class Game(models.Model):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    name = models.CharField(_("name"), max_length=200)
    localized_names = models.JSONField(
        _("names per language"),
        default=dict,
        blank=True,
        help_text=_('The title in each language or edition, e.g. {"de": "Marvel Champions: Das Kartenspiel"}.'),
    )
    publisher = models.CharField(_("publisher"), max_length=200, blank=True)
    year = models.PositiveSmallIntegerField(_("year"), null=True, blank=True)
    bgg_id = models.PositiveIntegerField(_("BoardGameGeek id"), null=True, blank=True)
    moderators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="moderated_games",
        verbose_name=_("game moderators"),
        help_text=_("Members of the “Game moderators” group who may edit this game's content."),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords(excluded_fields=["moderators"])
    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = _("game")
        verbose_name_plural = _("games")

    def __str__(self) -> str:
        return self.name

    def name_in(self, language: str) -> str:
        return self.localized_names.get(language) or self.name

    def content_languages(self) -> list[str]:
        """Languages with published entries, errata or FAQ questions, most content first."""
        counts: dict[str, int] = {}
        for relation in ("entries", "errata", "faq_questions"):
            rows = (
                getattr(self, relation)
                .filter(status=Status.PUBLISHED)
                .values("language")
                .annotate(n=models.Count("pk"))
                .values_list("language", "n")
                .order_by()
            )
            for language, n in rows:
                counts[language] = counts.get(language, 0) + n
        return most_content_first(counts)

    def content_language_for(self, requested: str, available: list[str] | None = None) -> str | None:
        """The requested language if the game has content in it, else its main language."""
        available = self.content_languages() if available is None else available
        if requested in available:
            return requested
        return available[0] if available else None

    def get_absolute_url(self) -> str:
        return reverse("rules:game", kwargs={"game": self.slug})

    def delete(self, *args, **kwargs):
        """Delete with everything in it, as one unit of work (``rules.content.journal``): what is
        derived from its rows is brought up to date once, not once per entry."""
        with unit_of_work():
            return super().delete(*args, **kwargs)


class Source(models.Model):
    class Kind(models.TextChoices):
        RULES_REFERENCE = "rules_reference", _("Rules reference")
        RULEBOOK = "rulebook", _("Rulebook")
        FAQ = "faq", _("FAQ")
        ERRATA = "errata", _("Errata sheet")
        COMMUNITY_TRANSLATION = "community_translation", _("Community translation")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="sources", verbose_name=_("game"))
    language = models.CharField(_("language"), max_length=8, choices=CONTENT_LANGUAGES)
    title = models.CharField(_("title"), max_length=300)
    kind = models.CharField(_("kind"), max_length=32, choices=Kind.choices)
    version = models.CharField(_("version or date"), max_length=100, blank=True)
    official = models.BooleanField(_("official"), default=True)
    url = models.URLField(_("URL"), blank=True)
    attribution = models.CharField(_("attribution"), max_length=300, blank=True)
    # How the importer titles a numbered rule that has no title of its own
    # (rules.importing.titles): kept with the source, so every version of it is read alike.
    numbered_title = models.CharField(
        _("titles of numbered rules"),
        max_length=200,
        blank=True,
        help_text=_(
            "How an import titles a numbered rule that has no title of its own: {number} is its number, "
            "{parent} the title of its section, e.g. “Regel {number}”. Empty: “{parent} {number}”."
        ),
    )
    # The releases a reader can read its entries as of, oldest first (id, version,
    # effective_on, initial): the entry page's release picker, read with the source the
    # page loads anyway. Derived (rules.derived.relations), so kept out of its history.
    readable_releases = models.JSONField(default=list, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords(excluded_fields=["readable_releases"])
    objects = SourceQuerySet.as_manager()

    class Meta:
        ordering = ["game", "language", "title"]
        verbose_name = _("source")
        verbose_name_plural = _("sources")
        constraints = [
            models.UniqueConstraint(fields=["game", "language", "title"], name="unique_source_title"),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        """Where readers see it cited: the sources list of its game, in its language."""
        with translation.override(ui_language_for(self.language)):
            return reverse("rules:game", kwargs={"game": self.game.slug}) + "#sources-heading"


class Entry(models.Model):
    """A glossary entry or a (numbered, possibly nested) rule section."""

    class Kind(models.TextChoices):
        GLOSSARY = "glossary", _("Glossary entry")
        SECTION = "section", _("Rule section")
        RULING = "ruling", _("Ruling")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="entries", verbose_name=_("game"))
    language = models.CharField(_("language"), max_length=8, choices=CONTENT_LANGUAGES)
    title = models.CharField(_("title"), max_length=300)
    slug = models.SlugField(_("slug"), max_length=200, blank=True)
    aliases = models.JSONField(
        _("aliases"), default=list, blank=True, help_text=_("Other names readers search for, e.g. Du and Dein.")
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.GLOSSARY)
    number = models.CharField(_("number"), max_length=32, blank=True, help_text=_("e.g. 7, 2.3 or 601.2a"))
    parent = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="children",
        verbose_name=_("parent section"),
    )
    order = models.PositiveIntegerField(_("order"), default=0)
    body = models.TextField(
        _("body"), blank=True, help_text=_("Markdown. Link other entries with [[Term]] or [[Term|shown text]].")
    )
    # The body rendered when written (rules.derived.rendering), and what it was rendered from.
    body_html = models.TextField(blank=True, editable=False)
    html_fingerprint = models.CharField(max_length=32, blank=True, editable=False)
    # What the entry's page and JSON show of other items (rules.derived.relations), kept up to
    # date when anything is written, and a hash of it.
    relations = models.JSONField(default=dict, blank=True, editable=False)
    relations_fingerprint = models.CharField(max_length=32, blank=True, editable=False)
    # The body with its errata applied, as corrected and as printed, each change marked
    # (rules.derived.corrections), and what it was made from.
    corrections = models.JSONField(default=dict, blank=True, editable=False)
    corrections_fingerprint = models.CharField(max_length=32, blank=True, editable=False)
    see_also = models.JSONField(
        _("see also"),
        default=list,
        blank=True,
        help_text=_("Ordered labels as written; each resolves to an entry of the same game and language."),
    )
    source = models.ForeignKey(
        Source, on_delete=models.SET_NULL, null=True, blank=True, related_name="entries", verbose_name=_("source")
    )
    page = models.CharField(_("page"), max_length=32, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=STATUS_CHOICES, default=Status.DRAFT, db_index=True)
    held_by_import = held_by_import_field()
    is_fragment = models.BooleanField(
        _("fragment"),
        default=False,
        help_text=_("The imported text starts or ends mid-entry; a moderator should complete it."),
    )
    translation_key = models.UUIDField(
        _("translation key"),
        default=uuid.uuid4,
        db_index=True,
        help_text=_("Shared by the same entry in every language."),
    )
    # Which version this one was translated from, and which version of that original it
    # matches (rules.derived.translation_status): set when a translation is started, linked or
    # marked up to date in the admin, never typed.
    translation_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("translated from"),
    )
    translation_base = models.PositiveBigIntegerField(
        _("translated from version"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("The history version of the original that this translation was made from or last checked against."),
    )
    # Whether it is up to date with that original, and what changed there since (derived).
    translation_status = models.JSONField(default=dict, blank=True, editable=False)
    translation_status_fingerprint = models.CharField(max_length=32, blank=True, editable=False)
    body_checked_at = models.DateTimeField(
        _("text checked"),
        default=timezone.now,
        editable=False,
        help_text=_("When the body was last written or confirmed up to date with its errata."),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    history = HistoricalRecords(
        excluded_fields=["updated_at", "body_checked_at", HELD_BY_IMPORT, *RENDERED_FIELDS["entry"]]
    )
    objects = EntryQuerySet.as_manager()

    class Meta:
        ordering = ["game", "language", "order", "title"]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        constraints = [
            models.UniqueConstraint(fields=["game", "language", "slug"], name="unique_entry_slug"),
        ]
        indexes = [
            models.Index(fields=["game", "language", "status"]),
            # The API's entry list, in its order, published entries only: a page is an
            # index range scan, not a sort of every entry (EXPLAIN in the manual, "Speed").
            models.Index(
                fields=["game", "language", "order", "title", "id"],
                condition=models.Q(status="published"),
                name="entry_published_in_order",
            ),
            held_by_import_index("entry_held_by_import"),
        ]

    def __str__(self) -> str:
        return numbered_title(self.number, self.title)

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        # What was stored, to tell a rename or a body edit on save (see save()).
        instance._stored = {name: instance.__dict__.get(name) for name in STORED_FIELDS}
        return instance

    def save(self, *args, **kwargs) -> None:
        """Save, keeping everything that points at the entry working.

        - A new title moves a slug that was made from the old title along with it;
          the old slug keeps working as a permanent redirect (``EntryRedirect``).
        - The old title, if the entry was published under it, becomes an alias, so
          cross-references written with it still resolve to this entry (and readers
          who search for it still find it).
        - A changed body marks the text as checked now (the errata worklist).

        One unit of work (``rules.content.journal``): the row and its old address are recorded
        and what is derived from them (its HTML, cross-references, what other entries
        show of it) is brought up to date by the pipeline before the save commits.
        """
        normalize_text_fields(self, ["body"])
        stored = getattr(self, "_stored", None)
        renamed = stored is not None and stored["title"] != self.title
        if renamed:
            self._follow_rename(stored["title"], stored["slug"], stored["status"])
        if not self.slug:
            self.slug = unique_slug_for(self, self.title)
        if stored is not None and stored["body"] != self.body:
            self.body_checked_at = timezone.now()
        with unit_of_work():
            super().save(*args, **kwargs)
            self._keep_old_slug(stored)
        self._stored = {name: self.__dict__.get(name) for name in STORED_FIELDS}

    def _follow_rename(self, old_title: str, old_slug: str, old_status: str | None) -> None:
        if self.slug == old_slug and slug_was_made_from(old_slug, old_title):
            self.slug = unique_slug_for(self, self.title)
        if normalize_label(old_title) in self.lookup_keys:
            return
        if self.was_published_as(old_title, old_status):
            self.aliases = [*(self.aliases or []), old_title]

    def was_published_as(self, title: str, stored_status: str | None) -> bool:
        """Whether readers and links could know this entry as ``title``: it is stored
        published with that title (``stored_status``), or a version of it was published
        under it.

        What the entry becomes in the save under way does not count: a translation
        started from another entry is a draft carrying its source's title, and renamed
        in the very save that first publishes it, that title was never its own on the
        site (it was the original's), so it becomes no alias.
        """
        if stored_status == Status.PUBLISHED:
            return True
        return self.history.filter(status=Status.PUBLISHED, title=title).exists()

    def _keep_old_slug(self, stored: dict | None) -> None:
        """The old slug redirects here; a slug this entry now uses redirects nowhere.

        Only a new entry or a changed address touches the table: an ordinary save (a
        body edit, a status change) costs no query here.
        """
        moved = stored is None or (stored["slug"], stored["game_id"], stored["language"]) != (
            self.slug, self.game_id, self.language
        )
        if not moved:
            return
        EntryRedirect.objects.filter(game_id=self.game_id, language=self.language, old_slug=self.slug).delete()
        if stored is None or stored["slug"] in (None, ""):
            return
        if (stored["game_id"], stored["language"]) != (self.game_id, self.language):
            return  # moved to another game or language: the old address is not this entry's
        EntryRedirect.objects.update_or_create(
            game_id=self.game_id, language=self.language, old_slug=stored["slug"], defaults={"entry": self}
        )

    # A deletion, by the admin's bulk delete too, is recorded in the journal by its
    # signal (rules.content.journal), and the pipeline resolves the game's links again.

    @property
    def names(self) -> list[str]:
        """The title and every alias: what a cross-reference label may match."""
        return [self.title, *self.aliases]

    @property
    def lookup_keys(self) -> set[str]:
        return {normalize_label(name) for name in self.names}

    @property
    def is_published(self) -> bool:
        return self.status == Status.PUBLISHED

    @cached_property
    def related(self) -> EntryRelations:
        """What the entry shows of other items, as stored with it (``rules.content.stored``)."""
        return EntryRelations(self)

    @cached_property
    def corrected(self) -> Corrections:
        """The body with its errata applied, as stored with it (``rules.content.stored``)."""
        return Corrections(self.corrections or {})

    @cached_property
    def translation_state(self) -> TranslationState:
        """Whether this translation is up to date with its original (``rules.content.stored``)."""
        return TranslationState(self)

    @property
    def display_title(self) -> str:
        return str(self)

    def get_absolute_url(self) -> str:
        """The entry's page in the active UI language (links keep the reader's language)."""
        return reverse("rules:entry", kwargs={"game": self.game.slug, "slug": self.slug})

    def canonical_url(self) -> str:
        """The entry's own page: the UI in the entry's language.

        Content in a language the UI does not offer (French, say) is shown with the
        default UI and ``?content=fr``, which asks for this very version: without it the
        page would send the reader on to a translation in the UI's language.
        """
        own_page = self.url_in(ui_language_for(self.language))
        return own_page if self.language in UI_LANGUAGES else f"{own_page}?{CONTENT_PARAMETER}={self.language}"

    def url_in(self, ui_language: str) -> str:
        """The entry's page with the UI in ``ui_language``."""
        with translation.override(ui_language):
            return self.get_absolute_url()


def slug_was_made_from(slug: str, title: str) -> bool:
    """Whether ``slug`` is the slug ``unique_slug_for`` gives ``title`` (with or without "-N")."""
    base = slugify_title(title)
    return slug == base or (slug.startswith(base + "-") and slug[len(base) + 1 :].isdigit())


class EntryRedirect(models.Model):
    """An entry's earlier slug: the old address answers with a permanent redirect."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    language = models.CharField(max_length=8, choices=CONTENT_LANGUAGES)
    old_slug = models.SlugField(max_length=200)
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="redirects")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("old address")
        verbose_name_plural = _("old addresses")
        constraints = [
            models.UniqueConstraint(fields=["game", "language", "old_slug"], name="unique_entry_redirect"),
        ]

    def __str__(self) -> str:
        return f"{self.old_slug} → {self.entry.slug}"


class CrossReference(models.Model):
    """A link from an entry to a label as written, resolved to an entry when one matches.

    Rows are derived: ``Entry.see_also`` and the ``[[Term]]`` links of ``Entry.body`` are
    the truth and every entry save re-syncs them (see ``rules.derived.references``). A label with
    no matching published entry of the same game and language stays unresolved ("wanted")
    and resolves by itself once such an entry is published or renamed.
    """

    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="cross_references")
    label = models.CharField(_("label"), max_length=300)
    normalized_label = models.CharField(max_length=300, db_index=True, editable=False)
    target = models.ForeignKey(
        Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="referenced_by"
    )
    order = models.PositiveIntegerField(default=0)
    in_body = models.BooleanField(default=False, help_text=_("Written as [[Term]] inside the body."))

    class Meta:
        ordering = ["entry", "in_body", "order"]
        verbose_name = _("cross-reference")
        verbose_name_plural = _("cross-references")
        constraints = [
            models.UniqueConstraint(
                fields=["entry", "normalized_label", "in_body"], name="unique_cross_reference"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.entry} → {self.label}"

    @property
    def is_resolved(self) -> bool:
        return self.target_id is not None


class Erratum(models.Model):
    """A correction to a printed rule, shown on every entry it affects."""

    Kind = ErratumKind

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="errata", verbose_name=_("game"))
    language = models.CharField(_("language"), max_length=8, choices=CONTENT_LANGUAGES)
    source = models.ForeignKey(
        Source, on_delete=models.SET_NULL, null=True, blank=True, related_name="errata", verbose_name=_("source")
    )
    page = models.CharField(_("page"), max_length=32, blank=True)
    title = models.CharField(_("title"), max_length=300)
    slug = models.SlugField(_("slug"), max_length=200, blank=True)
    original_text = models.TextField(
        _("original text"), blank=True, help_text=_("What the printed rule said, if known.")
    )
    corrected_text = models.TextField(_("corrected text"), help_text=_("Markdown."))
    # Rendered when written (rules.derived.rendering): the corrected text and the word diff.
    corrected_html = models.TextField(blank=True, editable=False)
    diff_html = models.TextField(blank=True, editable=False)
    html_fingerprint = models.CharField(max_length=32, blank=True, editable=False)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices, default=Kind.CORRECTION)
    published_on = models.DateField(_("date"), null=True, blank=True)
    order = models.PositiveIntegerField(_("order"), default=0)
    status = models.CharField(_("status"), max_length=16, choices=STATUS_CHOICES, default=Status.DRAFT, db_index=True)
    held_by_import = held_by_import_field()
    affects = models.ManyToManyField(Entry, blank=True, related_name="errata", verbose_name=_("affects"))
    translation_key = models.UUIDField(_("translation key"), default=uuid.uuid4, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    history = HistoricalRecords(
        excluded_fields=["updated_at", HELD_BY_IMPORT, *RENDERED_FIELDS["erratum"]], m2m_fields=[affects]
    )
    objects = PublishableQuerySet.as_manager()

    class Meta:
        ordering = ["game", "language", "order", "title"]
        verbose_name = _("erratum")
        verbose_name_plural = _("errata")
        constraints = [
            models.UniqueConstraint(fields=["game", "language", "slug"], name="unique_erratum_slug"),
        ]
        indexes = [held_by_import_index("erratum_held_by_import")]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs) -> None:
        normalize_text_fields(self, ["original_text", "corrected_text"])
        if not self.slug:
            self.slug = unique_slug_for(self, self.title)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("rules:errata", kwargs={"game": self.game.slug}) + f"#{self.slug}"


# An erratum affects entries of its own game and language only (rules.content.entry_links).
entry_links.guard(Erratum.affects)
