"""Typo tolerance: the closest word the index knows, for a query word it does not.

Two vocabularies per language: the words of titles and aliases (what players look up
by name), and, consulted only when a word is close to no title word, the words of
bodies (stricter cut-off). Matching is rapidfuzz's normalised Levenshtein ratio
("recations" → "reactions") over folded words; a correction is the word as written.

Decisions:

- **Persisted, kept at index time.** The vocabulary is a table, ``SearchWord``: per
  language and field ("names" or "body"), each folded word, its form as first written
  and how many documents hold it. ``rules.search.index`` changes it in the transaction
  that writes the documents (saves, imports, unpublishing, deletes, rebuild), so no
  reader ever builds it. Before, the first misspelt query of each process read every
  document's names (and, for a body word, bodies): 250 ms of the first misspelt search
  at 50,000 entries, up to 2.5 s for a body word (``bench/first_typo.py``); now the
  correction takes 13–17 ms there.
- **Counts, changed by batch.** A write adds or subtracts each word of every document
  that comes, goes or changes its words (``Changes``), summed over the whole write (an
  import of 10,000 entries: one row per distinct word, not one per batch) and applied
  with one ``INSERT … ON CONFLICT DO UPDATE SET document_count = document_count +
  excluded.document_count`` per thousand words (SQLite and PostgreSQL alike); a word
  whose count falls to 0 is deleted. The cost follows what is written, not the index
  size: rebuilding a language's words after an import would re-read all its documents,
  the very cost this removes from readers. (The 10,000-entry import: 0.7 s gathering
  words and 0.2 s writing them, beside the 4–6 s its search index takes.)
  A game's deletion cascades to its documents without passing through the index code,
  so a ``pre_delete`` on Game removes them first (``index.connect_signals``). After
  raw SQL on the documents, ``rebuild_search_index`` recreates the words with them.
- **Read whole, cached per process, keyed by the content version.** A language's
  vocabularies are some thousands of words even for 50,000 entries: 5,836 names and
  7,616 body words for the generated English glossary (``bench/first_typo.py``);
  about 11,000 and 14,000 per language for ``bench/search_latency.py``'s 50,000 entries
  in four languages. One query loads a language's names (10–40 ms here; all four
  languages' 43,000, for a search in any language: 70–140 ms) and rapidfuzz scans them
  in about a millisecond, so candidates are not narrowed in SQL (by length: most words
  pass a 75 cut-off anyway; by first letter: that would miss a typo in it). Rows load in
  id order, first written first, which is the order ties go in. A process keeps what it
  loaded while the content version (``rules.content.version``) is unchanged: database
  triggers bump it in every transaction that writes search documents, which is every one
  that writes words, so a change made by any process is seen by the next correction,
  for one single-row read per correction; a process never pays more than that first
  load. (Only a ``TRUNCATE`` escapes those triggers: Django's flush between tests on
  PostgreSQL, after which a process may keep words of the emptied index.)
- Words are counted from three characters in names and four in bodies, as written (as
  before); a folded word longer than ``LONGEST`` characters is no typo target and is not
  stored.
"""

import threading
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from django.db import connection
from rapidfuzz import fuzz, process
from wordfreq import zipf_frequency

from ..content import version as content_version
from ..shared.bulk import staged
from .models import SearchWord
from .normalize import fold, words

CUTOFF = 75
BODY_CUTOFF = 85
SHORTEST = {"names": 3, "body": 4}  # characters, as written
LONGEST = 60  # folded characters
BATCH = 1000


