"""Vectors are made by the background worker: ``embed_search_documents`` (a task of
Django's tasks API on the ``embeddings`` queue, whose worker runs nothing else:
``rules.jobs``) and ``schedule()``, which asks for it.

The search index calls ``schedule()`` whenever it writes documents
(``rules.search.index``): the task is queued once the writing transaction commits, once
per transaction however many batches it wrote, and not at all while one is already
waiting in the queue or when semantic search is off. A run embeds for about
``RUN_SECONDS`` (it stops after the batch of 32 passages that ends past them), then
queues the next run if it did anything; on a queue of their own, the runs never keep a
moderator's import or a reader's booklet waiting. The run that finds nothing left ends
it; finding that out reads every document once (0.15 s for 10,800 short documents,
0.75 s for 54,000: ``stale`` in ``rules.search.vector_refresh``).
"""

from django_tasks import task

from ..shared.queues import EMBEDDINGS, Refresh
from . import embedders

RUN_SECONDS = 60
PRIORITY = -10  # kept from when every task shared one queue: after the imports and builds


@task(priority=PRIORITY, queue_name=EMBEDDINGS)
def embed_search_documents() -> int:
    """Bring vectors up to date for about RUN_SECONDS; how many documents."""
    from .vector_refresh import refresh

    done = refresh(seconds=RUN_SECONDS)
    if done:
        _enqueue()  # more may be left
    return done


def schedule() -> None:
    """Have the worker embed what is missing or stale, once the current transaction
    commits (at once outside one); no-op when semantic search is off."""
    if embedders.enabled():
        RUNS.schedule()


RUNS = Refresh(embed_search_documents)
_enqueue = RUNS.enqueue  # what is run after the commit (and by a run that stopped early)
