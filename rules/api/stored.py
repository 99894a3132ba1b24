"""API lists assembled from each item's stored JSON (``rules.derived.stored_json``), and
detail answers that are one item's stored JSON.

A list endpoint (games, entries, errata, FAQ questions) filters and pages exactly as
before, but its query reads only the ids and the order's columns; the page's items are
the JSON bodies the pipeline stored when each one last changed, with the reader's
address put in, joined into the response by ``StoredJSONRenderer`` without parsing or
serializing them again. An item without a stored body is serialized as before.

- **Made by the list's own serializer** (``maker``: the viewset's queryset and
  serializer, with a request whose address is the placeholder), rendered by the same
  JSON renderer, so a stored list is byte for byte the list the serializer would give
  (``tests/api/test_stored_json.py`` checks every kind after every kind of write).
- **Indented JSON and the browsable API** get the same items, parsed from the stored
  bodies (``StoredResults`` is a list of them to anything but the compact renderer).
- **Only plain lists**: a list that asks for a rule by ``number`` or ``slug`` (which
  finds removed rules too, with their removal) is serialized per request.
- **Detail answers too** (``StoredListMixin.retrieve``): an item's detail shape is its
  list shape (one serializer), so ``/entries/<id>/`` is the item's stored JSON with the
  reader's address, read in one query compiled once (``ItemQuery``), and sent as it is
  (``StoredItem``). A detail that asks for more (``?as_of=``), an item with none stored,
  and any miss (a 404, a removed rule: not listed) are serialized as before. API entry
  detail 5.4 -> 1.1 ms of CPU on PostgreSQL, 5.1 -> 0.7 on SQLite (``bench/cpu.py
  --path``), the same bytes (``tests/api/test_stored_json.py``, after every write).
- **An unfiltered list by page number is compiled once** (``CompiledList``): its two
  queries, how many items and a page's ids with their stored JSON, are the same SQL for
  every page but the limit and offset, so each viewset's is made by the ORM once per
  database connection and run with the page's numbers. Building and compiling them had
  cost more than running them (``bench/cpu.py``, API list of 50). With a filter or a
  cursor the queryset is built per request, as before. On PostgreSQL the page's query
  is also prepared once per connection on libpq and run there (``CompiledPages``).
- **Its count is counted once per content version** (``CompiledList.counts``): every
  write that can change how many items a list has changes the site's content token in
  the same transaction (``rules.content.version``), the token the response cache reads
  before the view, and this request's; so while a connection's last count was made
  under the token this request read, it is the count. Kept per database alias: a
  replica's count is never offered to a request reading another database.
"""

import json
from weakref import WeakKeyDictionary

from django.db import connections, router
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from rules.builds.site import SiteRequest
from rules.derived import stored_json
from rules.derived.models import PublicItem
from rules.shared.text_bytes import AsStoredBytes, read_text_as_bytes


class PlaceholderRequest(SiteRequest):
    """A reader's request whose every absolute URL starts with the placeholder address."""

    def build_absolute_uri(self, location=None):
        return stored_json.PLACEHOLDER + (self.path if location is None else location)


def maker(viewset_class):
    """A ``stored_json`` maker: (ids) → {id: JSON}, as ``viewset_class``'s list shows them."""

    def make(ids: list[int]) -> dict[int, str]:
        view = viewset_class()
        view.action, view.format_kwarg = "list", None
        view.request = Request(PlaceholderRequest("/api/v1/"))
        return rendered(view, ids)

    return make


def rendered(view, ids: list[int]) -> dict[int, str]:
    """{id: JSON} of the items ``ids`` as ``view``'s list serializes and renders them."""
    rows = list(view.get_queryset().filter(pk__in=ids))
    data = view.get_serializer(rows, many=True).data
    renderer = StoredJSONRenderer()
    keys = [row["id"] if isinstance(row, dict) else row.pk for row in rows]  # games show no id
    return {pk: renderer.render(item).decode() for item, pk in zip(data, keys, strict=True)}


def register(kind: str, viewset_class) -> None:
    stored_json.register(kind, maker(viewset_class))


