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
    limit = connection.features.max_query_params or 65535  # PostgreSQL's protocol limit
    per_statement = max(1, min(batch_size, limit // len(columns)))
    head = f"INSERT INTO {connection.ops.quote_name(opts.db_table)} ({', '.join(columns)}) VALUES "  # noqa: S608
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
