from base64 import b64decode
from datetime import UTC

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from rest_framework import pagination
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

MAX_ID = 2**63 - 1  # the largest id a database column holds (a BigAutoField)


def whole_number(raw: str) -> int:
    """A positive whole number written in ASCII digits, else 0 (refused by the caller).

    ``int()`` alone would accept " 7", "+7", "٧" (an Arabic-Indic seven) and "7_0";
    it refuses NUL bytes and strings longer than Python's digit limit with a ValueError.
    """
    if not (raw.isascii() and raw.isdigit()):
        return 0
    try:
        return int(raw)
    except ValueError:
        return 0


def number_param(request, name: str, default: int, *, minimum: int = 1, maximum: int | None = None) -> int:
    """A query parameter that is a whole number from ``minimum``: ``default`` when absent;
    above ``maximum``, ``maximum`` (asking for "as many as you allow" is legitimate);
    anything else, an empty value included, a 400 naming it."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    value = whole_number(raw)
    readable = value > 0 or (raw != "" and set(raw) == {"0"})  # whole_number says 0 for what it cannot read
    if not readable or value < minimum:
        most = f" (at most {maximum} are given)" if maximum is not None else ""
        raise ValidationError({name: [f"Must be a whole number from {minimum}{most}."]})
    return value if maximum is None else min(value, maximum)


class PageNumberPagination(pagination.PageNumberPagination):
    """``count``, ``next``, ``previous``, ``results``; ``?page_size=`` up to 100.

    DRF silently falls back to the default size when ``page_size`` is not a number, so a
    client with a typo would page through 20 items believing it asked for 50. We answer
    400 instead, for an empty value too (as for every filter). A size above the maximum
    is capped (not refused): asking for "as many as you allow" is a legitimate request,
    and the schema says so (``minimum: 1``, no maximum, the cap in the description).

    ``page`` is a whole number from 1 (or ``last``); anything else, an empty value
    included (DRF reads that as page 1), and a page past the last one are a 404
    ("Invalid page."), as in DRF.
    """

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
    page_size_query_description = (
        f"Results per page, from 1 (default {page_size}); more than {max_page_size} "
        f"gives {max_page_size}."
    )
    page_query_description = (
        "A page number, from 1 (or `last`). Any other value, or a page past the last one, is a 404."
    )

    def get_page_size(self, request):
        return number_param(request, self.page_size_query_param, self.page_size, maximum=self.max_page_size)

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param)
        if raw is None:
            return 1
        if raw in self.last_page_strings:
            return paginator.num_pages
        number = whole_number(raw)
        if number < 1:
            raise NotFound(self.invalid_page_message)
        return number

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"] = {**parameter["schema"], "minimum": 1}
        return parameters


class ListPagination(PageNumberPagination):
    """The lists' pagination: by page number (``count``, ``next``, ``previous``,
    ``results``), or, with ``?ordering=id`` or ``?ordering=updated_at``, by cursor
    (``next``, ``previous``, ``results``): a crawl that nothing skips or repeats while
    items are added, renamed or deleted (an offset shifts; a cursor is a position in a
    stable order). ``updated_at`` is the JSON's (when the item's representation last
    changed), then the id. Any other ``ordering`` is a 400, not silently ignored.
    Keeping a copy in sync is cheaper still with a bulk file and the change feed."""

    ordering_query_param = "ordering"
    cursor_query_param = "cursor"
    ORDERINGS = {"id": ("id",), "updated_at": ("public_updated_at", "id")}
    # What the response cache keys a list by, beside page and page_size (rulesite.cache_key).
    extra_query_params = (ordering_query_param, cursor_query_param)

    def paginate_queryset(self, queryset, request, view=None):
        raw = request.query_params.get(self.ordering_query_param)
        self.by_cursor = None
        if raw is None and self.cursor_query_param in request.query_params:
            raw = "id"  # a cursor is a position in an order; its next links always name it
        if raw is None:
            return super().paginate_queryset(queryset, request, view)
        if raw not in self.ORDERINGS:
            raise ValidationError({self.ordering_query_param: [f"One of: {', '.join(self.ORDERINGS)}."]})
        # page_size still counts; page has no meaning by cursor and is not read (but a
        # malformed one is still refused, as everywhere).
        raw_page = request.query_params.get(self.page_query_param)
        if raw_page is not None and raw_page not in self.last_page_strings and whole_number(raw_page) < 1:
            raise NotFound(self.invalid_page_message)
        self.by_cursor = _Cursor(self.ORDERINGS[raw], self.get_page_size(request))
        return self.by_cursor.paginate_queryset(queryset, request, view)

    def get_paginated_response(self, data):
        if self.by_cursor is None:
            return super().get_paginated_response(data)
        return Response(
            {"next": self.by_cursor.get_next_link(), "previous": self.by_cursor.get_previous_link(), "results": data}
        )

    def get_paginated_response_schema(self, schema):
        described = super().get_paginated_response_schema(schema)
        described["required"] = ["next", "previous", "results"]  # no count when paged by cursor
        described["properties"]["count"]["description"] = "Absent when paged by cursor (ordering=…)."
        return described

    def get_schema_operation_parameters(self, view):
        return [
            *super().get_schema_operation_parameters(view),
            {
                "name": self.ordering_query_param, "required": False, "in": "query",
                "description": "Page by cursor in a stable order: `id`, or `updated_at` (then id); `page` is then "
                "not read. Without it, pages are numbered (an edit during a crawl can shift items between pages).",
                "schema": {"type": "string", "enum": list(self.ORDERINGS)},
            },
            {
                "name": self.cursor_query_param, "required": False, "in": "query",
                "description": "Where a page paged by cursor starts: take it from `next` (opaque; alone, it pages "
                "by id).",
                "schema": {"type": "string"},
            },
        ]  # fmt: skip


class _Cursor(pagination.CursorPagination):
    """DRF's cursor, with every cursor it cannot have made refused as a 400 naming the
    parameter: the position a cursor carries reaches the database as a filter value,
    so one that is not an id (``p=abc``, ``p=1e999``, a number past 64 bits) or not a
    time (``p=2024-13-45``) would fail there, a 500 with a traceback (DRF checks only
    the offset and the direction). A cursor is opaque to clients; whatever they send
    that is not one of ours is their mistake, not a missing page (DRF says 404)."""

    page_size_query_param = None  # the list's page_size, read by ListPagination
    invalid_cursor_message = "Invalid cursor: take it from the previous page's next link."

    def __init__(self, ordering: tuple, page_size: int):
        self.ordering, self.page_size = ordering, page_size

    def decode_cursor(self, request):
        encoded = request.query_params.get(self.cursor_query_param)
        try:  # DRF's decoding skips what is not base64 ("!!!" reads as no cursor at all)
            canonical = encoded is None or bool(b64decode(encoded.encode("ascii"), validate=True))
            cursor = super().decode_cursor(request) if canonical else False
        except (ValueError, NotFound):  # binascii.Error and UnicodeEncodeError are ValueErrors
            cursor = False
        if cursor is None:
            return None
        position = cursor and cursor.position
        if cursor is False or (position is not None and (position := self._readable(position)) is None):
            raise ValidationError({self.cursor_query_param: [self.invalid_cursor_message]})
        return cursor._replace(position=position)

    def _readable(self, position: str) -> str | None:
        """The position as the database may be given it, or None when it is not one."""
        if self.ordering[0] == "id":
            digits = position.isascii() and position.isdigit() and len(position) <= len(str(MAX_ID))
            return position if digits and int(position) <= MAX_ID else None
        try:
            moment = parse_datetime(position)
        except ValueError:  # well formed, but no such day or hour
            return None
        if moment is None:
            return None
        if timezone.is_naive(moment):
            moment = timezone.make_aware(moment, UTC)
        return str(moment)
