"""The documents nearest a query's vector: each process's copy of the stored vectors.

``nearest()`` scores a query against every vector of the games searched with one
matrix product. Each process keeps, per game, the game's vectors as a float32 matrix
(a row per passage) with the row's document, language and type beside it, read from
``SearchVector`` on first use; a search of every game uses every game's. Memory: 1.5 KB
a passage (a 10,000-entry game, about 15 MB).

**Staleness.** Rows are only ever inserted (with new, higher ids) or deleted, never
updated, and every write of ``rules.search.vector_refresh`` inserts at least one row;
any other deletion is a cascade from a deleted search document, which changes the
content version (``rules.content.version``: the documents' table is watched). So a
search first glances, in one query of two index lookups, at the content version's token
and the highest vector id (of the game searched): both as at the last check, the copy
is current. Otherwise it checks in full: each game's row count, highest id and sum of
ids (one query, ``GROUP BY game_id``; the (game, id) index answers it without reading
the table, but it reads every entry of it: 7 ms for 50,000 rows on SQLite, which the
glance saves), against its copy's:

* equal: the copy is used as it is;
* the rows only gained higher ids (the worker embedding new documents): only those are
  read and appended;
* anything else (a vector replaced, a document deleted): the game is read again.

A game with no rows any more is dropped. Loading happens under a lock, so two threads
of a gunicorn worker never read the same game twice; searching needs no lock (each
game's copy is replaced whole, never changed).

Rows of another embedder than the one in use (during a change of model) count for the
staleness check but are not searched.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from django.core.signals import setting_changed

from ..content.version import TABLE as VERSION_TABLE
from ..content.version import reading_connection
from .embedders import DIMENSIONS
from .models import SearchVector
from .passages import MAX_PASSAGES

TABLE = SearchVector._meta.db_table
BYTES = DIMENSIONS * 2  # float16


@dataclass(frozen=True)
class GameVectors:
    key: tuple[int, int, int]  # every row of the game: count, highest id, sum of ids
    model: str
    vectors: np.ndarray  # (rows, DIMENSIONS) float32
    documents: np.ndarray  # int64, the row's SearchDocument
    languages: np.ndarray
    item_types: np.ndarray
    chunks: np.ndarray  # int16, the row's passage of its document (``passages.windows``)


_games: dict[int, GameVectors] = {}
# Per scope searched (a game's id, None for every game): the glance at the last full check.
_checked: dict[int | None, tuple] = {}
_lock = threading.Lock()


def nearest(
    vector: np.ndarray,
    model: str,
    *,
    game_id: int | None = None,
    language: str | None = None,
    item_type: str | None = None,
    k: int = 100,
    with_passage: bool = False,
) -> list[tuple]:
    """(SearchDocument id, cosine of its best passage), best first, at most ``k``;
    vectors made by ``model`` only. ``with_passage``: (id, cosine, which passage)."""
    query = np.asarray(vector, dtype=np.float32)
    found_scores, found_documents, found_chunks = [], [], []
    for game in _current(model, game_id):
        if not len(game.documents) or game.vectors.shape[1] != query.shape[0]:
            continue
        scores = game.vectors @ query
        keep = None
        if language is not None:
            keep = game.languages == language
        if item_type is not None:
            keep = (game.item_types == item_type) if keep is None else keep & (game.item_types == item_type)
        if keep is not None:
            scores = np.where(keep, scores, -np.inf)
        # A document has at most MAX_PASSAGES rows: the best k × MAX_PASSAGES rows hold its best k.
        top = min(len(scores), k * MAX_PASSAGES)
        rows = np.argpartition(-scores, top - 1)[:top] if top < len(scores) else np.arange(len(scores))
        rows = rows[np.isfinite(scores[rows])]
        found_scores.append(scores[rows])
        found_documents.append(game.documents[rows])
        found_chunks.append(game.chunks[rows])
    if not found_scores:
        return []
    scores, documents = np.concatenate(found_scores), np.concatenate(found_documents)
    chunks = np.concatenate(found_chunks)
    order = np.lexsort((documents, -scores))  # best first; equal scores by document id
    best: dict[int, tuple] = {}
    for row in order:
        document = int(documents[row])
        if document not in best:
            best[document] = (document, float(scores[row]), int(chunks[row]))
            if len(best) == k:
                break
    return [found if with_passage else found[:2] for found in best.values()]


def forget() -> None:
    """Drop this process's copy (tests: ids are used again after a rollback)."""
    with _lock:
        _games.clear()
        _checked.clear()


