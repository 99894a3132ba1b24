from rest_framework import pagination
from rest_framework.exceptions import ValidationError


class PageNumberPagination(pagination.PageNumberPagination):
    """``count``, ``next``, ``previous``, ``results``; ``?page_size=`` up to 100.

    DRF silently falls back to the default size when ``page_size`` is not a number, so a
    client with a typo would page through 20 items believing it asked for 50. We answer
    400 instead. A size above the maximum is capped (not refused): asking for "as many as
    you allow" is a legitimate request.
    """

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
    page_size_query_description = f"Results per page, 1 to {max_page_size} (default {page_size})."

    def get_page_size(self, request):
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None or raw == "":
            return self.page_size
        try:
            # int() also refuses NUL bytes and strings longer than Python's digit limit.
            size = int(raw) if raw.isascii() and raw.isdigit() else 0
        except ValueError:
            size = 0
        if size < 1:
            message = f"Must be a whole number from 1 to {self.max_page_size}."
            raise ValidationError({self.page_size_query_param: [message]})
        return min(size, self.max_page_size)
