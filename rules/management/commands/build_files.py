"""Build the booklets and sitemaps of ``rules.builds`` now, in this process.

    python manage.py build_files          # every known file whose content changed
    python manage.py build_files --all    # every known file, whatever its fingerprint

The worker (``manage.py db_worker``) does the same in the background as readers ask
for files; this command is for a deploy that changed how files are laid out (``--all``),
and for scripts that want the files ready before they go on.
"""

from django.core.management.base import BaseCommand

from rules.builds.models import BuiltFile
from rules.builds.tasks import build_file


class Command(BaseCommand):
    help = "Build the booklets and sitemaps readers have asked for (those whose content changed, or --all)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--all", action="store_true", help="Make every file again, even if what it shows did not change."
        )

    def handle(self, *args, **options):
        files = BuiltFile.objects.order_by("pk")
        if options["all"]:
            files.update(fingerprint="")
        outcomes: dict[str, int] = {}
        for pk in files.values_list("pk", flat=True):
            outcome = build_file.call(pk)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        summary = ", ".join(f"{outcome}: {count}" for outcome, count in sorted(outcomes.items())) or "no files"
        self.stdout.write(summary)