def _current(model: str, game_id: int | None) -> list[GameVectors]:
    """Each game searched, its copy brought up to date."""
    glance = (model, *_glance(game_id))
    if _checked.get(game_id) == glance:
        return [copy for game, copy in list(_games.items()) if game_id is None or game == game_id]
    keys = _keys(game_id)
    if game_id is None:
        for gone in set(_games) - set(keys):
            _games.pop(gone, None)
    else:
        if game_id not in keys:
            _games.pop(game_id, None)
    games = []
    for game, key in keys.items():
        copy = _games.get(game)
        if copy is None or copy.key != key or copy.model != model:
            with _lock:
                copy = _games.get(game)
                if copy is None or copy.key != key or copy.model != model:
                    reusable = copy if copy is not None and copy.model == model else None
                    copy = _games[game] = _load(game, key, reusable, model)
        games.append(copy)
    _checked[game_id] = glance
    return games


def _glance(game_id: int | None) -> tuple:
    """The content version's token and the highest vector id (of the game): what tells
    whether anything changed since, in two index lookups."""
    where, params = ("WHERE game_id = %s", [game_id]) if game_id is not None else ("", [])
    with reading_connection().cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT token FROM {VERSION_TABLE} WHERE id = 1), (SELECT MAX(id) FROM {TABLE} {where})",  # noqa: S608
            params,
        )
        return tuple(cursor.fetchone())


def _keys(game_id: int | None) -> dict[int, tuple[int, int, int]]:
    where, params = ("WHERE game_id = %s", [game_id]) if game_id is not None else ("", [])
    with reading_connection().cursor() as cursor:
        cursor.execute(
            f"SELECT game_id, COUNT(*), MAX(id), SUM(id) FROM {TABLE} {where} GROUP BY game_id",  # noqa: S608
            params,
        )
        return {game: (int(count), int(top), int(total)) for game, count, top, total in cursor.fetchall()}


def _load(game_id: int, key: tuple[int, int, int], copy: GameVectors | None, model: str) -> GameVectors:
    """The game's vectors: ``copy`` with the rows added since, when that is all that
    changed, else every row read again."""
    if copy is not None:
        count, top, total = copy.key
        added, added_key = _rows(game_id, after=top, model=model)
        if (count + added_key[0], max(top, added_key[1]), total + added_key[2]) == key:
            return _joined(copy, added, key, model)
    rows, read_key = _rows(game_id, after=0, model=model)
    return _joined(None, rows, read_key, model)


def _rows(game_id: int, *, after: int, model: str) -> tuple[tuple[list, ...], tuple[int, int, int]]:
    """The game's rows of ``model`` with an id above ``after`` (document ids, languages,
    types, vector bytes), and the count, highest id and id sum of all its rows above it."""
    with reading_connection().cursor() as cursor:
        cursor.execute(
            f"SELECT id, document_id, language, item_type, model, vector, chunk FROM {TABLE} "  # noqa: S608
            "WHERE game_id = %s AND id > %s",
            [game_id, after],
        )
        fetched = cursor.fetchall()
    ids = [row[0] for row in fetched]
    key = (len(ids), max(ids, default=0), sum(ids))
    kept = [row for row in fetched if row[4] == model and len(row[5]) == BYTES]
    columns = (
        [row[1] for row in kept],
        [row[2] for row in kept],
        [row[3] for row in kept],
        [row[5] for row in kept],
        [row[6] for row in kept],
    )
    return columns, key


def _joined(copy: GameVectors | None, rows: tuple[list, ...], key: tuple[int, int, int], model: str) -> GameVectors:
    documents, languages, item_types, blobs, chunks = rows
    vectors = np.frombuffer(b"".join(blobs), dtype="<f2").reshape(-1, DIMENSIONS).astype(np.float32)
    new = (
        vectors,
        np.array(documents, np.int64),
        np.array(languages, str),
        np.array(item_types, str),
        np.array(chunks, np.int16),
    )
    if copy is not None:
        old = (copy.vectors, copy.documents, copy.languages, copy.item_types, copy.chunks)
        new = tuple(np.concatenate([before, after]) for before, after in zip(old, new, strict=True))
    return GameVectors(key, model, *new)


def _forget_on_setting_change(setting, **kwargs):
    if setting == "RULESITE_SEMANTIC":
        forget()


setting_changed.connect(_forget_on_setting_change, dispatch_uid="search-vector-cache")
