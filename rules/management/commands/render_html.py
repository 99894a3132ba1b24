"""Render the stored HTML of every entry, erratum and FAQ answer that is out of date."""

from django.core.management.base import BaseCommand

from rules import relations
from rules.rendering import refresh_all


class Command(BaseCommand):
    help = (
        "Render again the stored HTML of entries, errata and FAQ answers whose text, links "
        "or renderer changed (rules.rendering), and what each entry shows of other items "
        "(rules.relations). Safe to run at any time."
    )

    def handle(self, *args, **options):
        changed = refresh_all()
        self.stdout.write(f"{changed} item{'s' if changed != 1 else ''} rendered again")
        changed = relations.refresh_all()
        self.stdout.write(f"{changed} entr{'ies' if changed != 1 else 'y'} with new relations")
