"""Whether a background worker is alive: each ``db_worker`` writes a heartbeat row
(``WorkerBeat``) every ``BEAT`` seconds, from a thread beside its task loop, so a worker
busy with a long task (a 20,000-entry import, an embedding run) is still seen. The
admin's front page warns and ``/readyz`` reports when the newest beat is older than
``SILENT_AFTER``; a worker gone for a day is forgotten."""

import socket
from datetime import timedelta

from django.db.models import Max
from django.utils import timezone

from .models import WorkerBeat

BEAT = 15  # seconds between a worker's heartbeats
SILENT_AFTER = timedelta(minutes=2)  # no beat for this long: "no worker seen"
FORGOTTEN_AFTER = timedelta(days=1)


def beat(worker_id: str) -> None:
    now = timezone.now()
    WorkerBeat.objects.update_or_create(
        worker_id=worker_id[:64], defaults={"seen_at": now, "host": socket.gethostname()[:255]}
    )
    WorkerBeat.objects.filter(seen_at__lt=now - FORGOTTEN_AFTER).delete()


def last_seen():
    """When a worker was last seen (its newest heartbeat), None if never."""
    return WorkerBeat.objects.aggregate(last=Max("seen_at"))["last"]


def silent_for() -> timedelta | None:
    """How long no worker has been seen; None when one was seen within ``SILENT_AFTER``
    (or the site never had one: then nothing was ever built either)."""
    seen = last_seen()
    if seen is None:
        return None
    quiet = timezone.now() - seen
    return quiet if quiet > SILENT_AFTER else None
