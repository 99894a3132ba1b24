"""Insert many rows of plain values without building a model instance for each.

``bulk_create()`` compiles every value of every instance through the ORM's expression
machinery; for the tens of thousands of derived rows of a large import (cross-references,
suggestion keys) that took longer than the database took to store them. Only for rows
whose values need no conversion (numbers, text, booleans, NULL) and that no signal or
history must see: derived tables, rebuilt from the truth they mirror.

* **PostgreSQL**: ``COPY … FROM STDIN`` (psycopg's ``copy``), the bulk path PostgreSQL
  is made for (measured here: 30,000 cross-reference rows in 0.15 s, where multi-row
  ``INSERT``s took 0.7 s; one ``INSERT`` per row took about 4 s for the 25,000 of a
  10,000-entry import). ``COPY`` fires the tables' triggers as an ``INSERT`` does (the
  content version, ``rules.content.version``).
* **SQLite**: ``INSERT … VALUES (…), (…), …``, as many rows per statement as it takes
  parameters (999), every value a query parameter.
"""

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import count as counter

from django.db import connection, models, transaction

PLAIN_FIELDS = (
    models.AutoField, models.BigAutoField, models.IntegerField, models.CharField, models.TextField,
    models.BooleanField, models.ForeignKey,
)  # fmt: skip
AUTO_FIELDS = (models.AutoField, models.BigAutoField, models.SmallAutoField)


