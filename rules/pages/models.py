"""Pages stored as an anonymous reader gets them (``rules.pages.stored``): an entry's
(``rules.pages.stored_pages``) and a game's (``rules.pages.stored_game_pages``)."""

from django.db import models

from ..shared.compression import body_digest, gzipped


class StoredPage(models.Model):
    """One page in one UI language, rendered by the worker, with the digest of everything
    it was rendered from (``inputs``): served while a reader's request has the same
    inputs, else rendered again in the request (never stale). Beside the HTML, the bytes
    a client that takes gzip gets (``rules.shared.compression.gzipped``) and the HTML's
    hash their ETag is made of: compressed once here, not in every request."""

    ui_language = models.CharField(max_length=8)
    inputs = models.CharField(max_length=40)
    html = models.TextField()
    # None: sent as it is (too short to compress), or stored before these were (0031).
    gzip = models.BinaryField(null=True)
    digest = models.CharField(max_length=40, db_default="")  # body_digest of the HTML

    class Meta:
        abstract = True

    @classmethod
    def of(cls, body: bytes, **fields) -> "StoredPage":
        """The page whose rendered bytes are ``body``: its HTML, the gzip bytes and the
        HTML's digest made from them once, here, for every kind."""
        return cls(html=body.decode(), gzip=gzipped(body, kept=True), digest=body_digest(body), **fields)


class StoredEntryPage(StoredPage):
    """An entry's page."""

    entry = models.ForeignKey("rules.Entry", on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entry", "ui_language"], name="stored_entry_page_once"),
        ]

    def __str__(self) -> str:
        return f"entry {self.entry_id} ({self.ui_language})"


class StoredGamePage(StoredPage):
    """A game's page, which shows the game's content in one language
    (``content_language``): the reader's query finds it beside that language's row."""

    game = models.ForeignKey("rules.Game", on_delete=models.CASCADE, related_name="+")
    content_language = models.CharField(max_length=8)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "ui_language"], name="stored_game_page_once"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} ({self.ui_language})"
