"""The canonical JSON format: one game's content as a file that can be read back exactly.

What it is for
--------------
* **Backups** of the content a moderator team wrote, independent of the database.
* **Moving content between sites** (staging → production, one installation to another):
  the file carries natural keys (slugs, titles, translation keys), never database ids,
  so it imports into any database.
* **Review in diffs**: the bytes are deterministic — fixed key order, lists in a stable
  order, ``indent=2``, real UTF-8 letters (``ensure_ascii=False``) and a trailing
  newline — so exporting twice gives the same file and a ``git diff`` of two exports
  shows exactly what changed.

The promise: exporting a game, importing the file into an empty database and exporting
again gives the same bytes.

Shape (``version`` 1)::

    {
      "format": "rulesite-export",
      "version": 1,
      "language": null,            # or "de" for a one-language export
      "game": {"slug", "name", "localized_names", "publisher", "year", "bgg_id"},
      "sources":   [{"language", "title", "kind", "version", "official", "url",
                     "attribution", "numbered_title"}, ...],
      "entries":   [{"language", "slug", "title", "aliases", "kind", "number", "parent",
                     "order", "body", "see_also", "source", "page", "status",
                     "is_fragment", "translation_key"}, ...],
      "errata":    [{"language", "slug", "title", "kind", "original_text",
                     "corrected_text", "published_on", "order", "source", "page",
                     "status", "affects", "translation_key"}, ...],
      "questions": [{"language", "slug", "question", "answer", "topic", "order",
                     "source", "page", "status", "related_entries",
                     "translation_key"}, ...]
    }

Sources are listed by (language, title); entries, errata and questions by (language,
order, slug). References are natural keys within the game: ``parent``, ``affects`` and
``related_entries`` name entries by slug, ``source`` names a source by title, all in the
item's own language. A reference to another language (which the models allow but the
site never makes itself) is written as an object, ``{"language": "en", "slug": "…"}`` or
``{"language": "en", "title": "…"}``. ``affects`` and ``related_entries`` are sorted.

Not in the file: database ids, ``created_at``/``updated_at`` timestamps, the history of
any row, and ``CrossReference`` rows (they are derived from ``see_also`` and the body's
``[[links]]`` and rebuilt on import). References to another game's rows are not
exported.

The text is plain JSON with two details: U+2028 and U+2029 are written as ``\\u2028``
and ``\\u2029`` (a document reader that treats them as line breaks must not split a
string), and ``"language"`` at the top says whether the file holds one language or all
of the game's.

This module is the format: its name and version, the fields of each section and how
each field's value is checked (``SECTIONS``). ``export`` writes it, ``validation`` reads it,
``writing`` imports it through the row writer (``rules.importing.rows``).
"""

from dataclasses import dataclass

from faq.models import Question

from ...content.models import HELD_BY_IMPORT, RENDERED_FIELDS, Entry, Erratum, Source

FORMAT = "rulesite-export"
VERSION = 1
CHANGE_REASON = "import: canonical JSON"

# The exported fields of each model, in the order they are written.
GAME_FIELDS = ("slug", "name", "localized_names", "publisher", "year", "bgg_id")
SOURCE_FIELDS = ("language", "title", "kind", "version", "official", "url", "attribution", "numbered_title")
ENTRY_FIELDS = (
    "language", "slug", "title", "aliases", "kind", "number", "parent", "order", "body",
    "see_also", "source", "page", "status", "is_fragment", "translation_key",
)
ERRATUM_FIELDS = (
    "language", "slug", "title", "kind", "original_text", "corrected_text", "published_on",
    "order", "source", "page", "status", "affects", "translation_key",
)
QUESTION_FIELDS = (
    "language", "slug", "question", "answer", "topic", "order", "source", "page", "status",
    "related_entries", "translation_key",
)
# Model fields deliberately left out of the file (ids, the game link, timestamps, and
# the HTML rendered from the texts: rules.derived.rendering makes it again on import; a
# translation's original and the history version of it it matches name rows of this
# database's history, which an import does not bring; the import holding a row back
# until it ends is that import's bookkeeping: rules.importing.rows).
NOT_EXPORTED = frozenset(
    {"id", "game", "created_at", "updated_at", "body_checked_at", "moderators", "translation_of", "translation_base",
     "readable_releases"}
    | {HELD_BY_IMPORT}
    | {name for fields in RENDERED_FIELDS.values() for name in fields}
)
TOP_LEVEL_KEYS = (
    "format", "version", "language", "game", "sources", "entries", "errata", "questions",
)


@dataclass
class Section:
    name: str  # the list's key in the file
    type: str  # the Outcome type
    key: str  # the identifying field besides language: slug, or a source's title
    title: str  # the field shown as the outcome's title
    fields: dict[str, str]  # field → check
    required: frozenset[str]

    @property
    def model(self):
        return {"sources": Source, "entries": Entry, "errata": Erratum}.get(self.name) or Question


SECTIONS = {
    section.name: section
    for section in (
        Section(
            "sources", "source", "title", "title",
            {
                "language": "language", "title": "name", "kind": "choice", "version": "text",
                "official": "bool", "url": "text", "attribution": "text", "numbered_title": "text",
            },
            frozenset({"language", "title", "kind"}),
        ),
        Section(
            "entries", "entry", "slug", "title",
            {
                "language": "language", "slug": "slug", "title": "name", "aliases": "strings",
                "kind": "choice", "number": "text", "parent": "entry_ref", "order": "order",
                "body": "text", "see_also": "strings", "source": "source_ref", "page": "text",
                "status": "choice", "is_fragment": "bool", "translation_key": "uuid",
            },
            frozenset({"language", "slug", "title"}),
        ),
        Section(
            "errata", "erratum", "slug", "title",
            {
                "language": "language", "slug": "slug", "title": "name", "kind": "choice",
                "original_text": "text", "corrected_text": "text", "published_on": "date",
                "order": "order", "source": "source_ref", "page": "text", "status": "choice",
                "affects": "entry_refs", "translation_key": "uuid",
            },
            frozenset({"language", "slug", "title", "corrected_text"}),
        ),
        Section(
            "questions", "question", "slug", "question",
            {
                "language": "language", "slug": "slug", "question": "name", "answer": "text",
                "topic": "text", "order": "order", "source": "source_ref", "page": "text",
                "status": "choice", "related_entries": "entry_refs", "translation_key": "uuid",
            },
            frozenset({"language", "slug", "question", "answer"}),
        ),
    )
}
GAME_CHECKS = {
    "slug": "slug", "name": "name", "localized_names": "names", "publisher": "text",
    "year": "optional_int", "bgg_id": "optional_int",
}

