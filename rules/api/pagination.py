from rest_framework import pagination
from rest_framework.exceptions import NotFound, ValidationError


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
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        size = whole_number(raw)
        if size < 1:
            message = f"Must be a whole number from 1 (at most {self.max_page_size} are given)."
            raise ValidationError({self.page_size_query_param: [message]})
        return min(size, self.max_page_size)

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
