"""The errors a shared cache that is down raises (Redis stopped, memcached unreachable),
for the code that can do without it: the response cache serves uncached, the API's rate
lets requests through, rather than answering 500 for every page while Redis restarts.
``/readyz`` says the node is not ready meanwhile (``rulesite.health``)."""

import logging
import time

logger = logging.getLogger("rulesite.cache")

_last_warning = 0.0


def cache_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [ConnectionError, TimeoutError, OSError]
    try:
        from redis.exceptions import RedisError

        errors.append(RedisError)
    except ImportError:  # pragma: no cover - redis is a dependency
        pass
    try:
        from pymemcache.exceptions import MemcacheError

        errors.append(MemcacheError)
    except ImportError:
        pass
    return tuple(errors)


CACHE_ERRORS = cache_errors()


def cache_down(error: BaseException, doing: str) -> None:
    """Log that the cache failed (at most once a minute per process)."""
    global _last_warning
    now = time.monotonic()
    if now - _last_warning >= 60:
        _last_warning = now
        logger.warning("the cache is unreachable (%s: %s): %s without it", type(error).__name__, error, doing)
