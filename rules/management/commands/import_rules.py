"""Import one rules document (plain text) into a game.

    python manage.py import_rules PATH --game SLUG --language LANG --kind KIND [--dry-run]
"""

import json
from dataclasses import asdict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from rules.importing import ImportOptions, ImportRulesError, import_document
from rules.importing.pipeline import SourceInfo
from rules.languages import CONTENT_LANGUAGE_CODES


class Command(BaseCommand):
    help = "Import a rules document: entries, errata and FAQ questions, in one transaction."

    def add_arguments(self, parser):
        parser.add_argument("path", help="A UTF-8 (or Windows-1252/Latin-2) text file.")
        parser.add_argument("--game", required=True, help="The game's slug.")
        parser.add_argument("--language", required=True, choices=CONTENT_LANGUAGE_CODES, help="The document's language.")
        parser.add_argument("--kind", default="auto", choices=["glossary", "rulebook", "faq", "auto"], help="How the document is organised.")
        parser.add_argument("--game-name", help="Create the game with this name if it does not exist.")
        parser.add_argument("--source-title", help="The source document's title (default: the file name).")
        parser.add_argument("--page", default="", help="The page the text comes from.")
        parser.add_argument("--dry-run", action="store_true", help="Show what would change; write nothing.")
        parser.add_argument("--format", choices=["text", "json"], default="text", help="Report format.")

    def handle(self, *args, **options):
        path = Path(options["path"])
        try:
            data = path.read_bytes()
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from error
        import_options = ImportOptions(
            game=options["game"],
            language=options["language"],
            kind=options["kind"],
            source=SourceInfo(title=options["source_title"] or path.stem),
            page=options["page"],
            game_name=options["game_name"],
            dry_run=options["dry_run"],
        )
        try:
            report = import_document(data, import_options)
        except ImportRulesError as error:
            raise CommandError(f"{path.name}: {error}") from error
        if options["format"] == "json":
            self.stdout.write(json.dumps(_as_json(report), ensure_ascii=False, indent=2))
            return
        for warning in report.warnings:
            self.stdout.write(f"warning, line {warning.line}: {warning.message}")
        for repair in report.repairs:
            self.stdout.write(f"repair: {repair.original} → {repair.replacement} {repair.note}".rstrip())
        self.stdout.write(report.summary())


def _as_json(report) -> dict:
    return {
        "detected_kind": report.detected_kind,
        "items": [
            {
                "type": item.type,
                "title": item.title,
                "number": item.number,
                "parent": item.parent,
                "aliases": item.aliases,
                "body": item.body,
                "cross_references": item.cross_references,
            }
            for item in report.items
        ],
        "created": report.created,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "repairs": [asdict(repair) for repair in report.repairs],
        "warnings": [asdict(warning) for warning in report.warnings],
    }
