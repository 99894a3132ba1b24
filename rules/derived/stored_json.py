"""Each public item's JSON, stored when it changes: API lists assembled from stored bytes.

The pipeline's last step (``rules.derived.public_changes``) knows which public items'
representations changed: their signature did. For those it stores the JSON itself on
the item's ``PublicItem`` row (``body``), made by the API's own serializers, so a list
endpoint is a query for a page of ids and a join of stored bodies, and a detail answer
one stored body (``rules.api.stored``), not a serializer run over every row of every
request.

Decisions:

- **The serializers stay the single definition of the shape.** This module knows no
  shape: the interfaces layer registers, per kind, a function that serializes items by
  id exactly as their list endpoint does (``register``; rules never imports the API here,
  and faq registers its questions). ``tests/api/test_stored_json.py`` compares stored
  with freshly serialized bytes for every kind, after every kind of write.
- **No address in it.** URLs are absolute in the API, and the address is the request's,
  so bodies are made with the site's address replaced by ``PLACEHOLDER`` (a NUL, which
  JSON writes ``\\u0000``) and the reader's address is put back when read
  (``with_base``). Only where a string starts with it (``"\\u0000``, every URL): a
  text with ``\\u0000`` typed in it is written ``\\\\u0000`` (whose tail is the same six
  characters, never after a quote), and no text starts with a NUL (the admin and the
  importers refuse control characters). So a list of many items is joined first and
  put right in one pass.
- **Only where the signature covers the JSON**: entries, errata, FAQ questions and
  games. A source's list shape also lists its releases, which its signature does not
  sign, so sources are serialized per request as before.
- **Missing is not wrong.** A row whose body is null (made before bodies were stored,
  or by a kind with no maker) is serialized per request by the reader; ``manage.py
  render_html`` (every ``migrate``) fills them.
"""

from collections.abc import Callable, Iterable

from ..shared.bulk import update_rows
from .models import PublicItem

PLACEHOLDER = "\x00"  # the site's address while a body is made
ENCODED_PLACEHOLDER = b'"\\u0000'  # ...and as it is in the stored JSON, where a string starts
CHUNK = 500

# kind → function(ids) → {id: the item's JSON (str), URLs under PLACEHOLDER}
_makers: dict[str, Callable[[list[int]], dict[int, str]]] = {}


def register(kind: str, maker: Callable[[list[int]], dict[int, str]]) -> None:
    _makers[kind] = maker


def stored_kinds() -> set[str]:
    return set(_makers)


def refresh(keys: Iterable[tuple[str, int]]) -> int:
    """Make and store the JSON of these (kind, id) items; how many bodies were stored."""
    by_kind: dict[str, list[int]] = {}
    for kind, pk in keys:
        if kind in _makers:
            by_kind.setdefault(kind, []).append(pk)
    written = 0
    for kind, ids in by_kind.items():
        ids = sorted(set(ids))
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            bodies = _makers[kind](chunk)
            rows = PublicItem.objects.filter(kind=kind, object_id__in=chunk).values_list("pk", "object_id")
            update_rows(PublicItem, ["body"], [(pk, bodies.get(object_id)) for pk, object_id in rows])
            written += len(bodies)
    return written


def missing(game_ids: Iterable[int]) -> list[tuple[str, int]]:
    """The (kind, id) of items of these games (and the games themselves) with no body."""
    game_ids = sorted({game for game in game_ids if game is not None})
    if not game_ids or not _makers:
        return []
    found = []
    for start in range(0, len(game_ids), CHUNK):
        games = game_ids[start : start + CHUNK]
        rows = PublicItem.objects.filter(body__isnull=True, kind__in=list(_makers), game_id__in=games)
        found += rows.values_list("kind", "object_id")  # a game's own row has its id as game_id
    return found


def with_base(body: bytes, base_json: str) -> bytes:
    """A stored body (or several, joined), as UTF-8, with the reader's address
    (``base_json``: as JSON writes it, without quotes) where the site's was."""
    return body.replace(ENCODED_PLACEHOLDER, ('"' + base_json).encode())