def insert_rows(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Sequence],
    batch_size: int = 1000,
) -> int:
    """``INSERT INTO model (fields) VALUES …`` for the rows; foreign keys by ``*_id``."""
    opts = model._meta
    columns = []
    for name in fields:
        field = opts.get_field(name)
        if not isinstance(field, PLAIN_FIELDS):
            raise TypeError(f"{model.__name__}.{name} needs conversion; use bulk_create()")
        columns.append(connection.ops.quote_name(field.column))
    table = connection.ops.quote_name(opts.db_table)
    if connection.vendor == "postgresql":
        return _copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN", rows)
    limit = connection.features.max_query_params or 65535
    per_statement = max(1, min(batch_size, limit // len(columns)))
    head = f"INSERT INTO {table} ({', '.join(columns)}) VALUES "  # noqa: S608
    placeholder = f"({', '.join(['%s'] * len(columns))})"
    count, batch = 0, []
    with connection.cursor() as cursor:
        for row in rows:
            batch.append(tuple(row))
            if len(batch) >= per_statement:
                count += _insert(cursor, head, placeholder, batch)
                batch = []
        if batch:
            count += _insert(cursor, head, placeholder, batch)
    return count


def _insert(cursor, head: str, placeholder: str, batch: list[tuple]) -> int:
    """One ``INSERT`` of all the rows of ``batch``."""
    values = [value for row in batch for value in row]
    cursor.execute(head + ", ".join([placeholder] * len(batch)), values)
    return len(batch)


def _copy(statement: str, rows: Iterable[Sequence]) -> int:
    """``COPY … FROM STDIN`` of the rows (PostgreSQL)."""
    count = 0
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def create_objects(objs: list[models.Model], batch_size: int = 500) -> list[models.Model]:
    """Insert new model instances of one model, as ``bulk_create()`` does, and return them
    with their ids: no signals, every value prepared by its field (``pre_save``, then
    ``get_db_prep_save``, as a save would), without the ORM's compiling of each value.

    On PostgreSQL the ids are drawn from the table's sequence first and the rows are
    written with ``COPY`` (measured here: 10,000 entries in 0.8 s instead of 1.2–1.6 s
    with ``bulk_create()``); on SQLite, as many rows per ``INSERT … RETURNING`` as it
    takes parameters (0.48 s instead of 0.65 s), which return the ids in the rows' order,
    as ``bulk_create()`` relies on too.
    """
    if not objs:
        return objs
    model = type(objs[0])
    opts = model._meta
    auto = isinstance(opts.pk, AUTO_FIELDS) and all(obj.pk is None for obj in objs)
    returning = connection.features.can_return_rows_from_bulk_insert  # SQLite 3.35 or later
    if not auto or connection.vendor not in ("postgresql", "sqlite") or not returning:
        return model._default_manager.bulk_create(objs, batch_size=batch_size)
    quote = connection.ops.quote_name
    table = quote(opts.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            fields = [field for field in opts.concrete_fields if not field.generated]
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [opts.db_table, opts.pk.column, len(objs)],
            )
            ids = sorted(pk for (pk,) in cursor.fetchall())  # in order, as bulk_create's
            for obj, pk in zip(objs, ids, strict=True):
                obj.pk = pk
            columns = ", ".join(quote(field.column) for field in fields)
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                values = _value_getters(fields)
                for obj in objs:
                    copy.write_row([value(obj) for value in values])
        else:
            fields = [f for f in opts.concrete_fields if not f.generated and f is not opts.pk]
            columns = ", ".join(quote(field.column) for field in fields)
            placeholder = f"({', '.join(['%s'] * len(fields))})"
            per_statement = max(1, (connection.features.max_query_params or 999) // len(fields))
            values = _value_getters(fields)
            for batch in _batches(objs, per_statement):
                cursor.execute(
                    f"INSERT INTO {table} ({columns}) VALUES "  # noqa: S608
                    f"{', '.join([placeholder] * len(batch))} RETURNING {quote(opts.pk.column)}",
                    [value(obj) for obj in batch for value in values],
                )
                for obj, (pk,) in zip(batch, cursor.fetchall(), strict=True):
                    obj.pk = pk
    for obj in objs:
        obj._state.adding = False
        obj._state.db = connection.alias
    return objs


def _saved_value(field: models.Field, obj: models.Model):
    """What a save of a new ``obj`` would write into ``field``'s column."""
    return field.get_db_prep_save(field.pre_save(obj, True), connection)


# Fields whose saved value is the attribute itself when it already has the column's type
# (no pre_save, no conversion: SQLite and psycopg take str, int, bool and None as they are).
_AS_IS = (models.CharField, models.TextField, models.IntegerField, models.BooleanField, models.ForeignKey)
_AS_IS_TYPES = {models.CharField: str, models.TextField: str, models.BooleanField: bool}


def _value_getters(fields) -> list:
    """For each field, a function of an object giving its saved value: the attribute as it
    is for plain fields holding a value of the column's type (a tenth of the time of the
    full path, for the 20 fields of a history row), else ``_saved_value``."""
    getters = []
    for field in fields:
        if isinstance(field, _AS_IS) and not isinstance(field, (models.AutoField, models.BigAutoField)):
            wanted = next((kind for base, kind in _AS_IS_TYPES.items() if isinstance(field, base)), int)

            def value(obj, field=field, attname=field.attname, wanted=wanted):
                raw = obj.__dict__.get(attname)
                if raw is None or type(raw) is wanted:
                    return raw
                return _saved_value(field, obj)
        else:

            def value(obj, field=field):
                return _saved_value(field, obj)

        getters.append(value)
    return getters


def update_rows(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Sequence],
    batch_size: int = 1000,
) -> int:
    """``UPDATE model SET field = … WHERE id = …`` for each ``(pk, value, …)`` row.

    Each value prepared by its field as a save would (``get_db_prep_save``: JSON encoded,
    for instance), where ``bulk_update()`` builds a ``CASE`` expression per value through
    the ORM, which for the 10,000 rows of a large import took seconds. Like
    ``insert_rows``: for derived columns that no signal or history must see. On SQLite one
    parameterised statement through ``executemany``; on PostgreSQL, where a statement per
    row cost a round trip and the content-version trigger each (7 s for the relations of
    a 10,000-entry import), the rows are staged with ``COPY`` and applied by one
    ``UPDATE … FROM``.
    """
    opts = model._meta
    columns = [opts.get_field(name) for name in fields]
    prepared = ((pk, *_prepared(columns, values)) for pk, *values in rows)
    quote = connection.ops.quote_name
    table, pk_column = quote(opts.db_table), quote(opts.pk.column)
    if connection.vendor == "postgresql":
        names = [f"v{index}" for index in range(len(columns))]
        pairs = list(zip(names, columns, strict=True))
        types = [("pk", opts.pk.rel_db_type(connection))]
        types += [(name, field.db_type(connection)) for name, field in pairs]
        assignments = ", ".join(f"{quote(field.column)} = new.{name}" for name, field in pairs)
        count = 0
        # A statement of STAGED_ROWS rows at most: outside a transaction each is its own
        # (the relations of a 20,000-entry game took the content version's lock for a
        # second in one statement; another writer now waits for a tenth of that).
        for batch in _batches(prepared, STAGED_ROWS):
            with staged(types, batch) as (staging, staged_count):
                with connection.cursor() as cursor:
                    cursor.execute(
                        f"UPDATE {table} SET {assignments} FROM {staging} AS new "  # noqa: S608
                        f"WHERE {table}.{pk_column} = new.pk"
                    )
            count += staged_count()
        return count
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in columns)
    sql = f"UPDATE {table} SET {assignments} WHERE {pk_column} = %s"  # noqa: S608
    count = 0
    with connection.cursor() as cursor:
        for batch in _batches(prepared, batch_size):
            cursor.executemany(sql, [(*values, pk) for pk, *values in batch])
            count += len(batch)
    return count


_written: ContextVar[dict | None] = ContextVar("derived_rows_written", default=None)


@contextmanager
def noting_rows_written():
    """Which rows the derived steps write inside the block (model label → ids), as
    ``note_written`` reports them: the derived-data pipeline's later steps read it."""
    found: dict[str, set[int]] = {}
    token = _written.set(found)
    try:
        yield found
    finally:
        _written.reset(token)


def note_written(model: type[models.Model], pks: Iterable[int]) -> None:
    found = _written.get()
    if found is not None:
        found.setdefault(model._meta.label, set()).update(pks)


def store_fingerprinted(model: type[models.Model], field: str, changed: Mapping[int, tuple]) -> int:
    """Write a derived column and its fingerprint (``field`` and ``field_fingerprint``)
    for each ``pk: (value, fingerprint)`` of ``changed``: how entries keep what they store
    about other items (``rules.derived.relations``, ``rules.derived.corrections``,
    ``rules.derived.translation_status``). Returns how many rows were written."""
    rows = ((pk, value, digest) for pk, (value, digest) in changed.items())
    note_written(model, changed.keys())
    return update_rows(model, [field, f"{field}_fingerprint"], rows)


_staging_names = counter()
STAGED_ROWS = 2000  # rows per staged UPDATE on PostgreSQL (update_rows)


@contextmanager
def staged(columns: Sequence[tuple[str, str]], rows: Iterable[Sequence]) -> Iterator[tuple]:
    """PostgreSQL: ``rows`` copied (``COPY``) into a temporary table of ``columns``
    (name, SQL type), for one set-based statement to read; yields its name and a function
    that says how many rows it holds, and drops it afterwards. Inside a transaction."""
    name = f"rulesite_staged_{next(_staging_names)}"
    definition = ", ".join(f"{column} {sql_type}" for column, sql_type in columns)
    copied = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE {name} ({definition}) ON COMMIT DROP")
        with cursor.cursor.copy(f"COPY {name} FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                copied += 1
        yield name, lambda: copied
        cursor.execute(f"DROP TABLE {name}")


def _prepared(columns: list, values: Sequence) -> list:
    """Each value as its field would save it."""
    pairs = zip(columns, values, strict=True)
    return [field.get_db_prep_save(value, connection) for field, value in pairs]


def _batches(rows: Iterable, size: int) -> Iterable[list]:
    """The rows in lists of ``size``."""
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
