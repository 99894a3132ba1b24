"""Upcoming releases take effect on their day without anyone pressing anything.

An import of a version that takes effect later (``rules.importing.upcoming``) asks for
``apply_due_releases`` to run at the start of that day (the site's time zone); the
worker of the ``imports`` queue (``manage.py run_workers``, started by ``make run``) runs
it then, or as soon as it is back if it was down. ``manage.py apply_releases`` does the same by hand or from
cron.
"""

from datetime import date, datetime, time

from django.utils import timezone
from django_tasks import task

from ..importing.due import apply_due
from ..shared.queues import IMPORTS


@task(queue_name=IMPORTS)  # an import: after the moderators' (MODERATOR_PRIORITY)
def apply_due_releases() -> int:
    """Import every upcoming release whose day has come; how many."""
    return len(apply_due())


def schedule(day: date) -> None:
    """Have the worker apply the releases due on ``day`` at its start."""
    start = timezone.make_aware(datetime.combine(day, time.min))
    apply_due_releases.using(run_after=start).enqueue()
