"""Import the demo content (rules/demo/) through the project's own importer.

Idempotent: running it again reports every item as unchanged and writes nothing.

A document the manifest marks as a translation (``translation_of`` and its
``[document.translations]`` table, ``rules.importing.manifest``) has each of its entries
linked to its original after the import, through ``rules.moderation.translations.link``
like a moderator's link (history version, no user: reason "linked as the … version of
entry …"). An entry already sharing its original's translation key is left alone, so a
second run links nothing. A title the table names that the documents do not yield, or
an entry the table does not name, is a ``CommandError`` naming the document and the
title. The whole load is one transaction: refused, it leaves nothing behind.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from rules.content.models import Entry
from rules.importing import ImportReport, ImportRulesError, import_document
from rules.importing.manifest import ManifestDocument, read_manifest
from rules.moderation.translations import TranslationError, link

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"


class Command(BaseCommand):
    help = "Import the demo rules documents listed in rules/demo/manifest.toml and link their translations."

    def handle(self, *args, **options):
        try:
            documents = read_manifest(DEMO_DIR / "manifest.toml")
            with transaction.atomic():
                reports: dict[str, tuple[ManifestDocument, ImportReport]] = {}
                for document in documents:
                    report = import_document(document.path.read_bytes(), document.options, filename=document.path.name)
                    reports[document.path.name] = (document, report)
                    self.stdout.write(f"{document.path.name}: {report.summary()}")
                    if document.translation_of:
                        linked, kept = link_translations(document, report, reports)
                        self.stdout.write(
                            f"{document.path.name}: {linked + kept} translations: "
                            f"{linked} linked, {kept} already linked"
                        )
        except (ImportRulesError, OSError) as error:
            raise CommandError(str(error)) from error


def yielded_entries(report: ImportReport) -> dict[str, str]:
    """Title → slug of the entries an import wrote or found unchanged."""
    return {o.title: o.slug for o in report.outcomes if o.type == "entry" and o.action not in ("deleted", "archived")}


def link_translations(
    document: ManifestDocument,
    report: ImportReport,
    reports: dict[str, tuple[ManifestDocument, ImportReport]],
) -> tuple[int, int]:
    """Link each entry of ``document`` to its original; (newly linked, already linked).

    Every title is checked before the first link, so a refused table links nothing.
    """
    name, game = document.path.name, document.options.game
    translated = yielded_entries(report)
    originals: dict[str, tuple[str, str]] = {}  # title → (language, slug)
    for file in document.translation_of:
        original_document, original_report = reports[file]
        for title, slug in yielded_entries(original_report).items():
            originals.setdefault(title, (original_document.options.language, slug))
    for title, original_title in document.translations.items():
        if title not in translated:
            raise CommandError(
                f"{name}: [document.translations] names “{title}”, which is no entry of the document "
                f"(it has: {_titles(translated)})"
            )
        if original_title not in originals:
            raise CommandError(
                f"{name}: the original of “{title}”, “{original_title}”, is no entry of "
                f"{', '.join(document.translation_of)} (they have: {_titles(originals)})"
            )
    unnamed = [title for title in translated if title not in document.translations]
    if unnamed:
        raise CommandError(f"{name}: the entry “{unnamed[0]}” has no original in [document.translations]")
    linked = kept = 0
    for title, original_title in document.translations.items():
        entry = Entry.objects.get(game__slug=game, language=document.options.language, slug=translated[title])
        language, slug = originals[original_title]
        original = Entry.objects.get(game__slug=game, language=language, slug=slug)
        if entry.translation_key == original.translation_key:
            kept += 1
            continue
        try:
            link(original, entry, user=None)
        except TranslationError as error:
            raise CommandError(f"{name}: cannot link “{title}” to “{original_title}”: {error}") from error
        linked += 1
    return linked, kept


def _titles(titles) -> str:
    return ", ".join(f"“{title}”" for title in titles) or "none"
