"""Database conditions that get a clear answer instead of a traceback.

A write that cannot get the database in time (SQLite's "database is locked" after the
busy timeout, PostgreSQL's lock timeout, deadlock or serialization failure) is not a
bug in the request: it is load. Pages answer it with a "busy, try again" page (503,
``rulesite/errors.py``), the API with a JSON 503, and management commands with a
``CommandError``; the transaction was rolled back, so nothing was half written.
"""

from django.db import OperationalError

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
