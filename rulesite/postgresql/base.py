"""PostgreSQL, with a connection health check that costs no round trip while the
connection is well.

Django's check (``CONN_HEALTH_CHECKS``, on at every alias: ``rulesite.settings``) runs
before a request's first query on a connection an earlier request left open: it sends
``SELECT 1`` and waits for the answer. On an uncached entry page that was one of its four
round trips to the database and a tenth of the database server's work
(``bench/cpu.py``).

This backend first looks at what it can see without asking. A server that ends a
connection (a restart, ``pg_terminate_backend``, ``idle_session_timeout``, a failover
that closes it) sends an error and closes the socket, so the idle connection's socket
then reads as ready; so does anything else the server sent unasked (a notice, a changed
parameter). Only then, or when psycopg already knows the connection is closed, broken or
not idle, is Django's ``SELECT 1`` sent, and its answer decides as before: a dead
connection is closed and the query that follows opens a new one, a live one is kept. A
server that goes silently (a network cut) is seen by neither check: the query fails, as
it does when the server goes just after Django's ``SELECT 1`` succeeded.

``tests/test_postgresql_backend.py`` terminates a connection's server process between two
requests and checks that the next one is answered, and that a well connection's check
sends nothing.
"""

import select

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        if connection.info.transaction_status != TransactionStatus.IDLE:
            return super().is_usable()
        poll = select.poll()
        poll.register(connection.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
        if poll.poll(0):  # the server said something unasked: ask it (module docstring)
            return super().is_usable()
        return True
