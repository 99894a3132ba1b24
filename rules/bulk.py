"""Insert many rows of plain values without building a model instance for each.

``bulk_create()`` compiles every value of every instance through the ORM's expression
machinery; for the tens of thousands of derived rows of a large import (cross-references,
suggestion keys) that took longer than the database took to store them. Here one
parameterised ``INSERT`` runs through ``executemany``: standard SQL that SQLite and
PostgreSQL run alike, every value a query parameter. Only for rows whose values need no
conversion (numbers, text, booleans, NULL) and that no signal or history must see:
derived tables, rebuilt from the truth they mirror.
"""

from collections.abc import Iterable, Sequence

from django.db import connection, models

PLAIN_FIELDS = (
    models.AutoField, models.BigAutoField, models.IntegerField, models.CharField, models.TextField,
    models.BooleanField, models.ForeignKey,
)  # fmt: skip


def insert_rows(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence], batch_size: int = 2000
) -> int:
    """``INSERT INTO model (fields) VALUES …`` for each row; foreign keys by ``*_id``."""
    opts = model._meta
    columns = []
    for name in fields:
        field = opts.get_field(name)
        if not isinstance(field, PLAIN_FIELDS):
            raise TypeError(f"{model.__name__}.{name} needs conversion; use bulk_create()")
        columns.append(connection.ops.quote_name(field.column))
    sql = (
        f"INSERT INTO {connection.ops.quote_name(opts.db_table)} ({', '.join(columns)}) "  # noqa: S608
        f"VALUES ({', '.join(['%s'] * len(columns))})"
    )
    count, batch = 0, []
    with connection.cursor() as cursor:
        for row in rows:
            batch.append(tuple(row))
            if len(batch) >= batch_size:
                cursor.executemany(sql, batch)
                count, batch = count + len(batch), []
        if batch:
            cursor.executemany(sql, batch)
            count += len(batch)
    return count


def update_rows(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence], batch_size: int = 2000
) -> int:
    """``UPDATE model SET field = … WHERE id = …`` for each ``(pk, value, …)`` row.

    One parameterised statement through ``executemany``, each value prepared by its
    field as a save would (``get_db_prep_save``: JSON encoded, for instance), where
    ``bulk_update()`` builds a ``CASE`` expression per value through the ORM, which for
    the 10,000 rows of a large import took seconds. Like ``insert_rows``: for derived
    columns that no signal or history must see.
    """
    opts = model._meta
    columns = [opts.get_field(name) for name in fields]
    assignments = ", ".join(f"{connection.ops.quote_name(field.column)} = %s" for field in columns)
    sql = (
        f"UPDATE {connection.ops.quote_name(opts.db_table)} SET {assignments} "  # noqa: S608
        f"WHERE {connection.ops.quote_name(opts.pk.column)} = %s"
    )
    count, batch = 0, []
    with connection.cursor() as cursor:
        for pk, *values in rows:
            batch.append(
                (*(field.get_db_prep_save(value, connection) for field, value in zip(columns, values, strict=True)), pk)
            )
            if len(batch) >= batch_size:
                cursor.executemany(sql, batch)
                count, batch = count + len(batch), []
        if batch:
            cursor.executemany(sql, batch)
            count += len(batch)
    return count
