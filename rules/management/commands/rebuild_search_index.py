"""Recreate the search index from the published entries, errata and FAQ questions, and
the typo vocabulary (``SearchWord``) with it.

Not needed in normal use (the derived-data pipeline keeps the index current after every
unit of work); for after a raw SQL change, a restore, or a change to how terms are made.
It is the pipeline's last step run over everything, from scratch (``rules.derived.pipeline``).
"""

import time

from django.core.management.base import BaseCommand

from rules.derived.pipeline import rebuild_search_index
from rules.search.models import SearchWord


class Command(BaseCommand):
    help = "Recreate the search index from the published items."

    def handle(self, *args, **options):
        started = time.perf_counter()
        count = rebuild_search_index()
        words = SearchWord.objects.count()
        elapsed = time.perf_counter() - started
        self.stdout.write(f"search index rebuilt: {count} documents, {words} typo vocabulary words in {elapsed:.1f} s")
