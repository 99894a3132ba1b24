"""A queryset compiled to SQL once per database connection, then run with new values.

The entry page is one query (``Entry.objects.published() … .for_page()``), yet building
that queryset and compiling it (three models' columns, two joins, the filters) cost
Django a third of a millisecond on every request, more than running it: an eighth of an
uncached entry page (``bench/cpu.py``). The SQL is the same for every entry; only the
values change. So ``PreparedQuery`` lets the ORM write the SQL once, with marker values
where the arguments go, and each call runs that SQL with the real values and turns the
rows into model instances exactly as ``QuerySet`` does (``ModelIterable``: the
compiler's converters, ``Model.from_db`` and the ``select_related`` populators).

What may be prepared: a queryset whose arguments are plain parameters, each of which
shows up as itself among the compiled SQL's parameters (filters on text columns: not
lowercased or wrapped in ``%`` by a lookup), once or more, and that loads model instances
(no ``values()``, no ``prefetch_related``). Annotations are set on each instance, as the
queryset sets them; they are not part of the rows' digest (``with_digest``), so a column
read beside the rows (the entry page's stored page) does not change what they are.
``prepare`` checks the first two and refuses anything else. Compiled per connection
(the compiler's converters belong to it), so each thread and each database has its own.
The query is an ordinary database call: counted by ``django_assert_num_queries``,
logged with ``DEBUG``, wrapped by ``connection.execute_wrapper``. On PostgreSQL, outside
a transaction and with queries not logged, it is also prepared once per connection on
libpq and run there, its rows loaded by psycopg's loaders as Django's cursor loads them
(``_fetch``): the same rows, so the same digest, for half the CPU of the cursor's call.

Django's own internals it relies on (pinned Django 5.2 LTS): ``SQLCompiler.as_sql``,
``.select``, ``.klass_info``, ``.get_converters``, ``.apply_converters`` and
``get_related_populators``, the same calls ``ModelIterable`` makes. ``tests/test_prepared.py`` compares every field
with the queryset's own result on SQLite and PostgreSQL.

**Rows too** (``prepared_rows``): the derived-data pipeline (``rules.derived``) reads the
same per-game ``values_list`` queries after every write, and building and compiling each
cost Django ten times running it on a game of a few dozen entries (about 1 ms against
0.1 ms here). A function that returns such a queryset, decorated with the types of its
arguments (``@prepared_rows(int, str)``), is compiled once per connection and then
returns the rows (tuples, or values with ``flat=True``) the queryset gives, converted as
``ValuesListIterable`` converts them. Integer arguments are marked by integers no row
has (negative, within a 32-bit column's range, so no lookup treats them as out of range).
"""

import functools
import hashlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from weakref import WeakKeyDictionary

from django.db import connections, router
from django.db.models import Model, QuerySet
from django.db.models.query import FlatValuesListIterable, ValuesListIterable, get_related_populators
from django.db.models.sql.compiler import SQLCompiler

_STATEMENT_NUMBERS = itertools.count(1)  # each PreparedQuery's statement name


