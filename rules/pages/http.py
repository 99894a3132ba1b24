"""What a public view declares about the requests it answers.

``@public_page("q", "page")`` on a page view (or ``public_page(...)(view)`` in a URLconf)
says two things, which the site relies on:

- **The query parameters it reads.** The whole-response cache (``rulesite.cache_key``)
  keys a response by exactly these, and the request reaches the view with only these
  (any other parameter is dropped first), so ``?x=1`` can neither be stored as a
  response of its own nor change what the page shows. A view that reads a parameter it
  does not declare would be cached wrongly: declare every one.
- **The methods it answers**: GET and HEAD render the page; OPTIONS answers with its
  ``Allow`` header and renders nothing; any other method is a 405 (a POST without a
  CSRF token is refused before, with a 403). TRACE never renders a page.

API views declare theirs on the class (``query_params``, by action; see
``rulesite.cache_key``). A view without a declaration is answered, but never cached.

``@private_page`` declares the opposite, on purpose: a page that must never be cached
by anyone (a form with a CSRF token, a private address: ``rules.pages.suggestions``).
Its responses are ``private, no-store`` (``never_cache``); it answers GET, HEAD and
POST.
"""

from functools import wraps

from django.http import HttpResponse, HttpResponseNotAllowed
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

READ_METHODS = ("GET", "HEAD")
ALLOWED = ", ".join((*READ_METHODS, "OPTIONS"))


def public_page(*params: str, reads_vectors: bool = False):
    """Declare a page view's query parameters and limit it to reading methods;
    ``reads_vectors``: its answer depends on semantic search's vectors (the response
    cache then keys it by their token too, ``rulesite.cache_key``)."""

    def decorate(view):
        @wraps(view)
        def page(request, *args, **kwargs):
            if request.method in READ_METHODS:
                return view(request, *args, **kwargs)
            if request.method == "OPTIONS":
                response = HttpResponse()
                response["Allow"] = ALLOWED
                response["Content-Length"] = "0"
                return response
            return HttpResponseNotAllowed(READ_METHODS)

        page.public_params = tuple(params)
        page.reads_vectors = reads_vectors
        return page

    return decorate


def private_page(view):
    """Declare a page never cached, by the site or any browser or proxy (see above)."""
    page = never_cache(require_http_methods(["GET", "HEAD", "POST"])(view))
    page.private_page = True
    return page
