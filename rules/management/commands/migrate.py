"""``manage.py migrate``, safe to start on every node at once.

Django's own command, run under a PostgreSQL advisory lock (session level, on the
connection it migrates): a second ``migrate`` started meanwhile (every node of a rolling
deploy runs it before it starts serving) waits for the first to finish, then finds
nothing left to apply, instead of failing halfway with "column already exists" or
"relation already exists". SQLite has one writer at a time and takes no lock here.

Migrations themselves follow the expand/contract rule (``docs/several-machines.md``):
the code of the release before must keep working on the schema they make.
"""

import time

from django.core.management.commands import migrate
from django.db import DEFAULT_DB_ALIAS, connections

# pg_advisory_lock's key: "rulesite migrate" as a number, the same on every node.
LOCK_KEY = int.from_bytes(b"rsmigr8", "big")


class Command(migrate.Command):
    help = migrate.Command.help + " One at a time on PostgreSQL (an advisory lock): every node may start it."

    def handle(self, *args, **options):
        connection = connections[options.get("database") or DEFAULT_DB_ALIAS]
        if connection.vendor != "postgresql":
            return super().handle(*args, **options)
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY])
            if not cursor.fetchone()[0]:
                if options["verbosity"] >= 1:
                    self.stdout.write("Another migrate is running: waiting for it to finish…")
                started = time.monotonic()
                cursor.execute("SELECT pg_advisory_lock(%s)", [LOCK_KEY])
                if options["verbosity"] >= 1:
                    self.stdout.write(f"…it finished after {time.monotonic() - started:.1f} s; going on.")
        try:
            return super().handle(*args, **options)
        finally:
            if connection.connection is not None:  # a dropped connection let go of the lock with it
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])