class PreparedQuery:
    """``PreparedQuery(Entry, lambda game, slug: Entry.objects.filter(…))``; call it with
    the values (strings) to get the list of instances the queryset would give."""

    def __init__(self, model: type[Model], build: Callable[..., QuerySet], arity: int):
        self.model = model
        self.build = build
        self.arity = arity
        self.statement = f"rulesite_query_{next(_STATEMENT_NUMBERS)}"  # its name where it is prepared on libpq
        self._compiled: WeakKeyDictionary = WeakKeyDictionary()

    def __call__(self, *values: str) -> list[Model]:
        db, prepared, rows = self._rows(values)
        return self._instances(db, prepared, rows)

    def with_digest(self, *values: str) -> tuple[list[Model], str]:
        """The instances, and a digest (SHA-1) of the rows as the database gave them, in any
        order: equal digests, equal rows, whatever the models make of them. What a page
        rendered from these rows alone was made from (``rules.pages.stored_pages``)."""
        read = self.read(*values)
        return read.instances(), read.digest

    def read(self, *values: str) -> "Read":
        """The rows as the database gave them, with their digest (``with_digest``), a few
        columns readable without making the instances (``Read.value``), and the instances
        when asked for: a reader served a stored page needs two columns of one row, not
        three models built from every row (``rules.pages.stored_pages``)."""
        db, prepared, rows = self._rows(values)
        return Read(self, db, prepared, rows)

    def _rows(self, values: tuple[str, ...]) -> tuple[str, "_Prepared", list]:
        if len(values) != self.arity:
            raise TypeError(f"expected {self.arity} values, got {len(values)}")
        reading = connections[router.db_for_read(self.model)]  # a replica for a reader (rulesite.replicas)
        prepared = _compiled_for(self._compiled, reading, self._prepare)
        return reading.alias, prepared, _fetch(reading, prepared, values)

    def _instances(self, db: str, prepared: "_Prepared", rows: list) -> list[Model]:
        if prepared.converters:
            rows = prepared.compiler.apply_converters(rows, prepared.converters)
        instances = []
        for row in rows:
            instance = self.model.from_db(db, prepared.init_list, row[prepared.start : prepared.end])
            for populator in prepared.populators:
                populator.populate(row, instance)
            for name, index in prepared.annotations.items():
                setattr(instance, name, row[index])
            instances.append(instance)
        return instances

    def _prepare(self, db: str) -> "_Prepared":
        markers = [_text_marker(index) for index in range(self.arity)]
        queryset = self.build(*markers).using(db)
        if queryset.model is not self.model:
            raise ValueError(f"the queryset loads {queryset.model.__name__}, not {self.model.__name__}")
        if queryset._prefetch_related_lookups or queryset._fields is not None:
            raise ValueError("PreparedQuery loads model instances (no values() or prefetch)")
        compiler = queryset.query.get_compiler(using=db)
        sql, params = compiler.as_sql()  # also fills compiler.select and klass_info
        select_fields = compiler.klass_info["select_fields"]
        start, end = select_fields[0], select_fields[-1] + 1
        return _Prepared(
            compiler=compiler,
            sql=sql,
            params=tuple(params),
            slots=_slots(params, markers),
            converters=compiler.get_converters([column[0] for column in compiler.select[: compiler.col_count]]),
            init_list=[column[0].target.attname for column in compiler.select[start:end]],
            start=start,
            end=end,
            populators=get_related_populators(compiler.klass_info, compiler.select, db),
            annotations=dict(compiler.annotation_col_map),
            digested=tuple(
                index for index in range(compiler.col_count) if index not in compiler.annotation_col_map.values()
            ),
            libpq=_libpq_statement(connections[db], self.statement, sql, params),
        )


class Read:
    """The rows of one call of a ``PreparedQuery`` (``PreparedQuery.read``)."""

    def __init__(self, query: PreparedQuery, db: str, prepared: "_Prepared", rows: list):
        self.query, self.db, self.prepared, self.rows = query, db, prepared, rows
        self._instances: list[Model] | None = None

    @cached_property
    def digest(self) -> str:
        text = "\n".join(sorted(repr(tuple(row[index] for index in self.prepared.digested)) for row in self.rows))
        return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()

    def value(self, row: tuple, name: str):
        """The value of ``row``'s column ``name`` (a field of the model by attname, or an
        annotation), as the instance would hold it."""
        prepared = self.prepared
        index = prepared.annotations.get(name)
        if index is None:
            index = prepared.start + prepared.init_list.index(name)
        value = row[index]
        converters, expression = prepared.converters.get(index, ((), None))
        for converter in converters:  # as the compiler applies them (apply_converters)
            value = converter(value, expression, prepared.compiler.connection)
        return value

    def instances(self) -> list[Model]:
        """The model instances, as the queryset makes them (made once)."""
        if self._instances is None:
            self._instances = self.query._instances(self.db, self.prepared, self.rows)
        return self._instances


@dataclass(frozen=True)
class _Prepared:
    compiler: SQLCompiler
    sql: str
    params: tuple
    slots: tuple[tuple[int, ...], ...]  # per argument, where its value goes in params
    converters: dict
    init_list: list[str]
    start: int
    end: int
    populators: list
    annotations: dict[str, int]  # name → column
    digested: tuple[int, ...]  # the columns the rows' digest is made of: all but the annotations
    libpq: tuple[str, str] | None = None  # its name and SQL as a libpq statement (_fetch), on PostgreSQL


# --- what both kinds share ---------------------------------------------------------------


def _text_marker(index: int) -> str:
    """Where a text argument goes: no real value looks like it."""
    return f"\x1bprepared-argument-{index}\x1b"


def _slots(params: list, markers) -> tuple[tuple[int, ...], ...]:
    """Per marker, where it stands among the compiled SQL's parameters (once or more)."""
    slots = []
    for marker in markers:
        found = tuple(index for index, param in enumerate(params) if param == marker and type(param) is type(marker))
        if not found:
            raise ValueError("an argument must be an SQL parameter as it is (not changed by a lookup)")
        slots.append(found)
    return tuple(slots)


def _compiled_for(compiled: WeakKeyDictionary, reading, prepare: Callable):
    """The query compiled for this connection (``prepare(alias)`` the first time)."""
    prepared = compiled.get(reading)
    if prepared is None:
        prepared = compiled[reading] = prepare(reading.alias)
    return prepared


def _libpq_statement(reading, name: str, sql: str, params) -> tuple[str, str] | None:
    """``name`` and ``sql`` in libpq's form, where the backend runs statements on libpq
    (``rulesite.postgresql``) and every parameter can be sent as text."""
    libpq_form = getattr(reading, "libpq_form", None)
    form = libpq_form(sql, params) if libpq_form is not None else None
    return None if form is None else (name, form[0])


