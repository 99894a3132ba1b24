"""``/healthz`` and ``/readyz``: what a load balancer asks a node.

- ``/healthz``: the process answers (no database, no cache): 200 ``{"status": "alive"}``.
  A failure means restart it.
- ``/readyz``: whether the node can serve readers now, as JSON with each check's result
  and time: 200 when ready, 503 when not. A failure means send it no traffic for now.

  Required for ready: the **database** (the primary answers ``SELECT 1``), each **replica**
  (answers, and is at most ``DJANGO_REPLICA_MAX_LAG`` seconds behind the primary), the
  **cache** (a value written and read back: Redis answers), and no **pending
  migrations** (the schema is the one this code was written for: a node started before
  its ``migrate`` finished waits). Reported without deciding: the **storage** of built
  files (unreachable, booklets and bulk files answer "being prepared"; pages still work)
  and the **worker**'s heartbeat age (without one, files and imports wait; the admin's
  front page says so): taking every node out for either would turn a degraded site into
  none.

Answered by a middleware at the top of the stack (``HealthMiddleware``), before the host
check, the HTTPS redirect, sessions, the response cache and every throttle: a load
balancer asks by a node's own address, over plain HTTP, as often as it likes, and its
answer is never cached anywhere (``Cache-Control: no-store``).
"""

import json
import logging
import time
import uuid

from django.conf import settings
from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpResponse

logger = logging.getLogger(__name__)

PATHS = ("/healthz", "/readyz")
_migrations_checked: dict[str, float] = {}  # alias → when it was last found with none pending
MIGRATIONS_RECHECK = 30  # seconds: none pending stays true until the next deploy


def _timed(check):
    started = time.perf_counter()
    try:
        result = check()
        ok = result.pop("ok", True)
    except Exception as error:  # any failure is the answer, never a 500
        result, ok = {"error": f"{type(error).__name__}: {error}"[:300]}, False
    return {"ok": ok, "ms": round((time.perf_counter() - started) * 1000, 1), **result}


def _database():
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")
    return {}


def _lsn(text: str | None) -> int:
    high, _, low = (text or "0/0").partition("/")
    return (int(high, 16) << 32) | int(low or "0", 16)


# Per replica: a position the primary had written (and when this process first saw the
# replica short of it). Its lag is how long it has been short of that position: never
# more than it really lags, and 0 on a site that writes nothing for hours (the age of
# the last replayed commit would then read as hours of lag).
_behind: dict[str, tuple[int, float]] = {}


def _replica(alias: str):
    def check():
        replica = connections[alias]
        if replica.vendor != "postgresql":
            with replica.cursor() as cursor:
                cursor.execute("SELECT 1")
            return {}
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT pg_current_wal_lsn()::text")
            written = _lsn(cursor.fetchone()[0])
        with replica.cursor() as cursor:
            cursor.execute("SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text")
            recovering, replayed = cursor.fetchone()
        replayed, now = _lsn(replayed), time.monotonic()
        short_of = _behind.get(alias)
        if short_of is not None and replayed >= short_of[0]:
            del _behind[alias]  # reached: measured again from the primary's position now
            short_of = None
        if short_of is None and recovering and replayed < written:
            short_of = _behind[alias] = (written, now)
        lag = round(now - short_of[1], 1) if short_of is not None else 0.0
        return {
            "ok": recovering and lag <= settings.REPLICA_MAX_LAG,
            "lag_seconds": lag,
            "bytes_behind": max(0, written - replayed),
            **({} if recovering else {"error": "not a replica (not in recovery)"}),
        }

    return check


def _cache():
    cache = caches[settings.RESPONSE_CACHE_ALIAS]
    key, value = f"readyz:{uuid.uuid4().hex}", uuid.uuid4().hex
    cache.set(key, value, 10)
    read = cache.get(key)
    cache.delete(key)
    backend = type(cache).__name__
    # A DummyCache (DJANGO_CACHE_URL=dummy://) keeps nothing, by design.
    return {"ok": read == value or backend == "DummyCache", "backend": backend}


def _migrations():
    from django.db.migrations.executor import MigrationExecutor

    checked = _migrations_checked.get(DEFAULT_DB_ALIAS)
    if checked is not None and time.monotonic() - checked < MIGRATIONS_RECHECK:
        return {"pending": 0}
    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if not pending:
        _migrations_checked[DEFAULT_DB_ALIAS] = time.monotonic()
    return {"ok": not pending, "pending": len(pending)}


def _storage():
    from rules.builds.storage import reachable

    return {"where": reachable()}


def _worker():
    from django.utils import timezone

    from rules.jobs.heartbeat import SILENT_AFTER, last_seen

    seen = last_seen()
    if seen is None:
        return {"ok": False, "seconds_since_heartbeat": None}
    age = (timezone.now() - seen).total_seconds()
    return {"ok": age <= SILENT_AFTER.total_seconds(), "seconds_since_heartbeat": round(age, 1)}


def readiness() -> tuple[bool, dict]:
    required = {"database": _timed(_database)}
    for alias in getattr(settings, "DATABASE_REPLICAS", []):
        required[alias] = _timed(_replica(alias))
    required["cache"] = _timed(_cache)
    required["migrations"] = _timed(_migrations)
    reported = {"storage": _timed(_storage), "worker": _timed(_worker)}
    ready = all(check["ok"] for check in required.values())
    for check in reported.values():
        check["required"] = False
    return ready, {**required, **reported}


def _json(status: int, document: dict) -> HttpResponse:
    response = HttpResponse(json.dumps(document), status=status, content_type="application/json")
    response["Cache-Control"] = "no-store"
    return response


class HealthMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path = request.path_info.rstrip("/")
        if path not in PATHS:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            response = _json(405, {"detail": "GET or HEAD"})
            response["Allow"] = "GET, HEAD"
            return response
        if path == "/healthz":
            return _json(200, {"status": "alive"})
        ready, checks = readiness()
        response = _json(200 if ready else 503, {"status": "ready" if ready else "not ready", "checks": checks})
        if not ready:
            failed = ", ".join(f"{name} ({check.get('error', check)})" for name, check in checks.items()
                               if not check["ok"] and check.get("required", True))  # fmt: skip
            logger.warning("not ready: %s", failed)
            response._has_been_logged = True  # said above, once, not again as a server error
        return response
