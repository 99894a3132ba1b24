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
                     "attribution"}, ...],
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

Importing (``import_canonical``, which ``import_document`` calls for JSON input)
----------------------------------------------------------------------------------
* The whole file is validated before anything is written: format and version, every
  field's type, languages, statuses and kinds, duplicate keys, and that every parent,
  source and affected or related entry exists (in the file or in the database) and no
  parent chain loops. An error names the item and its line: ``line 212:
  entries[12] (slug "draw-step"): parent: no entry slug "setup"; …``.
* Rows are matched by (game, language, slug), sources by (game, language, title), and
  written in one transaction. Unchanged rows are not written at all (no history
  version); a created or changed row gets exactly one history version, with the change
  reason ``"import: canonical JSON"`` (and ``options.user``, if given). A field left out
  of an item keeps its current value (or the model's default for a new row); the
  exporter always writes every field.
* The game is created from the file if missing, and its details are updated.
* ``options.language`` imports one language of a file (the others are skipped, with a
  warning); ``options.prune`` deletes the game's rows in the imported language(s) that
  the file does not have; ``options.dry_run`` does everything and rolls it back, so its
  report is exact.
* The report has one ``Outcome`` per row: types ``game``, ``source``, ``entry``,
  ``erratum`` and ``question``; an update lists each changed field as (before, after).
* Cross-references are rebuilt from ``see_also`` and the bodies and resolved once per
  game and language at the end.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from json.decoder import scanstring

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from simple_history.utils import bulk_create_with_history, bulk_update_with_history

from ..history import history_paused, stamp
from ..languages import CONTENT_LANGUAGE_CODES
from ..models import RENDERED_FIELDS, Entry, Erratum, Game, Source
from ..references import deferred_resolution, rebuild_cross_references, request_resolution
from ..search.index import index_objects as index_for_search
from ..text import strings_in, unstorable_character
from .errors import ImportRulesError
from .options import ImportOptions
from .report import ImportReport, Outcome, Warning

FORMAT = "rulesite-export"
VERSION = 1
CHANGE_REASON = "import: canonical JSON"
BATCH = 500

# The exported fields of each model, in the order they are written.
GAME_FIELDS = ("slug", "name", "localized_names", "publisher", "year", "bgg_id")
SOURCE_FIELDS = ("language", "title", "kind", "version", "official", "url", "attribution")
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
# the HTML rendered from the texts: rules.rendering makes it again on import).
NOT_EXPORTED = frozenset(
    {"id", "game", "created_at", "updated_at", "body_checked_at", "moderators"}
    | {name for fields in RENDERED_FIELDS.values() for name in fields}
)
TOP_LEVEL_KEYS = ("format", "version", "language", "game", "sources", "entries", "errata", "questions")


def _question_model():
    # faq builds on rules, never the reverse: reach Question through the reverse relation.
    return Entry._meta.get_field("faq_questions").related_model


# ---------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------


def export_game(game: Game, language: str | None = None) -> str:
    """The game's content (all languages, or one) as canonical JSON text.

    Carries everything the public site and the API show: the game, its sources, entries
    (with parents, see-also labels and translation keys), errata (with the entries they
    affect) and FAQ questions (with their related entries), in every status. Leaves out
    database ids, timestamps, history and the derived CrossReference rows. The result is
    deterministic: the same content always gives the same bytes.
    """
    if language is not None and language not in CONTENT_LANGUAGE_CODES:
        raise ValueError(f"unknown content language {language!r}")
    Question = _question_model()

    def scoped(queryset):
        queryset = queryset.filter(game=game)
        return queryset.filter(language=language) if language else queryset

    sources = scoped(Source.objects.all())
    entries = scoped(Entry.objects.all()).select_related("parent", "source")
    errata = scoped(Erratum.objects.all()).select_related("source").prefetch_related("affects")
    questions = scoped(Question.objects.all()).select_related("source").prefetch_related("related_entries")

    def source_ref(item):
        source = item.source
        if source is None or source.game_id != game.pk:
            return None
        if source.language == item.language:
            return source.title
        return {"language": source.language, "title": source.title}

    def entry_ref(item, entry):
        if entry is None or entry.game_id != game.pk:
            return None
        if entry.language == item.language:
            return entry.slug
        return {"language": entry.language, "slug": entry.slug}

    def entry_refs(item, related):
        refs = [entry_ref(item, entry) for entry in related]
        return sorted((ref for ref in refs if ref is not None), key=_ref_sort_key)

    names = game.localized_names
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "language": language,
        "game": {
            "slug": game.slug,
            "name": game.name,
            "localized_names": dict(sorted(names.items())) if isinstance(names, dict) else names,
            "publisher": game.publisher,
            "year": game.year,
            "bgg_id": game.bgg_id,
        },
        "sources": sorted(
            (
                {
                    "language": source.language,
                    "title": source.title,
                    "kind": source.kind,
                    "version": source.version,
                    "official": source.official,
                    "url": source.url,
                    "attribution": source.attribution,
                }
                for source in sources
            ),
            key=lambda row: (row["language"], row["title"]),
        ),
        "entries": _ordered(
            {
                "language": entry.language,
                "slug": entry.slug,
                "title": entry.title,
                "aliases": entry.aliases,
                "kind": entry.kind,
                "number": entry.number,
                "parent": entry_ref(entry, entry.parent),
                "order": entry.order,
                "body": entry.body,
                "see_also": entry.see_also,
                "source": source_ref(entry),
                "page": entry.page,
                "status": entry.status,
                "is_fragment": entry.is_fragment,
                "translation_key": str(entry.translation_key),
            }
            for entry in entries
        ),
        "errata": _ordered(
            {
                "language": erratum.language,
                "slug": erratum.slug,
                "title": erratum.title,
                "kind": erratum.kind,
                "original_text": erratum.original_text,
                "corrected_text": erratum.corrected_text,
                "published_on": erratum.published_on.isoformat() if erratum.published_on else None,
                "order": erratum.order,
                "source": source_ref(erratum),
                "page": erratum.page,
                "status": erratum.status,
                "affects": entry_refs(erratum, erratum.affects.all()),
                "translation_key": str(erratum.translation_key),
            }
            for erratum in errata
        ),
        "questions": _ordered(
            {
                "language": question.language,
                "slug": question.slug,
                "question": question.question,
                "answer": question.answer,
                "topic": question.topic,
                "order": question.order,
                "source": source_ref(question),
                "page": question.page,
                "status": question.status,
                "related_entries": entry_refs(question, question.related_entries.all()),
                "translation_key": str(question.translation_key),
            }
            for question in questions
        ),
    }
    text = json.dumps(payload, ensure_ascii=False, indent=2) + "\n"
    # U+2028/U+2029 can only occur inside strings here; escaped, no reader that treats them
    # as line breaks (rules.importing.reading does) can split a string in two.
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _ordered(rows) -> list[dict]:
    # Sorted in Python, not by the database: collations differ between SQLite and PostgreSQL.
    return sorted(rows, key=lambda row: (row["language"], row["order"], row["slug"]))


