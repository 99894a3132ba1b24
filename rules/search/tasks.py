"""Vectors are made by the background worker: ``embed_search_documents`` (a task of
Django's tasks API, run by ``manage.py db_worker``) and ``schedule()``, which asks for it.

The search index calls ``schedule()`` whenever it writes documents
(``rules.search.index``): the task is queued once the writing transaction commits, once
per transaction however many batches it wrote, and not at all while one is already
waiting in the queue or when semantic search is off. A run embeds at most
``DOCUMENTS_PER_RUN`` documents (about a minute of the worker's time), then queues the
next run if more may be left, so a moderator's import or a booklet waiting in the same
queue never waits for a whole game to be embedded: they have a higher priority.
"""

from django.db import transaction
from django_tasks import task

from . import embedders

DOCUMENTS_PER_RUN = 200
PRIORITY = -10  # after the admin's imports (10) and built files (0)


@task(priority=PRIORITY)
def embed_search_documents() -> int:
    """Bring the vectors of up to DOCUMENTS_PER_RUN documents up to date; how many."""
    from .vector_refresh import refresh

    done = refresh(limit=DOCUMENTS_PER_RUN)
    if done >= DOCUMENTS_PER_RUN:
        _enqueue()  # more may be left
    return done


def schedule() -> None:
    """Have the worker embed what is missing or stale, once the current transaction
    commits (at once outside one); no-op when semantic search is off."""
    if not embedders.enabled():
        return
    connection = transaction.get_connection()
    if connection.in_atomic_block and any(entry[1] is _enqueue for entry in connection.run_on_commit):
        return  # already asked in this transaction
    transaction.on_commit(_enqueue, robust=True)


def _enqueue() -> None:
    if not _waiting():
        embed_search_documents.enqueue()


def _waiting() -> bool:
    """Whether a run is queued and not started yet (known for the database backend only)."""
    from django_tasks_db import DatabaseBackend
    from django_tasks_db.models import DBTaskResult

    if not isinstance(embed_search_documents.get_backend(), DatabaseBackend):
        return False
    return DBTaskResult.objects.ready().filter(task_path=embed_search_documents.module_path).exists()
