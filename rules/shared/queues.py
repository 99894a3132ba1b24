"""The background worker's queues, by what waits on their tasks (the design:
``rules.jobs``; the operator's side: the manual, "Production", the background workers).

Each queue has a worker process of its own (``manage.py run_workers``), so a long task in
one never holds up the tasks of another; within a queue, tasks run one at a time, the
highest priority first. ``settings.TASKS`` lists the same names (a task naming a queue
it does not list is refused when its module is imported).
"""

# Files readers ask for: booklets, sitemaps, the API's bulk data files (rules.builds).
# Seconds each; a reader is shown "being prepared" meanwhile.
BUILDS = "default"
# A moderator's import previews and imports, and releases whose day has come
# (rules.jobs): minutes for a 20,000-entry document; they write, so one at a time.
IMPORTS = "imports"
# Semantic search's vectors (rules.search.tasks) and the stored entry pages
# (rules.pages.stored_pages): runs of about a minute, one after another until every
# document has its vector and every page is stored; nobody waits for them.
EMBEDDINGS = "embeddings"

QUEUES = (BUILDS, IMPORTS, EMBEDDINGS)


class Refresh:
    """A task of no arguments that brings something up to date (semantic search's vectors,
    the stored entry pages), asked for by ``schedule()`` after writes: queued once the
    current transaction commits (at once outside one), once per transaction however often
    it is asked, and not while a run of it waits in the queue. A run that stopped before
    the end asks for the next with ``enqueue()``."""

    def __init__(self, task):
        self.task = task

    def schedule(self) -> None:
        from django.db import transaction

        connection = transaction.get_connection()
        if connection.in_atomic_block and any(entry[1] == self.enqueue for entry in connection.run_on_commit):
            return  # already asked in this transaction
        transaction.on_commit(self.enqueue, robust=True)

    def enqueue(self) -> None:
        if not self.waiting():
            self.task.enqueue()

    def waiting(self) -> bool:
        """Whether a run is queued and not started yet (known for the database backend only)."""
        from django_tasks_db import DatabaseBackend
        from django_tasks_db.models import DBTaskResult

        if not isinstance(self.task.get_backend(), DatabaseBackend):
            return False
        return DBTaskResult.objects.ready().filter(task_path=self.task.module_path).exists()
