"""``manage.py db_worker``: django-tasks-db's worker, plus its upkeep.

Beside the task loop, a thread of the same process
- writes the worker's heartbeat every ``rules.jobs.heartbeat.BEAT`` seconds (the admin's
  front page and ``/readyz`` say when no worker has been seen for a while), and
- in a worker of the builds' queue (``default``, or ``*``: ``run_workers`` starts one
  per queue), checks every ``BUILT_FILES_CHECK_SECONDS``
  (``DJANGO_BUILT_FILES_CHECK_SECONDS``, 300) that the storage holds every built file
  its record says is stored, and has the missing ones built again
  (``rules.builds.upkeep``).

A worker of the ``embeddings`` queue (or ``*``) also asks, as it starts, for the entry
pages to be stored again where they changed (``rules.pages.stored_pages``): a deploy
changes what every page is made of.

A failure there is logged and tried again next time; it never stops the worker.
"""

import logging
import threading
import time

from django.conf import settings
from django.db import close_old_connections, connections
from django_tasks_db.management.commands import db_worker

from rules.builds import upkeep
from rules.jobs import heartbeat
from rules.pages import stored_pages
from rules.shared.queues import BUILDS, EMBEDDINGS

logger = logging.getLogger("rules.worker")


class Upkeep(threading.Thread):
    def __init__(self, worker_id: str, checks_storage: bool):
        super().__init__(name="upkeep", daemon=True)
        self.worker_id = worker_id
        self.checks_storage = checks_storage
        self.stopped = threading.Event()

    def run(self) -> None:
        next_check = time.monotonic() + min(30, settings.BUILT_FILES_CHECK_SECONDS)  # soon after a start
        while not self.stopped.is_set():
            try:
                heartbeat.beat(self.worker_id)
                if self.checks_storage and time.monotonic() >= next_check:
                    next_check = time.monotonic() + settings.BUILT_FILES_CHECK_SECONDS
                    lost = upkeep.check()
                    if lost:
                        logger.warning("%d built file(s) missing from the storage: building them again", lost)
            except Exception:
                logger.exception("the worker's upkeep failed (tried again in %d s)", heartbeat.BEAT)
            finally:
                close_old_connections()
            wait = heartbeat.BEAT
            if self.checks_storage:
                wait = min(wait, max(1.0, next_check - time.monotonic()))
            self.stopped.wait(wait)
        connections.close_all()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)


class Command(db_worker.Command):
    help = db_worker.Command.help + " Also writes the worker's heartbeat and checks the built files' storage."

    def handle(self, *args, **options):
        queues = {name.strip() for name in options["queue_name"].split(",")}
        upkeep_thread = Upkeep(options["worker_id"], checks_storage=bool(queues & {"*", BUILDS}))
        upkeep_thread.start()
        if queues & {"*", EMBEDDINGS}:  # a deploy may have changed how pages look
            stored_pages.schedule()
        try:
            return super().handle(*args, **options)
        finally:
            upkeep_thread.stop()
