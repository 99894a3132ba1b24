"""Import one rules document into a game: entries, errata and FAQ questions.

    python manage.py import_rules PATH --game SLUG --language LANG --kind KIND
        [--game-name NAME] [--source-title TITLE] [--numbered-title PATTERN] [--page N] [--status STATUS]
        [--source-version V [--effective-date D] [--published-date D] [--release-notes TEXT]]
        [--prune [--removed archive|delete]] [--dry-run] [--format text|json]

With ``--source-version`` the document is that version of the source: a new version
label makes a release of it, which lists exactly what changed (``rules.importing.releases``);
numbered rules are matched by their text, so a renumbered rule stays the same entry.

PATH is a text file (UTF-8, Windows-1252, Latin-2 …), Markdown, a PDF with a text
layer, or a rulesite JSON export (``export_rules``), or ``-`` for standard input. A
document of up to 500 items is written in one transaction or not at all; a larger one
commits every 500 rows, and what it makes public is held back (drafts naming the import)
until its last transaction publishes all of it at once (``rules.importing.rows``,
"Transactions"): readers see none of its new items, then all of them. If it stops
midway, the same command run again completes it.
"""

import argparse
import json
import sys
from dataclasses import asdict
from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import OperationalError

from rules.content.querysets import Status
from rules.content.releases import count_by_kind, counts_text
from rules.importing import ImportOptions, ImportRulesError, import_document
from rules.importing.pipeline import SourceInfo
from rules.jobs import releases
from rules.shared.database import is_database_busy
from rules.shared.languages import CONTENT_LANGUAGE_CODES


class Command(BaseCommand):
    help = (
        "Import a rules document (text, Markdown, PDF or JSON export). Up to 500 items: one transaction. "
        "A larger document commits every 500 rows; the items it publishes stay hidden until its last "
        "transaction shows them all at once; if it stops midway, run it again to complete it."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "path", help="The document: .txt, .md, .pdf or a rulesite .json export; - reads standard input."
        )
        parser.add_argument("--game", required=True, help="The game's slug.")
        parser.add_argument(
            "--language",
            choices=CONTENT_LANGUAGE_CODES,
            help="The document's language (required, except for a JSON export, which carries its own).",
        )
        parser.add_argument(
            "--kind",
            default="auto",
            choices=["glossary", "rulebook", "faq", "auto"],
            help="How the document is organised; auto detects it and reports what it found.",
        )
        parser.add_argument("--game-name", help="Create the game with this name if it does not exist.")
        parser.add_argument("--source-title", help="The source document's title (default: the file name).")
        parser.add_argument(
            "--numbered-title",
            help="How numbered rules without a title of their own are titled: {number} is the rule's number, "
            "{parent} its section's title, e.g. 'Regel {number}'. Kept with the source; default: the source's "
            "own, for a new source '{parent} {number}'.",
        )
        parser.add_argument(
            "--source-version",
            default="",
            help="The version of the source this document is (a release: its changes are listed and kept).",
        )
        parser.add_argument(
            "--effective-date", type=_day, help="The day the version takes effect, YYYY-MM-DD (default: published)."
        )
        parser.add_argument(
            "--published-date", type=_day, help="The day the version was published, YYYY-MM-DD (default: today)."
        )
        parser.add_argument("--release-notes", default="", help="Notes on the version, shown on its page.")
        parser.add_argument("--page", default="", help="The page the text comes from.")
        parser.add_argument(
            "--status",
            default=Status.PUBLISHED,
            choices=[status.value for status in Status],
            help="Status of the items this import creates (existing items keep theirs).",
        )
        parser.add_argument(
            "--prune",
            action="store_true",
            help="Remove this source's items (same game and language) that the document no longer has: "
            "archived, so their history stays and their addresses say they were removed (see --removed).",
        )
        parser.add_argument(
            "--removed",
            choices=["archive", "delete"],
            default="archive",
            help="What --prune does with them: archive (the default) or delete them for good, history and all.",
        )
        parser.add_argument("--dry-run", action="store_true", help="Report what would change; write nothing.")
        parser.add_argument("--format", choices=["text", "json"], default="text", help="Report format.")

    def handle(self, *args, **options):
        path = options["path"]
        name = "standard input" if path == "-" else Path(path).name
        try:
            data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from error
        if (options["effective_date"] or options["published_date"] or options["release_notes"]) and not options[
            "source_version"
        ]:
            raise CommandError(
                "--effective-date, --published-date and --release-notes describe a version: "
                "give --source-version"
            )
        import_options = ImportOptions(
            game=options["game"],
            language=options["language"] or "",
            kind=options["kind"],
            source=(
                SourceInfo(
                    title=options["source_title"] or Path(path).stem,
                    version=options["source_version"],
                    published_on=options["published_date"],
                    effective_on=options["effective_date"],
                    notes=options["release_notes"],
                )
                if path != "-" or options["source_title"]
                else None
            ),
            page=options["page"],
            status=options["status"],
            numbered_title=options["numbered_title"] or None,
            game_name=options["game_name"],
            dry_run=options["dry_run"],
            prune=options["prune"],
            removal=options["removed"],
        )
        try:
            report = import_document(data, import_options, filename=None if path == "-" else Path(path).name)
        except ImportRulesError as error:
            raise CommandError(f"{name}: {error}") from error
        except OperationalError as error:
            if not is_database_busy(error):
                raise
            # Another writer held the database for the whole busy timeout; the
            # transaction was rolled back, so nothing of this document was written.
            raise CommandError(
                f"{name}: the database stayed busy with other writes ({error}); nothing was "
                "imported. Run the import again."
            ) from error
        if report.scheduled_for:  # an upcoming release: the worker imports it on its day
            releases.schedule(report.scheduled_for)
        if options["format"] == "json":
            self.stdout.write(json.dumps(report_as_json(report), ensure_ascii=False, indent=2))
            return
        for warning in report.warnings:
            where = f"line {warning.line}" if warning.line else "document"
            self.stdout.write(f"warning, {where}: {warning.message}")
        for repair in report.repairs:
            self.stdout.write(f"repair: {repair.original} → {repair.replacement} {repair.note}".rstrip())
        self.stdout.write(f"{name}: detected {report.detected_kind} ({report.input_format}); {report.summary()}")
        if report.release:
            self.stdout.write(f"version {report.release}: {counts_text(count_by_kind(report.changes))}")


