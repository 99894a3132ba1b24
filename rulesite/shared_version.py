"""The content version kept beside the pages in Redis: a cache hit in one round trip.

With the per-process cache, each request reads the content version from the database
(``rules.content.version``) and then looks up its response: one query and one lookup.
With Redis that is a database round trip and a Redis round trip for every hit, and the
query waits for a core when the database is busy. So with Redis the response cache
(``rulesite.response_cache``) asks Redis for three things in one pipelined round trip:

- the tokens a response's scope is valid for, kept in one hash (``KEY``: the site's
  token ``c``, the vectors' ``v``, a game's ``g:<slug>``; only games there are: a slug
  no game has is never kept, so the hash holds at most one field per game);
- the generation (``GENERATION``), a counter that every unit of work moves;
- the response, stored under a key without any token, tagged with the tokens it was
  rendered under (``rules.content.version.Version.tag``): a hit is a tag equal to the
  current tokens.

Why it is never stale:

- **The database stays the truth.** The hash is a copy, filled by readers from the
  primary (never a replica, which may lag) when a field they need is missing, and
  thrown away by every writer: when a unit of work commits (the derived-data pipeline's
  ``finished``, then ``on_commit``), the writer increments the generation and deletes the
  hash in one transaction (``forget``).
- **A reader never writes back an old copy.** It reads the generation *before* it reads
  the database, and fills the hash only if the generation is still that one
  (``FILL``, a Lua script, atomic in Redis): a unit that committed in between moved the
  generation, and the old tokens are dropped.
- **Responses are tagged with the tokens read from the database** for that rendering,
  not with the copy's: a replica that lags stores its page under its older tag, which
  the current tokens never match.
- **Bounded for the rest.** A write outside any unit of work (SQL by hand; the triggers
  still move the database's tokens) and a writer whose ``forget`` failed (Redis
  unreachable at that moment) are seen when the hash expires: it lives
  ``RESPONSE_CACHE_VERSION_SECONDS`` (5 s), counted from its first field.

Only with Django's ``RedisCache``: the per-process cache keeps reading the database
(another process's writes could not reach a per-process copy), memcached too.
"""

import os
import threading

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import transaction

from rules.content.version import Version
from rules.shared.cache_errors import CACHE_ERRORS, cache_down

KEY = "content-tokens"
GENERATION = "content-tokens:generation"

# KEYS: the hash, the generation; ARGV: the generation read before the database, the
# hash's lifetime, then field and value pairs.
FILL = """
local generation = redis.call('GET', KEYS[2]) or ''
if generation ~= ARGV[1] then return 0 end
local fresh = redis.call('EXISTS', KEYS[1]) == 0
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
if fresh then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1
"""


