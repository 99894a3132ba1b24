"""The search index: one row per published entry, erratum and FAQ question.

Rows are derived data, rebuilt from the items at any time
(``manage.py rebuild_search_index``) and kept current on every save, import and delete
(``rules.search.index``), as is the typo vocabulary, ``SearchWord``. On top of this
table each database has its own full-text index, created by migration 0002 for that
vendor only:

* SQLite: an FTS5 table over ``title_terms`` and ``body_terms`` with ``content=`` this
  table, kept in step by triggers;
* PostgreSQL: a generated ``tsvector`` column (titles weighted A, bodies B, the
  ``simple`` configuration because terms arrive stemmed and folded) with a GIN index.
"""

from django.db import models


class SearchDocument(models.Model):
    item_type = models.CharField(max_length=16)  # entry | erratum | question
    item_id = models.PositiveBigIntegerField()
    game = models.ForeignKey("rules.Game", on_delete=models.CASCADE, related_name="+")
    language = models.CharField(max_length=8)
    slug = models.CharField(max_length=200)
    number = models.CharField(max_length=32, blank=True)
    title = models.CharField(max_length=500)
    # The title and each alias as written, one per line; and their exact-match keys
    # (folded words), line for line.
    names = models.TextField(blank=True)
    name_keys = models.TextField(blank=True)
    title_terms = models.TextField(blank=True)  # title and aliases as index terms
    body_terms = models.TextField(blank=True)
    body_text = models.TextField(blank=True)  # plain text, for snippets
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item_type", "item_id"], name="unique_search_document")]
        indexes = [models.Index(fields=["language", "game"])]

    def __str__(self) -> str:
        return f"{self.item_type} {self.item_id}: {self.title}"


class SearchName(models.Model):
    """Suggestions as you type: every title and alias, and every later word start of a
    title ("kontrolle" for "Besitz und Kontrolle"), as a folded key. A typed prefix is
    a range scan on the key's index, fast at any size on both databases, where a
    full-text prefix query slows down as the prefix gets shorter."""

    document = models.ForeignKey(SearchDocument, on_delete=models.CASCADE, related_name="name_rows")
    key = models.CharField(max_length=200)
    alias = models.CharField(max_length=300, blank=True)  # the alias, when the key is one
    position = models.PositiveSmallIntegerField(default=0)  # 0: the name's start
    language = models.CharField(max_length=8)
    game_id = models.BigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["key"]), models.Index(fields=["language", "key"])]


class SearchWord(models.Model):
    """The typo vocabulary (``rules.search.fuzzy``): every word of the index's titles and
    aliases ("names") and bodies ("body"), per language, folded, with its form as first
    written and how many documents hold it. Kept at index time with the documents."""

    language = models.CharField(max_length=8)
    field = models.CharField(max_length=5)  # names | body
    folded = models.CharField(max_length=100)
    word = models.CharField(max_length=100)  # case-folded, diacritics kept
    document_count = models.IntegerField()  # 0 or less: deleted (fuzzy.Changes.save)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["language", "field", "folded"], name="unique_search_word")]

    def __str__(self) -> str:
        return f"{self.language} {self.field}: {self.word} ({self.document_count})"
