"""Transactional tests (the live server's and the browser's, those that commit or start
other processes' reads) ended and started with a few statements, not a few hundred.

Django ends such a test by flushing the database (``TRUNCATE`` of every table on
PostgreSQL, ``DELETE`` on SQLite) and, with ``serialized_rollback`` (every transactional
test here: tests/conftest.py), starts the next by loading the rows the migrations made
(content types, permissions, the moderator groups) back from their serialized copy, one
``save()`` per row: an ``UPDATE`` and an ``INSERT`` for each of about 220 rows, and
tests/conftest.py loads them once more right after the flush so that the next test in a
transaction (the usual kind) finds them. Measured on this suite's test database (49
tables, 217 rows): the flush took 0.64–0.94 s on PostgreSQL and each load 0.23–0.45 s,
about 1.5 s of statements around every transactional test.

The same states, reached cheaply (``install`` swaps these in for the test session):

- **The end** (``empty_tables``): one query finds the tables that hold rows (a dozen
  after a typical test), and only those are emptied with ``DELETE``, in one
  transaction. PostgreSQL checks the foreign keys at commit (Django makes them
  ``DEFERRABLE INITIALLY DEFERRED``), when every row is gone; SQLite's full-text index
  follows its table's deletes by trigger, as with Django's flush. Sequences go on, as
  Django's flush leaves them (``reset_sequences=False``).
- **The start** (``restore_migrated_rows``): the serialized rows are parsed once, and
  put back with one ``INSERT`` per table (``bulk_create``, primary keys included, and
  the many-to-many rows they name), when their tables are empty; nothing is done when
  every table already holds exactly their number of rows (loaded at the last test's
  end); anything else (a test left rows of its own in them) goes through Django's own
  loader, which updates rows that are there and adds the rest.

Anything else is Django's own path: a test with ``available_apps``, one without serialized
rollback (the flush then recreates content types and permissions through post_migrate).
``tests/test_transactional.py`` checks the states against Django's.
"""

from collections import defaultdict

from django.core import serializers
from django.db import connections, transaction
from django.db.backends.base.creation import BaseDatabaseCreation
from django.test import TransactionTestCase


def tables_with_rows(connection) -> list[str]:
    """The Django tables of this database that hold at least one row (one query)."""
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    if not tables:
        return []
    quote = connection.ops.quote_name
    probes = " UNION ALL ".join(
        f"SELECT * FROM (SELECT %s FROM {quote(table)} LIMIT 1) AS probe_{n}" for n, table in enumerate(tables)
    )
    with connection.cursor() as cursor:
        cursor.execute(probes, tables)
        return [row[0] for row in cursor.fetchall()]


def empty_tables(connection) -> list[str]:
    """Delete every row of every Django table of this database, in one transaction: the
    database as Django's flush leaves it. The tables that had rows."""
    quote = connection.ops.quote_name
    with transaction.atomic(using=connection.alias):
        emptied = tables_with_rows(connection)
        with connection.cursor() as cursor:
            for table in emptied:
                cursor.execute(f"DELETE FROM {quote(table)}")
    return emptied


class MigratedRows:
    """The rows of a serialized database (``serialize_db_to_string``), parsed once: each
    model's field values in the serialized order, and the many-to-many rows they name."""

    def __init__(self, contents: str):
        self.rows: dict[type, list[dict]] = defaultdict(list)
        self.links: dict[type, list[dict]] = defaultdict(list)
        for deserialized in serializers.deserialize("json", contents):
            instance = deserialized.object
            model = type(instance)
            self.rows[model].append({f.attname: getattr(instance, f.attname) for f in model._meta.concrete_fields})
            for name, targets in deserialized.m2m_data.items():
                field = model._meta.get_field(name)
                through = field.remote_field.through
                own, other = f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id"
                self.links[through] += [{own: instance.pk, other: target} for target in targets]

    def counts(self) -> dict[str, int]:
        """Table → how many rows it holds when these rows are in."""
        found = {model._meta.db_table: len(rows) for model, rows in self.rows.items()}
        found.update({model._meta.db_table: len(rows) for model, rows in self.links.items()})
        return found

    def insert(self, using: str) -> None:
        for rows in (self.rows, self.links):
            for model, values in rows.items():
                model._base_manager.using(using).bulk_create([model(**each) for each in values])


_parsed: dict[int, tuple[str, MigratedRows]] = {}  # id(contents) → (contents, its rows)
_django_loader = BaseDatabaseCreation.deserialize_db_from_string
_django_teardown = TransactionTestCase._fixture_teardown


def migrated_rows(contents: str) -> MigratedRows:
    key = id(contents)
    if key not in _parsed or _parsed[key][0] is not contents:
        _parsed[key] = (contents, MigratedRows(contents))
    return _parsed[key][1]


def row_counts(connection, tables: list[str]) -> dict[str, int]:
    quote = connection.ops.quote_name
    counts = " UNION ALL ".join(f"SELECT %s, COUNT(*) FROM {quote(table)}" for table in tables)
    with connection.cursor() as cursor:
        cursor.execute(counts, tables)
        return dict(cursor.fetchall())


def restore_migrated_rows(creation: BaseDatabaseCreation, contents: str) -> None:
    """``BaseDatabaseCreation.deserialize_db_from_string``, cheaply where it can be (the
    module docstring)."""
    connection = creation.connection
    rows = migrated_rows(contents)
    expected = rows.counts()
    if not expected:
        return
    with transaction.atomic(using=connection.alias):
        present = row_counts(connection, list(expected))
        if present == expected:
            return  # loaded already, at the last test's end
        if not any(present.values()):
            rows.insert(connection.alias)
            return
    _django_loader(creation, contents)


def _fixture_teardown(test) -> None:
    """``TransactionTestCase._fixture_teardown`` for a serialized test of every app:
    the tables emptied (``empty_tables``) instead of Django's flush."""
    names = test._databases_names(include_mirrors=False)
    serialized = test.serialized_rollback and all(
        hasattr(connections[name], "_test_serialized_contents") for name in names
    )
    if test.available_apps is not None or not serialized:
        return _django_teardown(test)
    for name in names:
        empty_tables(connections[name])


def install() -> None:
    """Use these for the test session's transactional tests."""
    BaseDatabaseCreation.deserialize_db_from_string = restore_migrated_rows
    TransactionTestCase._fixture_teardown = _fixture_teardown
