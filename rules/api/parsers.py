"""The API's one request-body parser: DRF's JSON, with nesting too deep for Python a 400.

Python's ``json`` recurses once per nesting level, and DRF's parser turns only a
``ValueError`` into a 400: a body of 10,000 ``[`` (20 kB, well under the lookup's size
limit) raised ``RecursionError``, a 500 with a traceback (bench/worst_case.py). Any body
an API endpoint takes (the lookup's ``{"game", "terms", "language"}``) is two levels
deep, so anything the interpreter cannot even read is refused like any other bad JSON.
"""

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None
