"""What the public sees of each item, and the public change feed made from it.

The change journal (``rules.content.journal``) records every write, drafts included;
API clients must only ever see what an anonymous reader sees. These tables are the
public side, derived by the pipeline's last step (``rules.derived.public_changes``):

* ``PublicItem``: one row per item an anonymous reader can see (game, source, and
  published entry, erratum, FAQ question), with a signature of its API representation
  and when that last changed (the API's ``updated_at``).
* ``PublicChange``: one row each time an item appeared (``created``), its
  representation changed (``updated``, embedded data included), or it disappeared
  (``deleted``: deleted, unpublished, archived). Read by ``GET /api/v1/changes/`` with a
  cursor (the monotonic id).
* ``FeedHorizon``: the last id ``manage.py prune_changes`` deleted, so a cursor older
  than what is kept is told so (410) rather than silently skipping changes.

And what a game's page shows of each of its languages (``GameLanguage``, written by
``rules.derived.game_pages``).
"""

from django.db import models
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce, Now


class FeedKind(models.TextChoices):
    GAME = "game"
    SOURCE = "source"
    ENTRY = "entry"
    ERRATUM = "erratum"
    QUESTION = "question"


class PublicItem(models.Model):
    kind = models.CharField(max_length=16, choices=FeedKind.choices)
    object_id = models.BigIntegerField()
    game_id = models.BigIntegerField(null=True)  # not a key: a deleted game's rows are diffed
    game_slug = models.CharField(max_length=100)
    language = models.CharField(max_length=8, blank=True)
    slug = models.CharField(max_length=200, blank=True)
    number = models.CharField(max_length=32, blank=True)
    # A hash of every value the item's API representation is made of (its own fields,
    # the derived columns' fingerprints, what it embeds of other items).
    signature = models.CharField(max_length=32)
    changed_at = models.DateTimeField(db_default=Now())  # the database's clock, as the journal's
    # The item's JSON as its list endpoint shows it, URLs under the placeholder address
    # (rules.derived.stored_json); null where none is stored (read through the serializer).
    body = models.TextField(null=True, editable=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "object_id"], name="public_item_once")]
        indexes = [models.Index(fields=["game_id"], name="public_item_by_game")]

    def __str__(self) -> str:
        return f"{self.kind} {self.object_id}"

    @classmethod
    def changed_at_of(cls, kind: str):
        """For a queryset of ``kind``'s items: when each one's public representation last
        changed (the API's ``updated_at``), or its own ``updated_at`` where no row says
        (rows written around the pipeline). One index lookup per item."""
        changed = cls.objects.filter(kind=kind, object_id=OuterRef("pk")).values("changed_at")[:1]
        return Coalesce(Subquery(changed), "updated_at")

    @classmethod
    def body_of(cls, kind: str):
        """For a queryset of ``kind``'s items: each one's stored JSON, or null."""
        return Subquery(cls.objects.filter(kind=kind, object_id=OuterRef("pk")).values("body")[:1])


class PublicChange(models.Model):
    class Action(models.TextChoices):
        CREATED = "created"
        UPDATED = "updated"
        DELETED = "deleted"
        REMOVED = "removed"  # no longer public because a release removed it (release_id)

    id = models.BigAutoField(primary_key=True)  # the feed's cursor: WHERE id > cursor ORDER BY id
    kind = models.CharField(max_length=16, choices=FeedKind.choices)
    object_id = models.BigIntegerField()
    action = models.CharField(max_length=16, choices=Action.choices)
    game_slug = models.CharField(max_length=100)  # kept as it was: a deleted game has no row to join
    language = models.CharField(max_length=8, blank=True)
    old_slug = models.CharField(max_length=200, blank=True)
    new_slug = models.CharField(max_length=200, blank=True)
    old_number = models.CharField(max_length=32, blank=True)
    new_number = models.CharField(max_length=32, blank=True)
    # "removed": the release that removed it (rules.content.releases); no foreign key, as
    # the feed outlives what it names.
    release_id = models.BigIntegerField(null=True, blank=True)
    at = models.DateTimeField(db_default=Now())

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["at"], name="public_change_by_time")]  # pruning

    def __str__(self) -> str:
        return f"#{self.id} {self.kind} {self.object_id} {self.action}"


class FeedHorizon(models.Model):
    """One row: the highest ``PublicChange`` id pruned (0: nothing pruned yet)."""

    pruned_through = models.BigIntegerField(default=0)

    @classmethod
    def current(cls) -> int:
        return cls.objects.filter(pk=1).values_list("pruned_through", flat=True).first() or 0


class GameLanguage(models.Model):
    """One language a game has published content in, as the game's pages show it: how much
    (the counts, which order the languages are offered in) and the game page's lists of
    entries, stored as HTML (``rules.derived.game_pages``)."""

    game = models.ForeignKey("rules.Game", on_delete=models.CASCADE, related_name="languages_shown")
    language = models.CharField(max_length=8)
    entries = models.PositiveIntegerField(default=0)
    errata = models.PositiveIntegerField(default=0)
    questions = models.PositiveIntegerField(default=0)
    glossary_html = models.TextField(blank=True)  # links in the language's own UI prefix
    sections_html = models.TextField(blank=True)
    fingerprint = models.CharField(max_length=32, blank=True)  # of the rows the lists were made from

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "language"], name="game_language_once")]

    def __str__(self) -> str:
        return f"{self.game_id} {self.language}"

    @property
    def total(self) -> int:
        return self.entries + self.errata + self.questions
