"""Import every upcoming release whose effective date has come (``rules.importing.due``).

    python manage.py apply_releases

The background worker does this at the start of each release's day; this command is
for a site run without the worker (cron) and for checking by hand.
"""

from django.core.management.base import BaseCommand

from rules.importing.due import apply_due


class Command(BaseCommand):
    help = "Import every upcoming release whose effective date has come."

    def handle(self, *args, **options):
        applied = apply_due()
        for release in applied:
            self.stdout.write(f"applied {release.source.title} {release.version} (effective {release.effective_on})")
        if not applied:
            self.stdout.write("no upcoming release is due")