class SharedVersion:
    """The tokens' copy in one Redis cache (``cache``: a Django ``RedisCache``)."""

    def __init__(self, cache: RedisCache, seconds: int):
        self.cache = cache
        self.seconds = seconds
        self.key = cache.make_and_validate_key(KEY)
        self.generation_key = cache.make_and_validate_key(GENERATION)
        self._fill = None
        self._client = None
        self._local = threading.local()  # each thread's connection for round_trip

    @staticmethod
    def usable(cache) -> bool:
        return isinstance(cache, RedisCache)

    def client(self):
        """A client of the first server (where writes go), made once: Django's
        ``get_client`` makes a new ``redis.Redis`` per call, and each one copies redis-py's
        table of ~170 reply parsers (0.12 ms, a third of a cache hit's CPU, measured with
        ``bench/cpu.py --cache-url redis://``). A client is safe to share between threads:
        it takes a connection from its pool for each command."""
        if self._client is None:
            self._client = self.cache._cache.get_client(write=True)
        return self._client

    def round_trip(self, *commands: tuple) -> list:
        """The replies to ``commands`` (each a tuple such as ``("GET", key)``), sent together
        on this thread's own connection (``connection``) and read as Redis sent them: what
        a pipeline without a transaction does, without redis-py's pipeline machinery (its
        command stack, reply callbacks, retries and metrics), which was a fifth of a cache
        hit's CPU: 75 -> 49-59 µs for a ``GET`` and an ``HGETALL`` (a loop of 5,000 on this
        machine, 2026-12-04). A reply is raw: ``HGETALL``'s is a dict in RESP3, a flat list
        in RESP2 (``as_dict``). Any error (Redis down, a reply half read) drops the
        connection, so no later call reads this one's replies (the next one connects
        again); the caller handles it as a cache that is down (``CACHE_ERRORS``)."""
        connection = self.connection()
        try:
            connection.send_packed_command(connection.pack_commands(commands))
            return [connection.read_response() for _ in commands]
        except BaseException:
            connection.disconnect()
            raise

    def connection(self):
        """This thread's connection for ``round_trip``, made like the client pool's own
        (address, database, protocol, credentials, timeouts) but never handed back to it:
        taking one from the pool and returning it, with redis-py's metrics and checks on
        both ways, was a fifth of a front-cache hit's CPU (``bench/cpu.py --profile``). One
        per thread, as the pool would hold under load; one per process too: a connection
        made before a fork is never used after it (its socket would be shared)."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            pool = self.client().connection_pool
            local.connection, local.pid = pool.connection_class(**pool.connection_kwargs), os.getpid()
        return local.connection

    def lookup(self, game: str | None, response_key: str) -> tuple[Version | None, bytes, object]:
        """(the tokens as the copy has them, or None when a field is missing; the
        generation; the stored response or None), in one round trip."""
        fields = ["c", "v"] + ([f"g:{game}"] if game is not None else [])
        values, generation, stored = self.round_trip(
            ("HMGET", self.key, *fields),
            ("GET", self.generation_key),
            ("GET", self.cache.make_and_validate_key(response_key)),
        )
        if stored is not None:
            stored = self.cache._cache._serializer.loads(stored)
        if any(value is None for value in values):
            return None, generation or b"", stored
        game_token = int(values[2]) if game is not None else None
        return Version(int(values[0]), None, int(values[1]), game_token), generation or b"", stored

    def fill(self, version: Version, game: str | None, generation: bytes) -> bool:
        """Put the primary's ``version`` into the copy, unless a unit of work committed
        since ``generation`` was read; whether it did."""
        pairs = ["c", version.token, "v", version.vectors]
        if game is not None and version.game is not None:
            # Only a game there is: a slug a client made up (a 404, rendered anyway) is not
            # kept, so no client can grow the copy with fields of its own choosing.
            pairs += [f"g:{game}", version.game]
        client = self.client()
        if self._fill is None:
            self._fill = client.register_script(FILL)
        return bool(self._fill(keys=[self.key, self.generation_key], args=[generation, self.seconds, *pairs],
                               client=client))  # fmt: skip

    def forget(self) -> None:
        """After a unit of work committed: every reader reads the database again."""
        pipeline = self.client().pipeline(transaction=True)
        pipeline.incr(self.generation_key)
        pipeline.delete(self.key)
        pipeline.execute()


def as_dict(reply) -> dict:
    """A raw ``HGETALL`` reply (``SharedVersion.round_trip``) as a dict, whichever protocol."""
    return reply if isinstance(reply, dict) else dict(zip(reply[::2], reply[1::2], strict=True))


def configured() -> SharedVersion | None:
    """The copy in the response cache's Redis, or None when the cache is not Redis."""
    cache = caches[settings.RESPONSE_CACHE_ALIAS]
    return SharedVersion(cache, settings.RESPONSE_CACHE_VERSION_SECONDS) if SharedVersion.usable(cache) else None


def forget_after_commit(sender=None, **kwargs) -> None:
    """The derived-data pipeline's ``finished`` receiver (``rulesite.apps``): once the unit
    of work commits, the copy is thrown away (a rolled-back unit leaves it as it is)."""
    shared = configured()
    if shared is not None:
        transaction.on_commit(lambda: _forget(shared))


def _forget(shared: SharedVersion) -> None:
    try:
        shared.forget()
    except CACHE_ERRORS as error:  # the copy expires by itself (module docs, "Bounded")
        cache_down(error, "forgetting the content tokens")