class Changes:
    """The word counts that a batch of index writes changes: documents that come (``add``)
    and go (``remove``), applied with ``save()`` in the transaction of those writes,
    after them (a writer takes the content version's lock first, then the words').

    A document counts once for each spelling of a folded word it holds ("identität" and
    "identitat": twice), the same way when it comes and when it goes, so a word's count
    is 0 exactly when no document holds it. Per document only its distinct words are
    gathered (C-level ``Counter.update``); folding and filtering happen once per distinct
    word of the whole batch, in ``totals()``.
    """

    def __init__(self):
        # (language, field) → word as written → documents (+ added, - removed)
        self._added: dict[tuple[str, str], Counter] = {}
        self._removed: dict[tuple[str, str], Counter] = {}

    def add(self, language: str, names: str, body_text: str) -> None:
        self._gather(self._added, language, names, body_text)

    def remove(self, language: str, names: str, body_text: str) -> None:
        self._gather(self._removed, language, names, body_text)

    @staticmethod
    def _gather(target: dict, language: str, names: str, body_text: str) -> None:
        for field, text in (("names", names), ("body", body_text)):
            counter = target.get((language, field))
            if counter is None:
                counter = target[(language, field)] = Counter()
            counter.update(dict.fromkeys(words(text or "")).keys())  # distinct, in order

    def totals(self) -> dict[tuple[str, str, str], tuple[int, str]]:
        """(language, field, folded) → (change in documents, the word as first written)."""
        out: dict[tuple[str, str, str], list] = {}
        for sign, gathered in ((1, self._added), (-1, self._removed)):
            for (language, field), counter in gathered.items():
                shortest = SHORTEST[field]
                for word, documents in counter.items():
                    if len(word) < shortest:
                        continue
                    folded = fold(word)
                    if not folded or len(folded) > LONGEST:
                        continue
                    key = (language, field, folded)
                    found = out.get(key)
                    if found is None:
                        out[key] = [sign * documents, word]
                    else:
                        found[0] += sign * documents
        return {key: (change, word) for key, (change, word) in out.items()}

    def save(self) -> None:
        rows = [(*key, word[:100], change) for key, (change, word) in self.totals().items() if change]
        self._added.clear()
        self._removed.clear()
        if not rows:
            return
        table = connection.ops.quote_name(SearchWord._meta.db_table)
        columns = "language, field, folded, word, document_count"
        # Keys are distinct (``totals``), as one ON CONFLICT DO UPDATE statement needs.
        conflict = (
            "ON CONFLICT (language, field, folded) "
            f"DO UPDATE SET document_count = {table}.document_count + excluded.document_count"
        )
        emptied = [(lang, field, folded) for lang, field, folded, _, change in rows if change < 0]
        delete = (
            f"DELETE FROM {table} WHERE language = %s AND field = %s AND folded = %s "  # noqa: S608
            "AND document_count <= 0"
        )
        if connection.vendor == "postgresql":
            # Staged with COPY and upserted by one statement: as parameters, 100,000
            # values (a 10,000-entry import's words) cost more than the upsert itself.
            types = [("language", "varchar(8)"), ("field", "varchar(5)")]
            types += [("folded", "varchar(100)"), ("word", "varchar(100)")]
            types += [("document_count", "integer")]
            with staged(types, rows) as (staging, _count), connection.cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {staging} {conflict}"  # noqa: S608
                )
        else:
            # Many rows per statement, as many as SQLite takes parameters.
            per_statement = min(BATCH, (connection.features.max_query_params or 999) // 5)
            with connection.cursor() as cursor:
                for start in range(0, len(rows), per_statement):
                    batch = rows[start : start + per_statement]
                    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(batch))
                    cursor.execute(
                        f"INSERT INTO {table} ({columns}) VALUES {values} {conflict}",  # noqa: S608
                        [value for row in batch for value in row],
                    )
        with connection.cursor() as cursor:
            for start in range(0, len(emptied), BATCH):
                cursor.executemany(delete, emptied[start : start + BATCH])


def counted(documents) -> dict[tuple[str, str, str], int]:
    """What the table should hold for these (language, names, body_text) rows:
    (language, field, folded) → count; for the migration, checks and tests."""
    changes = Changes()
    for language, names, body_text in documents:
        changes.add(language, names, body_text)
    return {key: change for key, (change, _) in changes.totals().items()}


# -- reading -----------------------------------------------------------------------


@dataclass
class Vocabulary:
    version: int
    words: dict[str, str]  # folded → as written (case-folded, with diacritics)


_cache: dict[tuple[str, str | None], Vocabulary] = {}
_lock = threading.Lock()


def forget() -> None:
    """Drop this process's vocabularies (the next correction reads the table)."""
    with _lock:
        _cache.clear()


def vocabulary(language: str | None, field: str = "names", version: int | None = None) -> Vocabulary:
    """The folded words of ``field`` ("names" or "body") in one language (or all)."""
    if version is None:
        version = content_version.current().token  # first: a newer table is re-read later
    cached = _cache.get((field, language))
    if cached is not None and cached.version == version:
        return cached
    reading = content_version.reading_connection()  # a replica for a reader's request, as the version
    table = reading.ops.quote_name(SearchWord._meta.db_table)
    where, params = "field = %s", [field]
    if language:
        where, params = where + " AND language = %s", [*params, language]
    with reading.cursor() as cursor:
        cursor.execute(f"SELECT folded, word FROM {table} WHERE {where} ORDER BY id", params)  # noqa: S608
        rows = cursor.fetchall()
    if language:
        found = dict(rows)  # one row per folded word
    else:  # the same folded word in several languages: the first written
        found = {}
        for folded, word in rows:
            found.setdefault(folded, word)
    built = Vocabulary(version, found)
    with _lock:
        _cache[(field, language)] = built
    return built


#: A word this common in the query's language (wordfreq's Zipf scale: 3.5 is about three
#: in a million words) is a word the player meant, not a misspelling: "gave" is not
#: "game", "rule" is not "rules" because the index holds only the latter.
COMMON_ZIPF = 3.5


@lru_cache(maxsize=50_000)
def common_word(word: str, language: str | None) -> bool:
    """Whether ``word`` is a common word of ``language`` (wordfreq's small lists, shipped
    offline: a few MB for every content language)."""
    return bool(language) and zipf_frequency(word, language, wordlist="small") >= COMMON_ZIPF


def correct(word: str, language: str | None, written_in: str | None = None) -> str | None:
    """The known word closest to ``word`` (case-folded), among ``language``'s (every
    language's for None): title words first, then body words; None when nothing is
    close, or when ``word`` is a common word of the language it was written in
    (``written_in``, else ``language``): no spelling to correct, "Did you mean" is for
    misspellings."""
    folded = fold(word)
    if len(folded) < 3 or common_word(word, written_in or language):
        return None
    version = content_version.current().token
    for field, cutoff in (("names", CUTOFF), ("body", BODY_CUTOFF)):
        choices = vocabulary(language, field, version).words
        found = process.extractOne(folded, choices.keys(), scorer=fuzz.ratio, score_cutoff=cutoff)
        if found is not None and found[0] != folded:
            return choices[found[0]]
    return None
