"""Read replicas, safely: which database a request reads from (``DATABASE_REPLICA_URL``).

A **reader's** request (GET or HEAD, not signed in, not the admin, not ``/readyz``)
reads the public content from one replica, chosen for the whole request (``ReplicaMiddleware``,
round robin over the replicas); everything else reads the primary:

- every write, and **every read after a write in the same request** (the router's
  ``db_for_write`` moves the request to the primary for the rest of it);
- a signed-in moderator's request and the admin (they must see their own edits);
- a request from a client that wrote in the last ``DJANGO_REPLICA_STICKY_SECONDS``
  (10; a POST's response sets a short cookie), so a player sent on to the status page
  of the suggestion just sent finds it;
- whatever is not public content: sessions, users, the task queue, built files' records,
  import jobs, suggestions, the worker's heartbeat (``PRIMARY_ONLY``): their readers act
  on them, and a lagging copy would have them act wrongly (a built file's old name taken
  for lost).

**One connection for the version and the content.** The content version
(``rules.content.version``), which the response cache keys every response by, is read
through the router like the content itself (``version.reading_alias``), so both come
from the same server: the version first, then the content, from a replica that only
ever moves forward. The content is then at least as new as the version it is stored
under. A lagging replica delays an edit by its lag; it can never store old text under
the new version, which every node would then serve until the next edit.

Code that reads public content through a cursor names the router's choice
(``connections[router.db_for_read(Model)]``), never ``django.db.connection``.
"""

import itertools
import threading
from contextvars import ContextVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

from .visitors import is_signed_in

# The database this request's public reads go to; None: the primary.
_reading: ContextVar[str | None] = ContextVar("rulesite_reading", default=None)

STICKY_COOKIE = "rulesite_primary"
REPLICA_APPS = {"rules", "faq"}
# Models of those apps that are not public content (see the module's docstring).
PRIMARY_ONLY = {
    ("rules", "builtfile"),
    ("rules", "importjob"),
    ("rules", "workerbeat"),
    ("rules", "suggestion"),
    ("rules", "blockedaddress"),
}
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def replica_aliases() -> list[str]:
    return list(getattr(settings, "DATABASE_REPLICAS", []))


_turns = itertools.count()
_turns_lock = threading.Lock()


def _next_replica(aliases: list[str]) -> str:
    with _turns_lock:
        return aliases[next(_turns) % len(aliases)]


class ReplicaRouter:
    """Django's database router for the above: public content from the request's replica,
    everything else, and every write, on the primary."""

    def db_for_read(self, model, **hints):
        alias = _reading.get()
        if alias is None:
            return DEFAULT_DB_ALIAS
        meta = model._meta
        if meta.app_label not in REPLICA_APPS or (meta.app_label, meta.model_name) in PRIMARY_ONLY:
            return DEFAULT_DB_ALIAS
        return alias

    def db_for_write(self, model, **hints):
        _reading.set(None)  # what this request reads from now on, it reads where it wrote
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True  # one database, copied: a row from a replica is the primary's row

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == DEFAULT_DB_ALIAS


class ReplicaMiddleware:
    """Chooses the request's database (after the session middleware: a moderator is
    known by the session, read from the primary; before the response cache, which reads
    the content version through the router)."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.excluded = tuple(settings.RESPONSE_CACHE_EXCLUDED_PATHS) + ("/readyz", "/healthz")
        self.sticky_seconds = settings.REPLICA_STICKY_SECONDS

    def __call__(self, request):
        aliases = replica_aliases()
        if not aliases:
            return self.get_response(request)
        token = _reading.set(_next_replica(aliases) if self.reads_replica(request) else None)
        try:
            response = self.get_response(request)
        finally:
            _reading.reset(token)
        if request.method not in SAFE_METHODS and self.sticky_seconds:
            response.set_cookie(
                STICKY_COOKIE, "1", max_age=self.sticky_seconds, httponly=True, samesite="Lax",
                secure=settings.SESSION_COOKIE_SECURE,
            )  # fmt: skip
        return response

    def reads_replica(self, request) -> bool:
        if request.method not in SAFE_METHODS or request.path_info.startswith(self.excluded):
            return False
        if STICKY_COOKIE in request.COOKIES:
            return False
        return not is_signed_in(request)