class StoredResults(list):
    """A page's items as stored JSON (UTF-8 bytes), in order, with the reader's address to
    put in (``base``): joined and put right in one pass by the compact renderer
    (``joined``), parsed for anything else (indent, the browsable API, tests reading data)."""

    def __init__(self, texts: list[bytes], base: str):
        super().__init__()  # the items are parsed when first asked for
        self.texts = texts
        self.base = base
        self._parsed = None

    def joined(self) -> bytes:
        """The items as one JSON text, comma-separated (no brackets), with ``base``."""
        return stored_json.with_base(b",".join(self.texts), self.base)

    def _items(self) -> list:
        if self._parsed is None:
            self._parsed = json.loads(b"[" + self.joined() + b"]")
        return self._parsed

    def __iter__(self):
        return iter(self._items())

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, index):
        return self._items()[index]

    def __bool__(self):
        return bool(self.texts)


class StoredItem(dict):
    """One item's stored JSON (UTF-8 bytes) with the reader's address put in (``body``), and
    the same parsed, for anything but the compact renderer, which sends ``body`` as it is.
    Read-only: a view that changed the data would otherwise send the stored bytes anyway."""

    def __init__(self, text: bytes, base: str):
        self.body = stored_json.with_base(text, base)
        super().__init__(json.loads(self.body))

    def _read_only(self, *args, **kwargs):
        raise TypeError("a stored item is sent as stored: serialize the item to change it")

    __setitem__ = __delitem__ = __ior__ = update = pop = popitem = setdefault = clear = _read_only


class StoredJSONRenderer(JSONRenderer):
    """Django REST Framework's JSON renderer, which sends a stored item, and joins a page of
    stored items, as they are when it renders compact JSON (the API's default)."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, StoredItem) and not self.get_indent(accepted_media_type or "", renderer_context or {}):
            return data.body
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, StoredResults):
            return super().render(data, accepted_media_type, renderer_context)
        if self.get_indent(accepted_media_type or "", renderer_context or {}):
            return super().render({**data, "results": list(results)}, accepted_media_type, renderer_context)
        head = super().render({name: value for name, value in data.items() if name != "results"})
        items = results.joined()
        return head[:-1] + (b',"results":[' if len(head) > 2 else b'"results":[') + items + b"]}"


def results(ids: list[int], stored: dict[int, str | bytes], request, serialize) -> StoredResults:
    """The items ``ids`` as their stored JSON (``stored``: text, or its UTF-8 bytes as the
    compiled lists read it, ``rules.shared.text_bytes``) with this request's address;
    ``serialize(ids)`` gives the JSON texts of those with none stored."""
    missing = [pk for pk in ids if pk not in stored]
    if missing:
        stored = {**stored, **serialize(missing)}
    texts = [stored[pk] for pk in ids if pk in stored]
    return StoredResults([text if isinstance(text, bytes) else text.encode() for text in texts], base_of(request))


def base_of(request) -> str:
    """The reader's address, as JSON writes it inside a string (``stored_json.with_base``)."""
    return json.dumps(request.build_absolute_uri("/")[:-1], ensure_ascii=False)[1:-1]


class StoredListMixin:
    """A list endpoint that answers from stored JSON (``stored_kind``, a ``FeedKind``)."""

    stored_kind: str

    def stored_list_applies(self, request) -> bool:
        return self.stored_kind in stored_json.stored_kinds()

    def get_listed_queryset(self):
        """The items the list shows, in its order, with ``public_updated_at`` (the cursor's
        order): what the list's queryset filters and orders, without what only its
        serializer reads (joins, counts, prefetches). The same for every request (the
        request's filters are ``filter_queryset``'s): ``CompiledList`` compiles it once."""
        return self.get_queryset()

    def retrieve(self, request, *args, **kwargs):
        """One item as its stored JSON, which is the list's shape and the detail's, when the
        request asks for nothing but the item (a parameter such as ``as_of`` changes what
        it shows); else, or with none stored, serialized as before (which also answers a
        404 and a removed rule)."""
        if not self.stored_list_applies(request) or set(request.query_params) - {"format"}:
            return super().retrieve(request, *args, **kwargs)
        body = COMPILED_LISTS.item(self, self.kwargs[self.lookup_url_kwarg or self.lookup_field])
        if body is None:
            return super().retrieve(request, *args, **kwargs)
        return Response(StoredItem(body, base_of(request)))

    def list(self, request, *args, **kwargs):
        if not self.stored_list_applies(request):
            return super().list(request, *args, **kwargs)
        if set(request.query_params) <= UNFILTERED:
            page = self.paginate_queryset(COMPILED_LISTS.pages(self))
        else:
            # The page's ids, the order's columns and each item's stored JSON, in one query.
            listed = self.filter_queryset(self.get_listed_queryset())
            page = self.paginate_queryset(self.stored_rows(listed, "id", "public_updated_at"))
        if page is None:  # every list pages; a viewset without pagination is served as before
            return super().list(request, *args, **kwargs)
        ids = [row["id"] for row in page]
        stored = {row["id"]: row["stored_body"] for row in page if row["stored_body"] is not None}
        return self.get_paginated_response(results(ids, stored, request, lambda missing: rendered(self, missing)))

    def stored_rows(self, listed, *columns: str, as_bytes: bool = False):
        """``listed`` as rows of ``columns`` and the item's stored JSON (``stored_body``;
        ``as_bytes``: its UTF-8 bytes, for a cursor ``read_text_as_bytes`` made ready)."""
        body = PublicItem.body_of(self.stored_kind)
        return listed.annotate(stored_body=AsStoredBytes(body) if as_bytes else body).values(*columns, "stored_body")


