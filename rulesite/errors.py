"""The site's answer when a request fails: never a traceback, and nothing typed is lost.

Django calls ``server_error`` (``handler500``) for any exception a view or middleware
did not handle, with the exception still in ``sys.exc_info()``. A busy database
(``rules.shared.database.is_database_busy``: a writer that waited the whole busy timeout) is
load, not a bug: it gets a 503 with ``Retry-After``, and a form post gets its submitted
fields back on the page, ready to copy, since the transaction was rolled back. The API
answers JSON in both cases (its clients parse JSON, never an HTML page).
"""

import sys

from django.http import JsonResponse
from django.template.response import TemplateResponse
from django.views import defaults

from rules.shared.database import BUSY_MESSAGE, is_database_busy

RETRY_AFTER_SECONDS = 5
# Form fields that carry no text of the user's (tokens, formset bookkeeping, passwords).
_NOT_TYPED = ("csrfmiddlewaretoken", "_edit_version", "_save", "_continue", "_addanother")
_FORMSET_COUNTS = ("-TOTAL_FORMS", "-INITIAL_FORMS", "-MIN_NUM_FORMS", "-MAX_NUM_FORMS")


def server_error(request, template_name="500.html"):
    busy = is_database_busy(sys.exc_info()[1])
    if request.path.startswith("/api/"):
        if busy:
            response = JsonResponse({"detail": BUSY_MESSAGE}, status=503)
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
            return response
        return JsonResponse({"detail": "Server error: the request could not be answered."},
                            status=500)
    if not busy:
        return defaults.server_error(request, template_name)
    response = TemplateResponse(
        request, "503.html", {"submitted": submitted_fields(request)}, status=503
    )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response.render()


def submitted_fields(request) -> list[tuple[str, str]]:
    """(name, value) of every non-empty field a form post carried that the user typed."""
    if request.method != "POST":
        return []
    try:
        items = list(request.POST.lists())
    except Exception:  # an unreadable or oversized body has nothing to give back
        return []
    fields = []
    for name, values in items:
        if name in _NOT_TYPED or "password" in name or name.endswith(_FORMSET_COUNTS):
            continue
        value = "\n".join(v for v in values if v.strip())
        if value:
            fields.append((name, value))
    return fields
