"""Bring every derived column up to date: stored HTML, resolved links, relations,
errata applied and translation status, for every game and language (``rules.derived.pipeline``)."""

from django.core.management.base import BaseCommand

from rules.derived.pipeline import refresh_everything


class Command(BaseCommand):
    help = (
        "Run the derived-data pipeline over every game and language (rules.derived.pipeline): links "
        "resolved, stored HTML rendered again where its text, links or renderer changed, what "
        "each entry shows of other items, errata applied, translation status. Only what is "
        "out of date is written; safe to run at any time."
    )

    def handle(self, *args, **options):
        written = refresh_everything()
        self.stdout.write(f"{written.get('rendering', 0)} items rendered again")
        self.stdout.write(f"{written.get('relations', 0)} entries with new relations")
        for step in ("references", "corrections", "translation_status"):
            self.stdout.write(f"{step.replace('_', ' ')}: {written.get(step, 0)} rows written")