# The query parameters of a list that is neither filtered nor paged by cursor.
UNFILTERED = frozenset({"page", "page_size", "format"})


class CompiledList:
    """Each stored list's two queries, and its one item's, compiled once per viewset class
    and connection (module docstring): ``pages(view)`` is what Django's ``Paginator`` pages
    through, ``item(view, value)`` the stored JSON of the item a detail URL names."""

    def __init__(self):
        self._models: dict[type, type] = {}  # viewset class → the model it lists
        self._compiled: WeakKeyDictionary = WeakKeyDictionary()  # connection → {viewset class: SQL}
        self._items: WeakKeyDictionary = WeakKeyDictionary()  # connection → {viewset class: SQL or None}
        self.counts: dict[tuple[str, type], tuple[int, int]] = {}  # (alias, viewset class) → (token, count)

    def reading(self, view):
        """The connection ``view``'s items are read from (a replica for a reader)."""
        kind = type(view)
        if kind not in self._models:
            self._models[kind] = view.get_listed_queryset().model
        return connections[router.db_for_read(self._models[kind])]

    def item(self, view, value: str) -> bytes | None:
        """The stored JSON of the listed item whose ``lookup_field`` is ``value``, as UTF-8;
        None when there is no such item, it has none stored, or ``value`` is no value
        the field can hold (an id beyond the column's range): then the serializer's
        path answers, 404s and removed rules included. One query, compiled with a mark
        where the value goes (``ItemQuery``)."""
        reading = self.reading(view)
        by_view = self._items.setdefault(reading, {})
        kind = type(view)
        if kind not in by_view:
            by_view[kind] = ItemQuery.compile(view, reading)
        query = by_view[kind]
        return None if query is None else query.body(reading, value)

    def pages(self, view) -> "CompiledPages":
        kind = type(view)
        reading = self.reading(view)
        by_view = self._compiled.setdefault(reading, {})
        compiled = by_view.get(kind)
        if compiled is None:
            compiled = by_view[kind] = self._compile(view, reading, len(by_view))
        version = getattr(view.request, "content_version", None)  # read by the response cache
        # Token 0: a database without its version row, whose token never changes.
        counted = Counted(self.counts, (reading.alias, kind), version.token) if version and version.token else None
        return CompiledPages(reading, *compiled, counted=counted)

    @staticmethod
    def _compile(view, reading, number: int) -> tuple:
        alias = reading.alias
        listed = view.get_listed_queryset().using(alias)
        count_sql, count_params = listed.order_by().values("pk").query.get_compiler(alias).as_sql()
        page_sql, page_params = view.stored_rows(listed, "id", as_bytes=True).query.get_compiler(alias).as_sql()
        page_sql = f"{page_sql} LIMIT %s OFFSET %s"
        libpq_form = getattr(reading, "libpq_form", None)  # PostgreSQL's (rulesite.postgresql)
        prepared = libpq_form(page_sql, (*page_params, 0, 0)) if libpq_form else None
        if prepared is not None:
            prepared = (f"rulesite_stored_list_{number}", prepared[0], prepared[1][:-2])
        return (
            f"SELECT COUNT(*) FROM ({count_sql}) listed",
            tuple(count_params),
            page_sql,
            tuple(page_params),
            prepared,
        )


