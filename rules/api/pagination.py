from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """``count``, ``next``, ``previous``, ``results``; ``?page_size=`` up to 100."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
