"""Run the background workers: one django-tasks ``db_worker`` process per queue.

    python manage.py run_workers [--interval SECONDS] [--queues default,imports,…]

A ``db_worker`` runs one task at a time; with one worker for every queue a
20,000-entry import kept every booklet, sitemap and bulk data file waiting behind it.
So each queue (``settings.TASKS``; what goes where: ``rules.jobs``) gets a process of its
own, started here with the same settings, and a long task holds up only its own queue.
A worker that stops on its own (a crash, the database gone for a while) is started
again a second later; SIGTERM or SIGINT (Ctrl-C) is passed on to every worker, which
finishes its task, and the command ends when they have.
"""

import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

RESTART_DELAY = 1.0  # seconds before a worker that stopped on its own is started again


def queues() -> list[str]:
    return list(settings.TASKS["default"].get("QUEUES") or ["default"])


class Command(BaseCommand):
    help = "Run one background worker (db_worker) per task queue, so a long import never holds up a booklet."

    def add_arguments(self, parser):
        parser.add_argument(
            "--queues", help=f"Comma-separated queues to run workers for (default: all, {','.join(queues())})."
        )
        parser.add_argument(
            "--interval", type=float, default=1.0, help="Seconds a worker waits before looking for tasks again."
        )

    def handle(self, *args, **options):
        wanted = [name.strip() for name in (options["queues"] or "").split(",") if name.strip()] or queues()
        unknown = sorted(set(wanted) - set(queues()))
        if unknown:
            raise CommandError(f"unknown queue {', '.join(unknown)}; the queues are {', '.join(queues())}")
        manage = settings.BASE_DIR / "manage.py"

        def start(queue: str) -> subprocess.Popen:
            command = [sys.executable, str(manage), "db_worker", "--queue-name", queue,
                       "--interval", str(options["interval"]), "--worker-id", f"{queue}-{time.time_ns()}"]  # fmt: skip
            self.stdout.write(f"worker for the {queue!r} queue: {' '.join(command[1:])}")
            # A session of its own: Ctrl-C reaches this process only, which passes it on once
            # (a db_worker that gets a second one stops its task midway).
            return subprocess.Popen(command, cwd=settings.BASE_DIR, start_new_session=True)

        workers = {queue: start(queue) for queue in wanted}
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True
            for process in workers.values():
                if process.poll() is None:
                    process.send_signal(signum)

        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, stop)
        while not stopping:
            time.sleep(0.5)
            for queue, process in list(workers.items()):
                if not stopping and process.poll() is not None:
                    self.stderr.write(f"the {queue!r} worker stopped (exit {process.returncode}); starting it again")
                    time.sleep(RESTART_DELAY)
                    if not stopping:
                        workers[queue] = start(queue)
        for process in workers.values():
            process.wait()
