"""What a cached public response is keyed by: exactly its representation.

A key is the content version and everything that can change the bytes of a response,
and nothing else, so no client can make the cache store the same response twice or
serve one representation for another (``rulesite.response_cache``):

- **the host** as ``rulesite.hosts`` normalised it (the configured site, never a port a
  client chose) and the scheme;
- **the path** and **only the query parameters the view reads**, in a fixed order: a
  page view declares them (``rules.pages.http.public_page``), an API view by action
  (``query_params`` on the class, plus its filters and pagination for a list). The
  request reaches the view with only those (``canonical_query``), so what the view
  answers cannot depend on the others;
- **the UI language** (the URL's prefix; for the unprefixed API and sitemap,
  ``Accept-Language`` as ``LocaleMiddleware`` read it: four values);
- **the media type the API actually negotiates** with Django REST Framework's own
  content negotiation (JSON, the browsable HTML API, the schema's YAML or JSON; JSON's
  ``indent``), not a guess from the ``Accept`` header's text;
- **the encoding** the client accepts (``rules.shared.compression.accepts_gzip``, which
  honours ``q=0``).

A view that declares nothing is answered as asked and never cached (``describe`` gives
None): a forgotten declaration costs speed, never a wrong page.
"""

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlencode

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404, HttpRequest, QueryDict
from django.urls import Resolver404, get_urlconf, resolve
from django.utils import translation
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.views import APIView

from rules.shared.compression import accepts_gzip

FORMAT_PARAMETER = "format"  # Django REST Framework's URL_FORMAT_OVERRIDE
PAGE_VIEWS = "-"  # the media type of a page, a feed, a sitemap: one representation


@dataclass(frozen=True)
class Representation:
    params: tuple[str, ...]  # the query parameters the view reads, in a fixed order
    media: str  # what the API negotiated, or PAGE_VIEWS
    # The answer depends on semantic search's vectors, which the worker makes after the
    # content: keyed by the vectors' token too (``rules.content.version``), so what the
    # worker embedded shows on the next request. A page view says so with
    # ``public_page(..., reads_vectors=True)``, an API view class with ``reads_vectors = True``.
    vectors: bool = False
    # One game's page (``/<lang>/games/<slug>/…``: the URL's ``game``): keyed by that game's
    # token, so writes to other games leave it cached (``rules.content.version``).
    game: str | None = None


def describe(request) -> Representation | None:
    """What the view behind ``request`` declares and negotiates; None when it declares
    nothing (or the path is no view's): such a response is not cached."""
    path = request.path_info
    if len(path) > KEPT_PATH_LENGTH:  # made up: resolved without being kept
        resolved = _view_of(path, get_urlconf())
    else:
        resolved = _kept_view_of(path, get_urlconf(), translation.get_language())
    if resolved is None:
        return None
    view, game = resolved
    params = getattr(view, "public_params", None)
    if params is not None:  # in the order the view declares them (its links' order)
        return Representation(tuple(params), PAGE_VIEWS, getattr(view, "reads_vectors", False), game)
    view_class = getattr(view, "cls", None)
    if view_class is None or not issubclass(view_class, APIView):
        return None
    params = _api_params(view, view_class, request.method)
    if params is None:
        return None
    media = _negotiated(view_class, request)
    vectors = getattr(view_class, "reads_vectors", False)
    return None if media is None else Representation(params, media, vectors)


# A path longer than this (no address of ours is) is resolved without being kept: the
# kept paths take at most 4,096 times this many characters.
KEPT_PATH_LENGTH = 400


def _view_of(path: str, urlconf) -> tuple | None:
    """The view of a path and the game it names (its ``game`` argument), or None when no
    view has the path."""
    try:
        match = resolve(path, urlconf)
    except Resolver404:
        return None
    game = match.kwargs.get("game")
    return match.func, game if isinstance(game, str) else None


@lru_cache(maxsize=4096)
def _kept_view_of(path: str, urlconf, language: str) -> tuple | None:
    """``_view_of``, kept for the process's last 4,096 paths: resolving was a fifth of a
    cache hit's time, asked on every request. The language is part of the question: the
    prefix a path must have is the active language's (``i18n_patterns``)."""
    return _view_of(path, urlconf)


@receiver(setting_changed)
def _urlconf_changed(setting, **kwargs):
    if setting == "ROOT_URLCONF":  # as Django clears its own URL caches (tests)
        _kept_view_of.cache_clear()


