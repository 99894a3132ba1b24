"""Import the demo content (rules/demo/) through the project's own importer.

Idempotent: running it again reports every item as unchanged and writes nothing.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from rules.importing import ImportRulesError, import_document
from rules.importing.manifest import read_manifest

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"


class Command(BaseCommand):
    help = "Import the five demo rules documents listed in rules/demo/manifest.toml."

    def handle(self, *args, **options):
        try:
            documents = read_manifest(DEMO_DIR / "manifest.toml")
            for document in documents:
                report = import_document(document.path.read_bytes(), document.options, filename=document.path.name)
                self.stdout.write(f"{document.path.name}: {report.summary()}")
        except ImportRulesError as error:
            raise CommandError(str(error)) from error
