"""The query planner's statistics, kept current after writes (SQLite).

SQLite plans a query without statistics until ``ANALYZE`` has run, and then it guesses:
the API's list of entries (``WHERE status = 'published' ORDER BY game, language, order,
title, id LIMIT 50``) read every published entry through the single-column ``status``
index and sorted them in a temporary B-tree, evaluating each row's stored-JSON subquery
on the way, instead of walking ``entry_published_in_order`` and stopping after 50 rows:
0.79 ms against 0.11 ms of SQL on the 619-entry benchmark game, 5.3 against 4.2 ms of
CPU per uncached request (``bench/cpu.py``). With statistics it picks the ordered index
by itself.

So the derived-data pipeline ends each unit of work with ``PRAGMA optimize``
(``rules.derived.pipeline``), which SQLite's manual recommends after a connection's
work: it runs ``ANALYZE`` only on the tables this connection's queries used whose
statistics are missing or far off the table's size (about 0.6 ms when there is nothing
to do), with ``analysis_limit`` bounding the rows it reads of each index, so a large
import does not pay for a full scan. PostgreSQL's autovacuum keeps its own statistics:
nothing is done there.
"""

from django.db import DEFAULT_DB_ALIAS, connections

# Rows of each index ANALYZE reads at most (SQLite's manual suggests 100 to 1000).
ANALYSIS_LIMIT = 1000


def refresh(using: str = DEFAULT_DB_ALIAS) -> None:
    """Bring the planner's statistics up to date where the database leaves it to us."""
    connection = connections[using]
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA analysis_limit = {ANALYSIS_LIMIT}")
        cursor.execute("PRAGMA optimize")
