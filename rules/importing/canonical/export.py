"""Export: one game's content (all languages, or one) as canonical JSON bytes.

Deterministic: the same content always gives the same bytes (``format`` says how).
"""

import json

from faq.models import Question

from ...content.models import Entry, Erratum, Game, Source
from ...shared.languages import CONTENT_LANGUAGE_CODES
from .format import FORMAT, VERSION


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

    def scoped(queryset):
        queryset = queryset.filter(game=game)
        return queryset.filter(language=language) if language else queryset

    sources = scoped(Source.objects.all())
    entries = scoped(Entry.objects.all()).select_related("parent", "source")
    errata = scoped(Erratum.objects.all()).select_related("source").prefetch_related("affects")
    questions = (
        scoped(Question.objects.all()).select_related("source").prefetch_related("related_entries")
    )

    def ref(item, other, key: str):
        """How ``item`` names ``other`` of its game: by ``key`` alone in its own language,
        else with the language too."""
        if other is None or other.game_id != game.pk:
            return None
        if other.language == item.language:
            return getattr(other, key)
        return {"language": other.language, key: getattr(other, key)}

    def source_ref(item):
        return ref(item, item.source, "title")

    def entry_ref(item, entry):
        return ref(item, entry, "slug")

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
                    "numbered_title": source.numbered_title,
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
