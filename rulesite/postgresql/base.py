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

It also answers from statements prepared once per connection on libpq itself
(``prepared_row``, ``prepared_fetchall``): the content version, read on every request
that may be cached and on every front-cache hit with the per-process cache
(``rules.content.version.current``), where Django's and psycopg's cursors were two
thirds of the read's CPU, an unfiltered API list's page (``rules.api.stored``), and
the entry and game pages' one query (``prepared_load``, ``rules.content.prepared``).
"""

import functools
import select

import psycopg
from django.db.backends.postgresql import base
from psycopg.adapt import Transformer
from psycopg.pq import ExecStatus, TransactionStatus


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.prepared_names: set[bytes] = set()  # the statements prepared on this connection
        self.unpreparable: set[bytes] = set()  # the statements the server refused to prepare
        self.loading_context = None  # a cursor whose loaders prepared_load uses

    def get_new_connection(self, conn_params):
        self.prepared_names = set()  # a new server session has none
        self.unpreparable = set()
        self.loading_context = None
        return super().get_new_connection(conn_params)

    def prepared_row(self, name: str, sql: str, params: list[bytes | None]) -> tuple[bytes | None, ...] | None:
        """The one row ``sql`` (placeholders ``$1``…, parameters and values as text bytes)
        returns, from a statement prepared under ``name`` once per connection and run by
        libpq itself, past Django's cursor and psycopg's (which releases the GIL while it
        waits, as psycopg's own queries do).

        None when it cannot answer that way, for the caller to ask through Django's
        cursor: prepared statements off (``DJANGO_DB_PREPARED_STATEMENTS=0``, a pooler
        that does not keep a session's), no open connection (Django opens one), a
        transaction open (the caller's query belongs in it), not exactly one row, or any
        error (a connection the server closed: Django's cursor then raises Django's
        error, which Django's request cycle sees to; a statement deallocated by hand or by
        the ``DEALLOCATE ALL`` psycopg sends after rolling back a transaction in which it
        prepared its own, or one whose plan a migration made wrong: prepared again next
        time, a round trip or two lost). Nothing here runs
        Django's query logging: with it on (``DEBUG``, a test capturing queries) this
        answers None too, so Django's cursor logs the query; ``execute_wrappers``
        (instrumentation, ``bench/cpu.py``'s count) are called around it as Django's
        cursor calls them, with no cursor in their context."""
        result = self._run_prepared(name, sql, params)
        if result is None or result.ntuples != 1:
            return None
        return tuple(result.get_value(0, column) for column in range(result.nfields))

    def prepared_fetchall(self, name: str, sql: str, params: list[bytes | None]) -> list[tuple] | None:
        """Every row ``sql`` returns, as ``prepared_row`` runs it (None on the same
        conditions but the number of rows): a list page's ids and stored bodies
        (``rules.api.stored``)."""
        result = self._run_prepared(name, sql, params)
        if result is None:
            return None
        get, rows = result.get_value, range(result.ntuples)
        # Column by column, then zipped: a third of the CPU of a tuple made per row (50 rows).
        return list(zip(*[[get(row, column) for row in rows] for column in range(result.nfields)], strict=True))

    @staticmethod
    def libpq_form(sql: str, params) -> tuple[str, list[bytes | None]] | None:
        """Django's SQL for this backend (``%s`` placeholders, ``%%`` for ``%``) and its
        parameters as ``prepared_row`` takes them: ``$1``… and text bytes, for the server
        to read by each place's type. None when a parameter is not plainly text, an
        integer, a boolean or NULL (``libpq_values``)."""
        values = DatabaseWrapper.libpq_values(params)
        if values is None:
            return None
        try:
            return sql % tuple(f"${number}" for number in range(1, len(values) + 1)), values
        except (TypeError, ValueError):  # not as many places as parameters
            return None

    @staticmethod
    def libpq_values(params) -> list[bytes | None] | None:
        """``params`` as text bytes, or None when one is not plainly text, an integer, a
        boolean or NULL (a date, a list, JSON: psycopg's adaptation is needed)."""
        values: list[bytes | None] = []
        for value in params:
            if value is None:
                values.append(None)
            elif isinstance(value, bool):
                values.append(b"true" if value else b"false")
            elif isinstance(value, int):
                values.append(str(int(value)).encode())
            elif isinstance(value, str):
                values.append(str.encode(value))  # a TextChoices member: its value
            else:
                return None
        return values

    def prepared_load(self, name: str, sql: str, params: list[bytes | None]) -> list[tuple] | None:
        """Every row ``sql`` returns, as ``prepared_fetchall`` runs it, loaded into Python
        values by psycopg's loaders as Django's cursor on this connection loads them (a
        cursor of Django's is their context: its adapters and time zone), so the rows are
        the cursor's, repr and all: the entry and game pages' query
        (``rules.content.prepared``), whose rows' digest says which stored page fits."""
        result = self._run_prepared(name, sql, params)
        if result is None:
            return None
        if self.loading_context is None:
            self.loading_context = self.create_cursor()  # never executed: only its loaders are used
        transformer = Transformer(self.loading_context)
        transformer.set_pgresult(result)
        return transformer.load_rows(0, result.ntuples, tuple)

    def _run_prepared(self, name: str, sql: str, params: list[bytes | None]):
        """libpq's result of the statement ``name`` run with ``params`` (prepared first if
        this server session has not got it), or None (``prepared_row``'s conditions)."""
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return None
        if self.queries_logged or self.settings_dict["OPTIONS"].get("prepare_threshold") is None:
            return None
        if self.in_atomic_block or connection.info.transaction_status != TransactionStatus.IDLE:
            return None  # in a transaction, begun or about to be at its first query
        pgconn = connection.pgconn
        key = name.encode()
        try:
            if key not in self.prepared_names:
                if key in self.unpreparable:
                    return None  # refused once on this connection: not asked again per request
                if pgconn.prepare(key, sql.encode(), None).status != ExecStatus.COMMAND_OK:
                    self.unpreparable.add(key)  # e.g. a parameter whose type the server cannot infer
                    return None
                self.prepared_names.add(key)
            if self.execute_wrappers:
                executor = lambda _sql, values, _many, _context: pgconn.exec_prepared(key, values)  # noqa: E731
                for wrapper in reversed(self.execute_wrappers):
                    executor = functools.partial(wrapper, executor)
                result = executor(sql, params, False, {"connection": self, "cursor": None})
            else:
                result = pgconn.exec_prepared(key, params)
        except psycopg.Error:
            return None
        if result.status != ExecStatus.TUPLES_OK:
            # Deallocated (by hand, psycopg's DEALLOCATE ALL), or its plan no longer fits the
            # table ("cached plan must not change result type" after a migration): dropped,
            # if it is still there, and prepared again next time.
            self.prepared_names.discard(key)
            try:
                pgconn.exec_(b'DEALLOCATE "' + key + b'"')
            except psycopg.Error:
                pass  # a connection gone: Django's cursor finds out
            return None
        return result

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