def _ref_sort_key(ref) -> tuple:
    return (0, "", ref) if isinstance(ref, str) else (1, ref["language"], ref["slug"])


# ---------------------------------------------------------------------------------------
# Validation: the whole file, before anything is written
# ---------------------------------------------------------------------------------------


class _Invalid(Exception):
    def __init__(self, message: str, path: tuple = ()):
        self.message = message
        self.path = path
        super().__init__(message)


@dataclass
class _Section:
    name: str  # the list's key in the file
    type: str  # the Outcome type
    key: str  # the identifying field besides language: slug, or a source's title
    title: str  # the field shown as the outcome's title
    fields: dict[str, str]  # field → check
    required: frozenset[str]

    @property
    def model(self):
        return {"sources": Source, "entries": Entry, "errata": Erratum}.get(self.name) or _question_model()


SECTIONS = {
    section.name: section
    for section in (
        _Section(
            "sources", "source", "title", "title",
            {
                "language": "language", "title": "name", "kind": "choice", "version": "text",
                "official": "bool", "url": "text", "attribution": "text",
            },
            frozenset({"language", "title", "kind"}),
        ),
        _Section(
            "entries", "entry", "slug", "title",
            {
                "language": "language", "slug": "slug", "title": "name", "aliases": "strings",
                "kind": "choice", "number": "text", "parent": "entry_ref", "order": "order",
                "body": "text", "see_also": "strings", "source": "source_ref", "page": "text",
                "status": "choice", "is_fragment": "bool", "translation_key": "uuid",
            },
            frozenset({"language", "slug", "title"}),
        ),
        _Section(
            "errata", "erratum", "slug", "title",
            {
                "language": "language", "slug": "slug", "title": "name", "kind": "choice",
                "original_text": "text", "corrected_text": "text", "published_on": "date",
                "order": "order", "source": "source_ref", "page": "text", "status": "choice",
                "affects": "entry_refs", "translation_key": "uuid",
            },
            frozenset({"language", "slug", "title", "corrected_text"}),
        ),
        _Section(
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


@dataclass
class _Item:
    section: _Section
    index: int
    language: str
    key: str
    values: dict  # model field → cleaned value, for the fields the item has (no references)
    refs: dict  # parent/source → (language, key) or None; affects/related_entries → [(language, slug)]
    label: str  # how errors name it: entries[12] (slug "draw-step")

    @property
    def ident(self) -> tuple[str, str]:
        return (self.language, self.key)

    def path(self, *rest) -> tuple:
        return (self.section.name, self.index, *rest)


@dataclass
class _Plan:
    game: dict  # cleaned game values
    scope: set[str] | None  # the imported languages; None: all of them
    items: dict[str, list[_Item]]  # section name → the items being imported
    skipped: Counter = field(default_factory=Counter)  # language → items left out

    def in_scope(self, language: str) -> bool:
        return self.scope is None or language in self.scope

    def keys(self, section: str) -> set[tuple[str, str]]:
        return {item.ident for item in self.items[section]}


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _clean_value(model, name: str, check: str, value, path: tuple):
    """Check one field's JSON value and return the model value (references as keys)."""

    def fail(expected: str):
        raise _Invalid(f"{name} must be {expected}, not {_json_type(value)}", path)

    def validators(cleaned):
        try:
            model._meta.get_field(name).run_validators(cleaned)
        except ValidationError as error:
            shown = json.dumps(cleaned, ensure_ascii=False)
            raise _Invalid(f"{name} {shown}: {' '.join(error.messages)}", path) from None
        return cleaned

    if check == "language":
        if not isinstance(value, str):
            fail("a language code")
        if value not in CONTENT_LANGUAGE_CODES:
            raise _Invalid(
                f"unknown language {value!r}; use one of {', '.join(CONTENT_LANGUAGE_CODES)}", path
            )
        return value
    if check in ("slug", "name"):
        if not isinstance(value, str):
            fail("a string")
        if not value.strip():
            raise _Invalid(f"{name} is empty", path)
        return validators(value)
    if check == "text":
        if not isinstance(value, str):
            fail("a string")
        return validators(value)
    if check == "choice":
        if not isinstance(value, str):
            fail("a string")
        allowed = [str(choice) for choice, _label in model._meta.get_field(name).flatchoices]
        if value not in allowed:
            raise _Invalid(f"unknown {name} {value!r}; use one of {', '.join(allowed)}", path)
        return value
    if check == "bool":
        if not isinstance(value, bool):
            fail("true or false")
        return value
    if check in ("order", "optional_int"):
        if value is None and check == "optional_int":
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            fail("a whole number" if check == "order" else "a whole number or null")
        if value < 0:
            raise _Invalid(f"{name} must not be negative", path)
        return validators(value)
    if check == "strings":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            fail("an array of strings")
        return value
    if check == "names":
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            fail('an object of strings, e.g. {"de": "…"}')
        return value
    if check == "date":
        if value is None:
            return None
        if not isinstance(value, str):
            fail("a date (YYYY-MM-DD) or null")
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise _Invalid(f"{name} {value!r} is not a date (YYYY-MM-DD)", path) from None
    if check == "uuid":
        if not isinstance(value, str):
            fail("a UUID string")
        try:
            return uuid.UUID(value)
        except ValueError:
            raise _Invalid(f"{name} {value!r} is not a UUID", path) from None
    raise AssertionError(check)  # pragma: no cover


def _refuse_unstorable(name: str, value, path: tuple) -> None:
    """Refuse a NUL, a control character or a lone surrogate anywhere in a field's value
    (strings, and the strings inside its arrays and objects): ``rules.text.UNSTORABLE``.
    PostgreSQL would refuse the row with a raw error, SQLite would store it."""
    for text in strings_in(value):
        found = unstorable_character(text)
        if found is not None:
            offset, what = found
            raise _Invalid(
                f"{name} contains {what} at character {offset + 1}: remove it (no text needs "
                "it, and the database cannot store it)",
                path,
            )


def _clean_ref(value, language: str, key: str, path: tuple, name: str) -> tuple[str, str]:
    """A reference: a slug/title in the item's language, or {"language": …, key: …}."""
    if isinstance(value, str):
        ref_language, ref_key = language, value
    elif isinstance(value, dict) and set(value) == {"language", key}:
        ref_language, ref_key = value["language"], value[key]
        if ref_language not in CONTENT_LANGUAGE_CODES:
            raise _Invalid(f"{name}: unknown language {ref_language!r}", path)
    else:
        what = "an entry slug" if key == "slug" else "a source title"
        raise _Invalid(f'{name} must be {what} or {{"language": …, "{key}": …}}, not {_json_type(value)}', path)
    if not isinstance(ref_key, str) or not ref_key:
        raise _Invalid(f"{name}: the {key} must be a non-empty string", path)
    return (ref_language, ref_key)


def _check_object(value, allowed, required, path: tuple, what: str) -> None:
    if not isinstance(value, dict):
        raise _Invalid(f"{what} must be an object, not {_json_type(value)}", path)
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise _Invalid(
            f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
            f"the fields are {', '.join(allowed)}",
            path + (unknown[0],),
        )
    missing = [name for name in allowed if name in required and name not in value]
    if missing:
        raise _Invalid(f"missing required field{'s' if len(missing) > 1 else ''} {', '.join(missing)}", path)


def _item_label(section: _Section, index: int, raw) -> str:
    label = f"{section.name}[{index}]"
    if isinstance(raw, dict) and isinstance(raw.get(section.key), str):
        label += f" ({section.key} {json.dumps(raw[section.key], ensure_ascii=False)})"
    return label


def _clean_item(section: _Section, index: int, raw) -> _Item:
    path = (section.name, index)
    _check_object(raw, section.fields, section.required, path, "each item")
    language = _clean_value(section.model, "language", "language", raw["language"], path + ("language",))
    values, refs = {}, {}
    for name, check in section.fields.items():
        if name not in raw:
            continue
        value, where = raw[name], path + (name,)
        _refuse_unstorable(name, value, where)
        if check == "entry_ref":
            refs[name] = None if value is None else _clean_ref(value, language, "slug", where, name)
        elif check == "source_ref":
            refs[name] = None if value is None else _clean_ref(value, language, "title", where, name)
        elif check == "entry_refs":
            if not isinstance(value, list):
                raise _Invalid(f"{name} must be an array of entry slugs, not {_json_type(value)}", where)
            refs[name] = [_clean_ref(v, language, "slug", where, name) for v in value]
        else:
            values[name] = _clean_value(section.model, name, check, value, where)
    return _Item(section, index, language, values[section.key], values, refs, "")


def _validate(payload, options: ImportOptions) -> _Plan:
    """Check the file's structure and content; return what to import. Raises _Invalid."""
    _check_object(payload, TOP_LEVEL_KEYS, {"format", "version", "game"}, (), "the export")
    if payload["format"] != FORMAT:
        raise _Invalid(
            f'not a rulesite export: "format" is {json.dumps(payload["format"])}, not "{FORMAT}"', ("format",)
        )
    if payload["version"] != VERSION or isinstance(payload["version"], bool):
        raise _Invalid(
            f"unsupported export version {json.dumps(payload['version'])}; this site reads version {VERSION}",
            ("version",),
        )
    export_language = payload.get("language")
    if export_language is not None:
        _clean_value(Entry, "language", "language", export_language, ("language",))

    game_raw = payload["game"]
    try:
        _check_object(game_raw, GAME_CHECKS, {"slug", "name"}, ("game",), "the game")
        for name in GAME_CHECKS:
            if name in game_raw:
                _refuse_unstorable(name, game_raw[name], ("game", name))
        game = {
            name: _clean_value(Game, name, check, game_raw[name], ("game", name))
            for name, check in GAME_CHECKS.items()
            if name in game_raw
        }
    except _Invalid as error:
        raise _Invalid(f"game: {error.message}", error.path) from None
    if options.game and options.game != game["slug"]:
        raise _Invalid(
            f'the export is of game "{game["slug"]}", not "{options.game}"; '
            f'import it with --game {game["slug"]} or export the right game',
            ("game", "slug"),
        )

    wanted = options.language or None
    if wanted is not None:
        if wanted not in CONTENT_LANGUAGE_CODES:
            raise ImportRulesError(f"unknown language {wanted!r}; use one of {', '.join(CONTENT_LANGUAGE_CODES)}")
        if export_language is not None and export_language != wanted:
            raise _Invalid(
                f'the export holds only "{export_language}" content; nothing in it is "{wanted}"',
                ("language",),
            )
        scope = {wanted}
    else:
        scope = {export_language} if export_language else None

    plan = _Plan(game, scope, {name: [] for name in SECTIONS})
    for name, section in SECTIONS.items():
        rows = payload.get(name, [])
        if not isinstance(rows, list):
            raise _Invalid(f'"{name}" must be an array, not {_json_type(rows)}', (name,))
        seen: dict[tuple[str, str], int] = {}
        for index, raw in enumerate(rows):
            label = _item_label(section, index, raw)
            try:
                item = _clean_item(section, index, raw)
            except _Invalid as error:
                raise _Invalid(f"{label}: {error.message}", error.path) from None
            item.label = label
            if export_language is not None and item.language != export_language:
                raise _Invalid(
                    f'{label}: language "{item.language}" in an export of "{export_language}" content only',
                    item.path("language"),
                )
            if item.ident in seen:
                raise _Invalid(
                    f"{label}: {section.name}[{seen[item.ident]}] has the same language and {section.key}",
                    item.path(section.key),
                )
            seen[item.ident] = index
            if plan.in_scope(item.language):
                plan.items[name].append(item)
            else:
                plan.skipped[item.language] += 1
    return plan


@dataclass
class _Existing:
    """The game's rows already in the database, by natural key."""

    game: Game | None
    sources: dict[tuple[str, str], Source]
    entries: dict[tuple[str, str], Entry]
    errata: dict[tuple[str, str], Erratum]
    questions: dict[tuple[str, str], object]

    @classmethod
    def load(cls, game: Game | None) -> _Existing:
        if game is None:
            return cls(None, {}, {}, {}, {})
        Question = _question_model()
        return cls(
            game,
            {(s.language, s.title): s for s in Source.objects.filter(game=game)},
            {(e.language, e.slug): e for e in Entry.objects.filter(game=game).select_related("parent", "source")},
            {
                (e.language, e.slug): e
                for e in Erratum.objects.filter(game=game).select_related("source").prefetch_related("affects")
            },
            {
                (q.language, q.slug): q
                for q in Question.objects.filter(game=game).select_related("source").prefetch_related("related_entries")
            },
        )

    def rows(self, section: str) -> dict:
        return getattr(self, section)


def _check_references(plan: _Plan, existing: _Existing, prune: bool) -> None:
    """Every parent, source and affected/related entry exists once the import is done."""

    def survives(section: str, key: tuple[str, str]) -> bool:
        # A row only in the database survives unless prune deletes it.
        return key in existing.rows(section) and not (prune and plan.in_scope(key[0]))

    def check(item: _Item, name: str, section: str, ref: tuple[str, str]) -> None:
        if ref in imported[section] or survives(section, ref):
            return
        what = "entry" if section == "entries" else "source"
        key_name = "slug" if section == "entries" else "title"
        shown = f'{what} {key_name} "{ref[1]}"' + ("" if ref[0] == item.language else f' (language "{ref[0]}")')
        if not plan.in_scope(ref[0]):
            where = f'the import leaves out "{ref[0]}" and the database has no such {what}'
        elif prune and ref in existing.rows(section):
            where = "it is not in the export, so pruning would delete it"
        else:
            where = "it is neither in the export nor in the database"
        raise _Invalid(f"{item.label}: {name}: no {shown}; {where}", item.path(name))

    imported = {name: plan.keys(name) for name in ("entries", "sources")}
    for section in ("entries", "errata", "questions"):
        for item in plan.items[section]:
            for name, ref in item.refs.items():
                if name == "source":
                    if ref is not None:
                        check(item, name, "sources", ref)
                elif name == "parent":
                    if ref is not None:
                        check(item, name, "entries", ref)
                else:
                    for one in ref:
                        check(item, name, "entries", one)
    _parents_first(plan.items["entries"])  # raises on a loop


def _parents_first(items: list[_Item]) -> list[_Item]:
    """The entries in file order, except that a parent in the file comes before its children."""
    by_key = {item.ident: item for item in items}
    done: set[tuple[str, str]] = set()
    ordered: list[_Item] = []
    for item in items:
        chain: list[_Item] = []
        current = item
        while current is not None and current.ident not in done:
            if any(link is current for link in chain):
                loop = chain[next(i for i, link in enumerate(chain) if link is current):] + [current]
                raise _Invalid(
                    f"{current.label}: parent: the parent chain loops: "
                    + " → ".join(f'"{link.key}"' for link in loop),
                    current.path("parent"),
                )
            chain.append(current)
            parent = current.refs.get("parent")
            current = by_key.get(parent) if parent else None
        for link in reversed(chain):
            done.add(link.ident)
            ordered.append(link)
    return ordered


# ---------------------------------------------------------------------------------------
# Error positions: the line of an item or field in the JSON text
# ---------------------------------------------------------------------------------------

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _position(text: str, path: tuple) -> int | None:
    """The offset in ``text`` of the value at ``path`` (keys and indices), if found."""
    try:
        index = _SPACE.match(text, 0).end()
        for step in path:
            opening = "{" if isinstance(step, str) else "["
            if text[index] != opening:
                return None
            index += 1
            count = 0
            while True:
                index = _SPACE.match(text, index).end()
                if text[index] in "}]":
                    return None
                if isinstance(step, str):
                    key, index = scanstring(text, index + 1)
                    index = _SPACE.match(text, index).end()
                    if text[index] != ":":
                        return None
                    index = _SPACE.match(text, index + 1).end()
                    if key == step:
                        break
                elif count == step:
                    break
                _value, index = _DECODER.raw_decode(text, index)
                index = _SPACE.match(text, index).end()
                if text[index] == ",":
                    index += 1
                count += 1
        return index
    except (ValueError, IndexError):
        return None


def _line(text: str, path: tuple) -> int | None:
    # The deepest part of the path that can be found: a field, else its item.
    while path:
        offset = _position(text, path)
        if offset is not None:
            return text.count("\n", 0, offset) + 1
        path = path[:-1]
    return None


# ---------------------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------------------


def import_canonical(text: str, options: ImportOptions) -> ImportReport:
    """Import a canonical JSON export: validate all of it, then upsert in one transaction.

    ``options.game`` (if set) must be the export's game; ``options.language`` (if set)
    limits the import to that language. ``options.prune`` deletes the game's rows in the
    imported language(s) that the export does not contain; ``options.dry_run`` does all
    the work and rolls it back. The text pipeline's options (kind, source, page, status,
    game name) do not apply: the export carries all of that itself.
    """
    text = text.lstrip("\ufeff")
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as error:
        raise ImportRulesError(f"not valid JSON: {error.msg} (column {error.colno})", line=error.lineno) from None
    except RecursionError:
        raise ImportRulesError("not valid JSON: nested too deeply") from None

    report = ImportReport("canonical", [], dry_run=options.dry_run, input_format="json")
    try:
        plan = _validate(payload, options)
        with transaction.atomic():
            existing = _Existing.load(Game.objects.filter(slug=plan.game["slug"]).first())
            _check_references(plan, existing, options.prune)  # still before any write
            with deferred_resolution():
                _write(plan, existing, options, report)
            if options.dry_run:
                # Everything above ran for real, so the report is exact; now undo it.
                transaction.set_rollback(True)
    except _Invalid as error:
        raise ImportRulesError(error.message, line=_line(text, error.path)) from None

    if plan.skipped:
        total = sum(plan.skipped.values())
        languages = ", ".join(f"{language}: {n}" for language, n in sorted(plan.skipped.items()))
        report.warnings.insert(
            0,
            Warning(None, f"skipped {total} item{'s' if total != 1 else ''} in other languages ({languages})"),
        )
    if plan.scope and not any(plan.items.values()):
        report.warnings.append(Warning(None, f"the export has no {', '.join(sorted(plan.scope))} content"))
    return report


def _as_text(value) -> str:
    """A field value as a reviewer reads it in a before/after diff."""
    if value is None:
        return ""
    if isinstance(value, Entry):
        return value.slug
    if isinstance(value, Source):
        return value.title
    if isinstance(value, bool):  # as the text importer's reports show them
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_as_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _changes(model, obj, values: dict) -> dict[str, tuple[str, str]]:
    """Field → (before, after) as text, for the values that differ from the row's."""
    changes: dict[str, tuple[str, str]] = {}
    for name, value in values.items():
        model_field = model._meta.get_field(name)
        if model_field.is_relation:
            if getattr(obj, model_field.attname) != (value.pk if value is not None else None):
                changes[name] = (_as_text(getattr(obj, name)), _as_text(value))
        elif getattr(obj, name) != value:
            changes[name] = (_as_text(getattr(obj, name)), _as_text(value))
    return changes


def _upsert(report, user, type_, model, obj, identity: dict, values: dict, m2m: dict, title: str, slug: str = ""):
    """Create or update one row; save it only if something changed, and then once."""
    if obj is None:
        obj = model(**identity, **values)
        stamp(obj, CHANGE_REASON, user)
        if any(m2m.values()):
            # The M2M rows need the row's id; make one history version that has them.
            with history_paused(obj):
                obj.save()
                for name, targets in m2m.items():
                    getattr(obj, name).set(targets)
            obj.save()
            obj.history.filter(history_type="~").update(history_type="+")
        else:
            obj.save()
        report.outcomes.append(Outcome(type_, title, "created", slug))
        return obj

    changes = _changes(model, obj, values)
    m2m_changed = {}
    for name, targets in m2m.items():
        current = list(getattr(obj, name).all())
        if {e.pk for e in current} != {e.pk for e in targets}:
            m2m_changed[name] = targets
            changes[name] = (
                _as_text(sorted(e.slug for e in current)),
                _as_text(sorted(e.slug for e in targets)),
            )
    if not changes:
        report.outcomes.append(Outcome(type_, title, "unchanged", slug))
        return obj
    with history_paused(obj):
        for name, targets in m2m_changed.items():
            getattr(obj, name).set(targets)
    for name in values:
        if name in changes:
            setattr(obj, name, values[name])
    stamp(obj, CHANGE_REASON, user)
    obj.save()  # one history version, with the new M2M rows
    report.outcomes.append(Outcome(type_, title, "updated", slug, changes))
    return obj


def _write(plan: _Plan, existing: _Existing, options: ImportOptions, report: ImportReport) -> None:
    game_values = {name: value for name, value in plan.game.items() if name != "slug"}
    user = options.user
    game = _upsert(
        report, user, "game", Game, existing.game, {"slug": plan.game["slug"]}, game_values, {},
        plan.game["name"], plan.game["slug"],
    )
    Question = _question_model()

    sources: dict[tuple[str, str], Source] = dict(existing.sources)
    for item in plan.items["sources"]:
        values = {name: value for name, value in item.values.items() if name not in ("language", "title")}
        sources[item.ident] = _upsert(
            report, user, "source", Source, existing.sources.get(item.ident),
            {"game": game, "language": item.language, "title": item.key}, values, {}, item.key,
        )

    entries: dict[tuple[str, str], Entry] = dict(existing.entries)

    def resolved(item: _Item) -> dict:
        values = {name: value for name, value in item.values.items() if name not in ("language", "slug")}
        if "source" in item.refs:
            values["source"] = sources[item.refs["source"]] if item.refs["source"] else None
        if "parent" in item.refs:
            values["parent"] = entries[item.refs["parent"]] if item.refs["parent"] else None
        return values

    _write_entries(plan, existing, game, entries, resolved, user, report)

    for section, model, relation in (
        ("errata", Erratum, "affects"),
        ("questions", Question, "related_entries"),
    ):
        for item in plan.items[section]:
            m2m = {relation: [entries[ref] for ref in item.refs[relation]]} if relation in item.refs else {}
            _upsert(
                report, user, SECTIONS[section].type, model, existing.rows(section).get(item.ident),
                {"game": game, "language": item.language, "slug": item.key},
                resolved(item), m2m, item.values[SECTIONS[section].title], item.key,
            )

    if options.prune and existing.game is not None:
        _prune(plan, existing, report, user)


def _write_entries(plan, existing, game, entries: dict, resolved, user, report) -> None:
    """Entries in bulk (a game may have thousands): one history version per written row.

    New entries are inserted level by level, so that a child's row (and its first
    history version) already has its parent; changed entries are updated in batches;
    the cross-reference rows of both are rebuilt, and resolved once per language when
    the surrounding ``deferred_resolution()`` ends.
    """
    ordered = _parents_first(plan.items["entries"])
    outcomes: dict[tuple[str, str], Outcome] = {}
    touched: list[Entry] = []
    created: list[Entry] = []

    levels: dict[tuple[str, str], int] = {}
    for item in ordered:
        if item.ident not in existing.entries:
            parent = item.refs.get("parent")
            levels[item.ident] = levels[parent] + 1 if parent in levels else 0
    for depth in sorted(set(levels.values())):
        items = [item for item in ordered if levels.get(item.ident) == depth]
        objs = [
            Entry(game=game, language=item.language, slug=item.key, **resolved(item)) for item in items
        ]
        objs = bulk_create_with_history(
            objs, Entry, batch_size=BATCH, default_change_reason=CHANGE_REASON, default_user=user
        )
        for item, obj in zip(items, objs, strict=True):
            entries[item.ident] = obj
            created.append(obj)
            touched.append(obj)
            outcomes[item.ident] = Outcome("entry", obj.title, "created", obj.slug)

    updated, fields = [], {"updated_at"}
    now = timezone.now()
    for item in ordered:
        obj = existing.entries.get(item.ident)
        if obj is None:
            continue
        values = resolved(item)
        changes = _changes(Entry, obj, values)
        outcomes[item.ident] = Outcome(
            "entry", values.get("title", obj.title), "updated" if changes else "unchanged", obj.slug, changes
        )
        if changes:
            for name in changes:
                setattr(obj, name, values[name])
            obj.updated_at = now
            fields.update(changes)
            if "body" in changes:
                obj.body_checked_at = now  # a new text is checked against errata anew
                fields.add("body_checked_at")
            updated.append(obj)
            if changes.keys() & {"body", "see_also"}:
                touched.append(obj)
    if updated:
        bulk_update_with_history(
            updated, Entry, sorted(fields), batch_size=BATCH, default_change_reason=CHANGE_REASON, default_user=user
        )
    if touched:
        rebuild_cross_references(touched)
    # Bulk writes send no signals: index the entries written here (errata and questions
    # are saved one by one, and their signals index them).
    index_for_search("entry", created + updated)
    # Titles, aliases and statuses decide what a label resolves to: resolve every language
    # that changed (once, at the end of the deferred_resolution() block).
    for language in sorted({obj.language for obj in updated + touched}):
        request_resolution(game.pk, language)
    report.outcomes.extend(outcomes[item.ident] for item in plan.items["entries"])


def _prune(plan: _Plan, existing: _Existing, report: ImportReport, user) -> None:
    """Delete the game's rows in the imported language(s) that the export does not have."""
    # Questions and errata first (they point at entries), sources last (everything cites them).
    for name in ("questions", "errata", "entries", "sources"):
        section = SECTIONS[name]
        keep = plan.keys(name)
        doomed = [
            obj
            for key, obj in existing.rows(name).items()
            if plan.in_scope(key[0]) and key not in keep
        ]
        doomed.sort(key=lambda obj: (obj.language, getattr(obj, "order", 0), getattr(obj, section.key)))
        for obj in doomed:
            stamp(obj, CHANGE_REASON, user)
            title, slug = getattr(obj, section.title), getattr(obj, "slug", "")
            obj.delete()
            report.outcomes.append(Outcome(section.type, title, "deleted", slug))
