"""The record of a file built in the background (``rules.builds``)."""

from django.db import IntegrityError, models

from ..shared.database import brief_write, is_database_busy


class BuiltFileQuerySet(models.QuerySet):
    def for_request(self, kind: str, **identity) -> "BuiltFile":
        """The file's record, made on the first request for it (asking on the side, like
        ``tasks.request_build``: a busy database gives an unsaved record, which is
        served as "being prepared" and made by a later request)."""
        file = self.filter(kind=kind, **identity).first()
        if file is not None:
            file.game = identity["game"]  # the caller's instance: no query for its slug
            return file
        try:
            with brief_write():
                return self.get_or_create(kind=kind, **identity)[0]
        except IntegrityError:  # made by another request just now
            return self.get(kind=kind, **identity)
        except Exception as error:
            if not is_database_busy(error):
                raise
            return self.model(kind=kind, **identity)


class BuiltFile(models.Model):
    class Kind(models.TextChoices):
        BOOKLET_HTML = "booklet-html", "booklet (HTML)"
        BOOKLET_PDF = "booklet-pdf", "booklet (PDF)"
        SITEMAP = "sitemap", "sitemap of a game and language"
        BULK = "bulk-json", "bulk data file (API)"
        CARD = "card", "link-preview card of a game"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    # None: a file of every game (the API's bulk file of everything).
    game = models.ForeignKey("rules.Game", on_delete=models.CASCADE, related_name="+", null=True, blank=True)
    language = models.CharField(max_length=8)  # the content's
    part = models.CharField(max_length=16, blank=True)  # a booklet's: glossary or rules
    variant = models.CharField(max_length=16, blank=True)  # a rulebook's source id, "0": none
    ui_language = models.CharField(max_length=8, blank=True)  # a booklet's labels
    # The stored bytes, and a gzip copy of text (empty: none yet, or not compressed).
    name = models.CharField(max_length=255, blank=True)
    size = models.PositiveBigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True)
    gzip_name = models.CharField(max_length=255, blank=True)
    gzip_size = models.PositiveBigIntegerField(default=0)
    gzip_sha256 = models.CharField(max_length=64, blank=True)
    built_at = models.DateTimeField(null=True, blank=True)
    # A hash of what the file was made from: made again only when it changes.
    fingerprint = models.CharField(max_length=64, blank=True)
    # The content version at which it was last found up to date, and the one a build
    # was last asked for (one request per file and version enqueues it).
    checked_token = models.BigIntegerField(null=True, blank=True)
    requested_token = models.BigIntegerField(null=True, blank=True)
    # Something it shows was unpublished or deleted since it was built: it is not served
    # as last built (a withdrawn text must not stay readable) until it is built again.
    withdrawn = models.BooleanField(default=False)
    # A bulk data file's position in the public change feed: it holds every change up
    # to this cursor (rules.api.bulk).
    cursor = models.BigIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)  # the last build's failure, for the logs and admins
    # Since when a file its record said was stored has been missing from the storage
    # (``tasks.found_missing``); cleared when it is built again. The admin's front page
    # warns about files missing for more than a few minutes (no worker making them).
    missing_since = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = BuiltFileQuerySet.as_manager()

    class Meta:
        verbose_name = "built file"
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "game", "language", "part", "variant", "ui_language"], name="unique_built_file"
            ),
        ]

    def __str__(self) -> str:
        return "/".join(filter(None, [self.kind, str(self.game_id), self.language, self.part, self.variant]))

    @property
    def is_stored(self) -> bool:
        return bool(self.name)
