"""Delete change journal rows, and the public change feed's, older than
``rules.content.journal.KEEP_DAYS`` days.

    python manage.py prune_changes [--days N]

Run it daily (cron, a systemd timer). A client of the change feed whose cursor is older
than what is kept is answered 410 Gone and starts again from a full copy.
"""

from datetime import timedelta

from django.core.management.base import BaseCommand
from django.utils import timezone

from rules.content.journal import KEEP_DAYS, Change
from rules.derived.public_changes import prune as prune_feed


class Command(BaseCommand):
    help = f"Delete change journal rows older than --days (default {KEEP_DAYS})."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=KEEP_DAYS, help=f"days kept (default {KEEP_DAYS})")

    def handle(self, *args, **options):
        cutoff = timezone.now() - timedelta(days=options["days"])
        deleted, _ = Change.objects.filter(at__lt=cutoff).delete()
        feed = prune_feed(cutoff)
        self.stdout.write(
            f"{deleted} change{'s' if deleted != 1 else ''} and {feed} public change{'s' if feed != 1 else ''} "
            f"older than {options['days']} days deleted"
        )