def canonical_query(request, params: tuple[str, ...]) -> str:
    """The query string with only ``params``, each with its values in their order."""
    if not request.META.get("QUERY_STRING"):
        return ""
    return urlencode([(name, value) for name in params for value in request.GET.getlist(name)])


def key(request, representation: Representation) -> str:
    """The key of a representation. No version in it: the stored response carries the
    tokens it was rendered under (``rules.content.version.Version.tag``) and is used only
    while they are current, so one representation takes one slot, whatever the version."""
    encoding = "gzip" if accepts_gzip(request) else "identity"
    where = f"{request.scheme}://{request.get_host()}{request.path}?{request.META.get('QUERY_STRING', '')}"
    digest = hashlib.blake2b(where.encode(), digest_size=16).hexdigest()
    language = translation.get_language()
    return f"response:{language}:{representation.media}:{encoding}:{digest}"


def path_key(request, token: str) -> str:
    """The key of a path's variant count (``rulesite.response_cache``)."""
    digest = hashlib.blake2b(f"{request.get_host()}{request.path}".encode(), digest_size=16).hexdigest()
    return f"variants:{token}:{digest}"


# --- The API -------------------------------------------------------------------------


def _api_params(view, view_class, method: str) -> tuple[str, ...] | None:
    """A DRF view's parameters: ``format`` for every one, its declared ``query_params``
    for the action, the filters of a list or a detail, and a list's pagination."""
    actions = getattr(view, "actions", None)
    action = actions.get(method.lower()) if actions else "get"
    declared = getattr(view_class, "query_params", None)
    initkwargs = getattr(view, "initkwargs", {})
    params = {FORMAT_PARAMETER}
    if action in ("list", "retrieve"):  # DRF filters a detail's queryset too (get_object)
        filterset = getattr(view_class, "filterset_class", None)
        if filterset is not None:
            params.update(filterset.base_filters)
    if action == "list":
        pagination = initkwargs.get("pagination_class", getattr(view_class, "pagination_class", None))
        if pagination is not None:
            params.update(
                name
                for name in (
                    getattr(pagination, "page_query_param", None),
                    getattr(pagination, "page_size_query_param", None),
                    *getattr(pagination, "extra_query_params", ()),
                )
                if name
            )
    elif action == "retrieve":
        pass
    elif declared is None or action not in declared:
        return None  # an action that declares nothing is not cached
    if declared is not None:
        params.update(declared.get(action, ()))
    return tuple(sorted(params))


_RENDERERS: dict[type, list] = {}


# An Accept header or ?format= longer than this is negotiated without being kept.
KEPT_NEGOTIATION_LENGTH = 200


def _negotiated(view_class, request) -> str | None:
    """The renderer DRF's own negotiation picks for this request, with JSON's indent
    (the only media type parameter a renderer of ours reads). It reads only the
    ``Accept`` header and ``?format=``: the answer for each pair of them is kept (the
    process's last 1,024 short pairs; a longer one, which only a client that made it up
    sends, is negotiated each time)."""
    accept = request.META.get("HTTP_ACCEPT")
    format_ = request.GET.get(FORMAT_PARAMETER)
    if max(len(accept or ""), len(format_ or "")) > KEPT_NEGOTIATION_LENGTH:
        return _negotiate(view_class, Request(request))
    return _negotiated_for(view_class, accept, format_)


@lru_cache(maxsize=1024)
def _negotiated_for(view_class, accept: str | None, format_: str | None) -> str | None:
    """``_negotiated`` for a request with only this ``Accept`` header and ``?format=``."""
    stand_in = HttpRequest()
    if accept is not None:
        stand_in.META["HTTP_ACCEPT"] = accept
    if format_ is not None:
        stand_in.GET = QueryDict(mutable=True)
        stand_in.GET[FORMAT_PARAMETER] = format_
    return _negotiate(view_class, Request(stand_in))


def _negotiate(view_class, request: Request) -> str | None:
    renderers = _RENDERERS.get(view_class)
    if renderers is None:
        renderers = _RENDERERS[view_class] = [renderer() for renderer in view_class.renderer_classes]
    negotiation = view_class.content_negotiation_class()
    try:
        renderer, accepted = negotiation.select_renderer(request, renderers)
    except (APIException, Http404):  # 406, or 404 for an unknown ?format=: not cached anyway
        return None
    media = renderer.media_type
    get_indent = getattr(renderer, "get_indent", None)
    if get_indent is not None and "indent" in accepted:
        indent = get_indent(accepted, {})
        if indent:
            media += f";indent={indent}"
    return media