class ItemQuery:
    """One listed item's stored JSON by its lookup field, as SQL compiled once: the listed
    queryset filtered on a mark (a value no URL names), whose place among the parameters
    is where the URL's value goes. An integer outside the column's range is no item (the
    ORM says so without asking the database; the database would refuse it)."""

    INTEGER_MARK = -7_301_938_475_112_093
    TEXT_MARK = "\x00rulesite-lookup\x00"

    def __init__(self, sql: str, params: tuple, index: int, field, bounds: tuple | None):
        # No connection kept: it is the key of the weak dictionary this is kept in.
        self.sql, self.params, self.index, self.field, self.bounds = sql, params, index, field, bounds

    @classmethod
    def compile(cls, view, reading) -> "ItemQuery | None":
        """None when the lookup's value is not one plain parameter (then the ORM answers)."""
        model = view.get_listed_queryset().model
        field = model._meta.pk if view.lookup_field == "pk" else model._meta.get_field(view.lookup_field)
        internal = field.get_internal_type()
        integer = internal.endswith(("IntegerField", "AutoField"))
        mark = cls.INTEGER_MARK if integer else cls.TEXT_MARK
        listed = view.get_listed_queryset().using(reading.alias).filter(**{view.lookup_field: mark})
        sql, params = view.stored_rows(listed, as_bytes=True).query.get_compiler(reading.alias).as_sql()
        places = [index for index, param in enumerate(params) if type(param) is type(mark) and param == mark]
        if len(places) != 1:
            return None
        bounds = reading.ops.integer_field_range(internal) if integer else None
        return cls(sql, tuple(params), places[0], field, bounds)

    def body(self, reading, value: str) -> bytes | None:
        try:
            value = self.field.get_prep_value(value)
        except (TypeError, ValueError):
            return None
        if self.bounds is not None:
            low, high = self.bounds
            if (low is not None and value < low) or (high is not None and value > high):
                return None
        params = list(self.params)
        params[self.index] = value
        with reading.cursor() as cursor:
            read_text_as_bytes(cursor)  # the stored JSON as it is sent (rules.shared.text_bytes)
            cursor.execute(self.sql, params)
            row = cursor.fetchone()
        body = row[0] if row else None
        return body.encode() if isinstance(body, str) else body


class CompiledPages:
    """An unfiltered list as ``Paginator`` reads it: ``count()``, then one slice (a page),
    each one query. On PostgreSQL the page is read by a statement prepared once per
    connection and run on libpq (``prepared``: its name, SQL and parameters but the
    limit and offset; ``DatabaseWrapper.prepared_fetchall``), as the content version is:
    Django's and psycopg's cursors had been about 80 µs of the API list's 2 ms of CPU.
    Whatever that cannot answer (a transaction open, statements off, queries logged, no
    connection yet) is read through Django's cursor, the same SQL."""

    def __init__(self, reading, count_sql, count_params, page_sql, page_params, prepared=None, counted=None):
        self.reading = reading
        self.count_sql, self.count_params = count_sql, count_params
        self.page_sql, self.page_params = page_sql, page_params
        self.prepared = prepared
        self.counted = counted

    def count(self) -> int:
        known = self.counted.get() if self.counted is not None else None
        if known is not None:
            return known
        with self.reading.cursor() as cursor:
            cursor.execute(self.count_sql, self.count_params)
            count = cursor.fetchone()[0]
        if self.counted is not None:
            self.counted.put(count)
        return count

    def __getitem__(self, window: slice) -> list[dict]:
        start, stop = window.start or 0, window.stop
        if self.prepared is not None:
            name, sql, params = self.prepared
            rows = self.reading.prepared_fetchall(name, sql, [*params, b"%d" % (stop - start), b"%d" % start])
            if rows is not None:  # text, as libpq gives it: the id's digits, the body's UTF-8
                return [{"id": int(pk), "stored_body": body} for pk, body in rows]
        with self.reading.cursor() as cursor:
            read_text_as_bytes(cursor)  # the stored JSON as it is sent (rules.shared.text_bytes)
            cursor.execute(self.page_sql, (*self.page_params, stop - start, start))
            return [{"id": pk, "stored_body": body} for pk, body in cursor.fetchall()]


class Counted:
    """One list's count as last counted on one database, valid while the content token
    read for this request is the one it was counted under (module docstring). A write
    between the token's read and the count only makes the count newer than its token:
    the next request reads the new token and counts again."""

    def __init__(self, counts: dict, key: tuple, token: int):
        self.counts, self.key, self.token = counts, key, token

    def get(self) -> int | None:
        token, count = self.counts.get(self.key, (None, None))
        return count if token == self.token else None

    def put(self, count: int) -> None:
        self.counts[self.key] = (self.token, count)


COMPILED_LISTS = CompiledList()
