"""Recreate the search index from the published entries, errata and FAQ questions, and
the typo vocabulary (``SearchWord``) with it.

Not needed in normal use (saves, deletes and imports keep the index current); for after
a raw SQL change, a restore, or a change to how terms are made.
"""

import time

from django.core.management.base import BaseCommand

from rules.search.index import rebuild
from rules.search.models import SearchWord


class Command(BaseCommand):
    help = "Recreate the search index from the published items."

    def handle(self, *args, **options):
        started = time.perf_counter()
        count = rebuild()
        words = SearchWord.objects.count()
        elapsed = time.perf_counter() - started
        self.stdout.write(f"search index rebuilt: {count} documents, {words} typo vocabulary words in {elapsed:.1f} s")
