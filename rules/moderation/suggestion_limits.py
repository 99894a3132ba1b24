"""How many suggestions and previews a connection may send: counters on the shared cache.

The project's first public write, so the cheapest abuse is a script sending thousands.
Fixed windows, counted in Django's default cache (Redis when ``DJANGO_CACHE_URL`` names
one, so every server counts together; per process otherwise, where each worker counts
apart: the limit then holds per worker). Every counter belongs to one address (the
HMAC the service stores, ``suggestions.address_hash``; an IPv6 address counts as its
/64): no counter is shared between connections.

- **per address**: ``PER_ADDRESS`` sends in ``ADDRESS_WINDOW`` seconds (5 in 10
  minutes): a person fixing several typos on a page is not stopped, a script is;
- **per item and address**: ``PER_TARGET`` sends on one item in ``TARGET_WINDOW``
  (5 in an hour): one connection cannot fill one item's queue by sending again once
  its ten minutes are over;
- **previews per address**: ``PREVIEWS`` in ``PREVIEW_WINDOW`` (30 in 10 minutes),
  counted apart from sends, so previewing never costs a person a send. A person
  previews after each change of a proposal, a few times a suggestion: one preview
  every 20 seconds for ten minutes is still under the limit. A preview stores nothing
  but computes a word diff of up to 50,000 characters against the item's text, the
  most work an anonymous client can ask for: a script is held to 3 a minute.

Why no counter per item across addresses (there was one, 20 sends an hour from
anyone): it was shared, so a stranger who sent 20 times from a few connections had
every player refused on that item for the rest of the hour, the attack it was meant
to stop turned against the players. A limit here never refuses a connection for what
other connections did: a player who has not sent on an item is never refused because
of that item. Many connections flooding one item are still each held to their own
limits, and what remains is the moderators' to see (the queue, ``same_as``) and block;
a cap that refused the N+1-th address would again be a lever for anyone with N of them
(an IPv6 /48 holds 65,536 /64 networks).

A request without an address (a proxy set up wrongly) counts as one unknown address,
together with every other such request: the limits still hold, never loosen.

Counting is incrementing first (atomic in Redis), then comparing: concurrent sends
cannot all slip under a limit. Decisions: a send counts whether it stored a new
suggestion or repeated one (a repeat costs a moderator nothing, but a script repeating
itself is still a script); a preview counts when the form was valid (it computed a
diff); a form with errors and the form page itself count nothing. The windows are
fixed (they start at multiples of their length), so "try again in N minutes" is exact
and two cache operations decide; a burst at a window's edge may reach twice the limit,
which these limits can afford. A lost cache (evicted, restarted) forgets the counts:
the limits slow abuse down, they are not an audit; with caching off
(``DJANGO_CACHE_URL=dummy://``) nothing is counted and there are no limits.
"""

import math
import time
from dataclasses import dataclass

from django.core.cache import cache

from ..shared.cache_errors import CACHE_ERRORS, cache_down

PER_ADDRESS, ADDRESS_WINDOW = 5, 10 * 60
PER_TARGET, TARGET_WINDOW = 5, 60 * 60  # per item *and* address
PREVIEWS, PREVIEW_WINDOW = 30, 10 * 60

UNKNOWN_ADDRESS = "unknown"


@dataclass(frozen=True)
class Refusal:
    """Over a limit: how long until the window ends (whole minutes, at least 1)."""

    minutes: int


def _window(name: str, window: int, now: float) -> tuple[str, int]:
    """The counter's key in the current window and the seconds left in it."""
    index = int(now // window)
    return f"suggestions:{name}:{window}:{index}", int((index + 1) * window - now)


def _incremented(key: str, left: int) -> int:
    """Add one to the counter (atomic in Redis and memcached) and give its new value."""
    if cache.add(key, 1, left + 1):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired or evicted between the two calls
        cache.add(key, 1, left + 1)
        return 1


def _take(counters, now: float) -> Refusal | None:
    """Count one on each counter in turn; a ``Refusal`` at the first over its limit
    (the later ones are then not counted)."""
    for name, window, limit in counters:
        key, left = _window(name, window, now)
        try:
            count = _incremented(key, left)
        except CACHE_ERRORS as error:  # the counts are on a cache that is down: none to keep
            cache_down(error, "suggestions are not counted")
            return None
        if count > limit:
            return Refusal(max(1, math.ceil(left / 60)))
    return None


def take(address_hash: str, target_type: str, target_id: int, now: float | None = None) -> Refusal | None:
    """Count one send on an item; a ``Refusal`` when it is over a limit. The address's
    counter is counted first and, when over, alone: a connection over its own limit
    spends nothing of its limit on the item."""
    address = address_hash or UNKNOWN_ADDRESS
    counters = [
        (f"address:{address}", ADDRESS_WINDOW, PER_ADDRESS),
        (f"target:{target_type}:{target_id}:{address}", TARGET_WINDOW, PER_TARGET),
    ]
    return _take(counters, time.time() if now is None else now)


def take_preview(address_hash: str, now: float | None = None) -> Refusal | None:
    """Count one preview; a ``Refusal`` when it is over the address's preview limit."""
    counters = [(f"preview:{address_hash or UNKNOWN_ADDRESS}", PREVIEW_WINDOW, PREVIEWS)]
    return _take(counters, time.time() if now is None else now)
