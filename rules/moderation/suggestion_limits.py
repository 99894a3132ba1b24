"""How many suggestions a connection, and an item, may receive: counters on the shared cache.

The project's first public write, so the cheapest abuse is a script sending thousands.
Two fixed windows, counted in Django's default cache (Redis when ``DJANGO_CACHE_URL``
names one, so every server counts together; per process otherwise, where each worker
counts apart: the limit then holds per worker):

- **per address**: ``PER_ADDRESS`` sends in ``ADDRESS_WINDOW`` seconds (5 in 10
  minutes): a person fixing several typos on a page is not stopped, a script is;
- **per item**: ``PER_TARGET`` sends in ``TARGET_WINDOW`` (20 in an hour), whatever
  the address: many connections cannot flood one entry's queue either.

Counting is incrementing first (atomic in Redis), then comparing: concurrent sends
cannot all slip under a limit. Decisions: a send counts whether it stored a new suggestion or repeated one (a repeat
costs a moderator nothing, but a script repeating itself is still a script); a form
with errors, a preview and the form page itself count nothing. The windows are fixed
(they start at multiples of their length), so "try again in N minutes" is exact and
two cache operations decide; a burst at a window's edge may reach twice the limit,
which these limits can afford. A lost cache (evicted, restarted) forgets the counts:
the limits slow abuse down, they are not an audit; with caching off
(``DJANGO_CACHE_URL=dummy://``) nothing is counted and there are no limits.
"""

import math
import time
from dataclasses import dataclass

from django.core.cache import cache

PER_ADDRESS, ADDRESS_WINDOW = 5, 10 * 60
PER_TARGET, TARGET_WINDOW = 20, 60 * 60


@dataclass(frozen=True)
class Refusal:
    """Over a limit: how long until the window ends (whole minutes, at least 1)."""

    minutes: int


def _window(name: str, window: int, now: float) -> tuple[str, int]:
    """The counter's key in the current window and the seconds left in it."""
    index = int(now // window)
    return f"suggestions:{name}:{window}:{index}", int((index + 1) * window - now)


def _counters(address_hash: str, target_type: str, target_id: int, now: float):
    if address_hash:
        yield (*_window(f"address:{address_hash}", ADDRESS_WINDOW, now), PER_ADDRESS)
    yield (*_window(f"target:{target_type}:{target_id}", TARGET_WINDOW, now), PER_TARGET)


def _incremented(key: str, left: int) -> int:
    """Add one to the counter (atomic in Redis and memcached) and give its new value."""
    if cache.add(key, 1, left + 1):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired or evicted between the two calls
        cache.add(key, 1, left + 1)
        return 1


def take(address_hash: str, target_type: str, target_id: int, now: float | None = None) -> Refusal | None:
    """Count one send; a ``Refusal`` when it is over a limit. The address's counter is
    counted first and, when over, alone: a connection over its own limit spends nothing
    of the item's."""
    now = time.time() if now is None else now
    for key, left, limit in _counters(address_hash, target_type, target_id, now):
        if _incremented(key, left) > limit:
            return Refusal(max(1, math.ceil(left / 60)))
    return None