def _fetch(reading, prepared, values) -> list:
    """The compiled SQL run on ``reading`` with the call's values in their slots: on
    PostgreSQL by a statement prepared once per connection on libpq whose rows psycopg's
    loaders load as Django's cursor's (``DatabaseWrapper.prepared_load``: an entry page's
    query 212 -> 102 us of CPU, this machine), else, and whenever that cannot answer (a
    transaction open, queries logged, statements off), through Django's cursor."""
    params = list(prepared.params)
    for slots, value in zip(prepared.slots, values, strict=True):
        for slot in slots:
            params[slot] = value
    libpq = getattr(prepared, "libpq", None)
    if libpq is not None:
        encoded = reading.libpq_values(params)
        rows = reading.prepared_load(libpq[0], libpq[1], encoded) if encoded is not None else None
        if rows is not None:
            return rows
    with reading.cursor() as cursor:
        cursor.execute(prepared.sql, params)
        return cursor.fetchall()


# --- rows -------------------------------------------------------------------------------

INT_MARKER = -1_000_000_007  # minus the argument's index: no row has such an id
EVERY_PREPARED_ROWS: list["PreparedRows"] = []  # each one made, for tests/test_prepared.py


def prepared_rows(*kinds: type) -> Callable:
    """Decorates a function of arguments of these types (``int`` or ``str``) that returns a
    ``values_list`` queryset: calling it returns the queryset's rows, from SQL compiled
    once per connection (module docstring)."""

    def decorate(build: Callable[..., QuerySet]) -> "PreparedRows":
        prepared = functools.wraps(build)(PreparedRows(build, kinds))
        EVERY_PREPARED_ROWS.append(prepared)
        return prepared

    return decorate


class PreparedRows:
    """A ``values_list`` queryset compiled once per connection (``prepared_rows``)."""

    def __init__(self, build: Callable[..., QuerySet], kinds: tuple[type, ...]):
        if any(kind not in (int, str) for kind in kinds):
            raise TypeError("arguments are int or str")
        self.build, self.kinds = build, kinds
        self.markers = tuple(
            INT_MARKER - index if kind is int else _text_marker(index) for index, kind in enumerate(kinds)
        )
        self._model: type[Model] | None = None
        self._compiled: WeakKeyDictionary = WeakKeyDictionary()

    def __call__(self, *values) -> list:
        if len(values) != len(self.kinds):
            raise TypeError(f"expected {len(self.kinds)} values, got {len(values)}")
        for value, kind in zip(values, self.kinds, strict=True):
            if not isinstance(value, kind) or isinstance(value, bool):  # what the SQL was compiled for
                raise TypeError(f"{value!r} is not {kind.__name__}")
        if self._model is None:
            self._model = self.build(*self.markers).model
        reading = connections[router.db_for_read(self._model)]  # the router's choice, as the queryset's
        prepared = _compiled_for(self._compiled, reading, self._prepare)
        rows = _fetch(reading, prepared, values)
        columns = prepared.columns
        if prepared.converters:
            rows = prepared.compiler.apply_converters(rows, prepared.converters)
        if prepared.flat:
            return [row[0] for row in rows]
        return [tuple(row[index] for index in columns) for row in rows]

    def _prepare(self, db: str) -> "_PreparedRows":
        queryset = self.build(*self.markers).using(db)
        if queryset._iterable_class not in (ValuesListIterable, FlatValuesListIterable):
            raise ValueError("prepared_rows takes a values_list() queryset (not named, no prefetch)")
        if queryset._prefetch_related_lookups:
            raise ValueError("prepared_rows takes no prefetch_related()")
        query = queryset.query
        compiler = query.get_compiler(using=db)
        sql, params = compiler.as_sql()
        # The columns in the order values_list() names them (ValuesListIterable's reordering).
        names = [*query.extra_select, *query.values_select, *query.annotation_select]
        fields = [*queryset._fields, *(name for name in query.annotation_select if name not in queryset._fields)]
        columns = tuple(names.index(name) for name in fields) if queryset._fields else tuple(range(len(names)))
        return _PreparedRows(
            compiler=compiler,
            sql=sql,
            params=tuple(params),
            slots=_slots(params, self.markers),
            converters=compiler.get_converters([column[0] for column in compiler.select[: compiler.col_count]]),
            columns=columns,
            flat=queryset._iterable_class is FlatValuesListIterable,
        )


@dataclass(frozen=True)
class _PreparedRows:
    compiler: SQLCompiler
    sql: str
    params: tuple
    slots: tuple[tuple[int, ...], ...]
    converters: dict
    columns: tuple[int, ...]  # the row's columns in values_list()'s order
    flat: bool
