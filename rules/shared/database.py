"""Database conditions that get a clear answer instead of a traceback.

A write that cannot get the database in time (SQLite's "database is locked" after the
busy timeout, PostgreSQL's lock timeout, deadlock or serialization failure) is not a
bug in the request: it is load. Pages answer it with a "busy, try again" page (503,
``rulesite/errors.py``), the API with a JSON 503, and management commands with a
``CommandError``; the transaction was rolled back, so nothing was half written.
"""

from contextlib import contextmanager

from django.db import OperationalError, connection, transaction

# SQLite's messages for SQLITE_BUSY and SQLITE_LOCKED.
SQLITE_BUSY_MESSAGES = ("database is locked", "database table is locked", "database is busy")
# PostgreSQL: serialization_failure, deadlock_detected, lock_not_available.
POSTGRES_BUSY_STATES = {"40001", "40P01", "55P03"}

BUSY_MESSAGE = (
    "The database is busy with other changes (an import or other saves) and did not "
    "answer in time. Nothing was saved; try again in a moment."
)


def is_database_busy(error: BaseException | None) -> bool:
    """Whether ``error`` (or its cause) means "the database is busy", not a bug."""
    if not isinstance(error, OperationalError):
        return False
    cause = error.__cause__
    state = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    if state in POSTGRES_BUSY_STATES:
        return True
    message = str(error).lower()
    return any(text in message for text in SQLITE_BUSY_MESSAGES)


@contextmanager
def brief_write(seconds: float = 0.2):
    """A transaction for a small write that a reader's request makes on the side (asking
    for a file to be built): it waits at most ``seconds`` for the database and raises
    ``OperationalError`` (busy) rather than keep the reader waiting behind an import.
    The caller catches ``is_database_busy`` errors and carries on without the write."""
    if connection.vendor == "sqlite":
        configured = int(float(connection.settings_dict.get("OPTIONS", {}).get("timeout", 5)) * 1000)
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
        try:
            with transaction.atomic():
                yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute(f"PRAGMA busy_timeout = {configured}")
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = '{int(seconds * 1000)}ms'")
        yield
