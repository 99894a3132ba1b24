"""Build the booklets and sitemaps of ``rules.builds`` now, in this process.

    python manage.py build_files          # every known file whose content changed
    python manage.py build_files --all    # every known file, whatever its fingerprint
    python manage.py build_files --bulk   # and every API bulk data file, asked for or not

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
        parser.add_argument(
            "--bulk", action="store_true",
            help="Also make the API's bulk data files that nobody asked for yet (after a deploy, or from cron).",
        )  # fmt: skip

    def handle(self, *args, **options):
        if options["bulk"]:
            from rules.api.bulk import file_records

            file_records()  # every bulk file has a record: made below
        files = BuiltFile.objects.order_by("pk")
        if options["all"]:
            files.update(fingerprint="")
        outcomes: dict[str, int] = {}
        for pk in files.values_list("pk", flat=True):
            outcome = build_file.call(pk)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        summary = ", ".join(f"{outcome}: {count}" for outcome, count in sorted(outcomes.items())) or "no files"
        self.stdout.write(summary)