def report_as_json(report) -> dict:
    """The report as one JSON object (``--format json``): what a script or CI job reads."""
    return {
        "detected_kind": report.detected_kind,
        "input_format": report.input_format,
        "dry_run": report.dry_run,
        "items": [
            {
                "type": item.type,
                "title": item.title,
                "number": item.number,
                "parent": item.parent,
                "aliases": item.aliases,
                "body": item.body,
                "cross_references": item.cross_references,
                "cross_reference_pages": item.cross_reference_pages,
                "line": item.line,
            }
            for item in report.items
        ],
        "created": report.created,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "deleted": report.deleted,
        "archived": report.archived,
        "release": report.release or None,
        "upcoming": report.scheduled_for.isoformat() if report.scheduled_for else None,
        # What changed, by identity (rules.importing.releases): unchanged items are not listed.
        "changes": [change_as_json(line) for line in report.changes],
        "change_counts": count_by_kind(report.changes),
        # Field by field, what the import wrote to each row it updated (its bookkeeping too).
        "updates": [
            {
                "type": o.type,
                "title": o.title,
                "slug": o.slug,
                "fields": {k: {"before": b, "after": a} for k, (b, a) in o.changes.items()},
            }
            for o in report.outcomes
            if o.action == "updated"
        ],
        "repairs": [asdict(repair) for repair in report.repairs],
        "warnings": [asdict(warning) for warning in report.warnings],
    }


def change_as_json(line) -> dict:
    """One line of the change list: ``change``, ``number``, ``title``, with the item's type
    and slug, and what changed in it: ``previous_number``, ``previous_title``,
    ``previous_slug`` where they did; a removed item's ``successor`` (number and title of
    the item its text went to) where there is one."""
    out = {"type": line.type, "change": line.change, "number": line.number, "title": line.title, "slug": line.slug}
    if line.change == "removed":
        if line.successor is not None:
            out["successor"] = {"number": line.successor.number, "title": line.successor.title}
        return out
    if line.previous_number and line.previous_number != line.number:
        out["previous_number"] = line.previous_number
    if line.title_changed or line.change == "retitled":
        out["previous_title"] = line.previous_title
    if line.previous_slug and line.previous_slug != line.slug:
        out["previous_slug"] = line.previous_slug
    return out


def _day(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date of the form YYYY-MM-DD") from error
