"""Keep the search index current: build documents from items, upsert, delete, rebuild.

Only published items are indexed. The index is the last step of the derived-data
pipeline (``rules.derived.pipeline``), which updates the items every unit of work wrote, from
the change journal; the importers index their bulk writes themselves, batch by batch,
and say so to the journal (a large import's held rows, drafts until its end, get their
documents made batch by batch and stored by ``add_documents`` when they are published).
``rebuild`` (``manage.py rebuild_search_index``) recreates the whole index from the
items, e.g. after a raw SQL change.

The typo vocabulary (``SearchWord``, see ``fuzzy``) changes with the documents, in the
same transaction: every function here that writes or deletes documents adds or removes
their words' counts. A game's deletion cascades to its documents in the database
without passing through here, so a ``pre_delete`` on Game removes them first.

Documents written here get their semantic vectors from the background worker
(``schedule()``, ``rules.search.semantic``); a deleted document's go with it (cascade).
"""

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from django.db import transaction
from django.db.models.signals import pre_delete

from ..content.querysets import Status
from ..shared.bulk import create_objects, insert_rows, update_rows
from ..shared.wikilinks import WIKI_LINK
from . import fuzzy
from .models import SearchDocument, SearchName, SearchWord
from .normalize import name_key, terms
from .tasks import schedule

BATCH = 500
_MARKUP = re.compile(r"[*_`#>|]+|\\\\(?=\S)|^\s*[-+]\s+|^\s*\d+[.)]\s+", re.MULTILINE)


def plain_text(markdown: str) -> str:
    """Markdown → the text a reader sees: link labels kept, markup and escapes dropped.

    Line breaks are kept (one per run of blank lines): search links a hit in a numbered
    paragraph to its rule (``rules.shared.anchors.rule_at``); snippets show them as spaces."""
    text = WIKI_LINK.sub(lambda m: m.group(2) or m.group(1), markdown or "")
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [label](url)
    text = _MARKUP.sub("", text)
    text = re.sub(r"[^\S\n]+", " ", text)
    return re.sub(r" ?\n\s*", "\n", text).strip()


def _models() -> dict[str, type]:
    from faq.models import Question

    from ..content.models import Entry, Erratum

    return {"entry": Entry, "erratum": Erratum, "question": Question}


def document_for(item_type: str, item) -> SearchDocument:
    """The index row for one published item (unsaved)."""
    if item_type == "entry":
        title, names, body = item.title, [item.title, *item.aliases], item.body
    elif item_type == "erratum":
        title, names, body = item.title, [item.title], f"{item.corrected_text}\n\n{item.original_text}"
    else:
        title, names, body = item.question, [item.question], f"{item.answer}\n\n{item.topic}"
    language = item.language
    text = plain_text(body)
    by_key: dict[str, str] = {}  # one name per exact-match key, the title first
    for name in names:
        by_key.setdefault(name_key(str(name)), str(name).replace("\n", " "))
    return SearchDocument(
        item_type=item_type,
        item_id=item.pk,
        game_id=item.game_id,
        language=language,
        slug=item.slug,
        number=getattr(item, "number", "") or "",
        title=title[:500],
        names="\n".join(by_key.values()),
        name_keys="\n".join(by_key),
        title_terms=" ".join(terms(" ".join(str(name) for name in names), language)),
        body_terms=" ".join(terms(text, language)),
        body_text=text,
        updated_at=item.updated_at,
    )


FIELDS = [
    "game_id", "language", "slug", "number", "title", "names", "name_keys",
    "title_terms", "body_terms", "body_text", "updated_at",
]  # fmt: skip
WORD_FIELDS = ["language", "names", "body_text"]  # what the typo vocabulary is made of


@contextmanager
def _words(vocabulary: fuzzy.Changes | None = None) -> Iterator[fuzzy.Changes]:
    """One transaction for documents and their words; the words' counts are written once
    at the end (a word in many documents of a large import: one row written, not one per
    batch), unless an enclosing call (``vocabulary``) writes them."""
    if vocabulary is not None:
        yield vocabulary
        return
    with transaction.atomic():
        vocabulary = fuzzy.Changes()
        yield vocabulary
        vocabulary.save()


def vocabulary() -> fuzzy.Changes:
    """Word counts to gather over many calls and write once (``save()``)."""
    return fuzzy.Changes()


def update_items(item_type: str, ids: Iterable[int], vocabulary: fuzzy.Changes | None = None) -> None:
    """Bring the index rows of these items up to date (published: upsert; else: delete)."""
    ids = list(ids)
    model = _models()[item_type]
    with _words(vocabulary) as vocabulary:
        for start in range(0, len(ids), BATCH):
            chunk = ids[start : start + BATCH]
            _index_chunk(item_type, list(model.objects.filter(pk__in=chunk)), set(chunk), vocabulary)


def index_objects(
    item_type: str, items, ids: list[int] | None = None, vocabulary: fuzzy.Changes | None = None
) -> None:
    """Index rows for these (loaded) items: published ones upserted, others removed.

    ``ids`` are all the items concerned (default: the given ones), so that an item no
    longer in ``items`` (unpublished, deleted) loses its row too. ``vocabulary``: the
    words' counts are the caller's to write (a large import writes them once, at its end).
    """
    by_id = {item.pk: item for item in items}
    ids = ids if ids is not None else list(by_id)
    with _words(vocabulary) as vocabulary:
        for start in range(0, len(ids), BATCH):
            chunk = ids[start : start + BATCH]
            # Each chunk's own items: not every item looked at for each chunk.
            chunk_items = [by_id[pk] for pk in chunk if pk in by_id]
            _index_chunk(item_type, chunk_items, set(chunk), vocabulary)


def add_documents(item_type: str, documents: list[SearchDocument], vocabulary: fuzzy.Changes | None = None) -> None:
    """Store index rows made beforehand (``document_for``) for items published now: a large
    import makes its held rows' documents batch by batch and stores them in its last
    transaction, where they become public (``rules.importing.rows``)."""
    with _words(vocabulary) as vocabulary:
        for start in range(0, len(documents), BATCH):
            chunk = {document.item_id: document for document in documents[start : start + BATCH]}
            _store_chunk(item_type, chunk, set(chunk), vocabulary)


def _index_chunk(item_type: str, items: list, chunk: set[int], vocabulary: fuzzy.Changes) -> None:
    documents = {
        item.pk: document_for(item_type, item)
        for item in items
        if item.pk in chunk and item.status == Status.PUBLISHED
    }
    _store_chunk(item_type, documents, chunk, vocabulary)


def _store_chunk(item_type: str, documents: dict, chunk: set[int], vocabulary: fuzzy.Changes) -> None:
    """The index rows of ``chunk`` (item ids) made what ``documents`` holds: new ones
    inserted, changed ones updated, the others' deleted; their words counted."""
    existing = {
        doc.item_id: doc for doc in SearchDocument.objects.filter(item_type=item_type, item_id__in=chunk)
    }
    gone = [doc for item_id, doc in existing.items() if item_id not in documents]
    if gone:
        SearchDocument.objects.filter(pk__in=[doc.pk for doc in gone]).delete()
        for doc in gone:
            vocabulary.remove(doc.language, doc.names, doc.body_text)
    new, changed = [], []
    for item_id, document in documents.items():
        current = existing.get(item_id)
        if current is None:
            new.append(document)
            vocabulary.add(document.language, document.names, document.body_text)
        elif any(getattr(current, field) != getattr(document, field) for field in FIELDS):
            document.pk = current.pk
            changed.append(document)
            if any(getattr(current, field) != getattr(document, field) for field in WORD_FIELDS):
                vocabulary.remove(current.language, current.names, current.body_text)
                vocabulary.add(document.language, document.names, document.body_text)
    create_objects(new, batch_size=BATCH)
    if changed:
        # Plain UPDATE statements: bulk_update() builds a CASE per row and column (1.5 s of
        # the 1,100 documents a new version of a 10,000-rule document changes).
        update_rows(SearchDocument, FIELDS, [(doc.pk, *(getattr(doc, name) for name in FIELDS)) for doc in changed])
        SearchName.objects.filter(document__in=[doc.pk for doc in changed]).delete()
    insert_rows(SearchName, NAME_ROW_FIELDS, (row for doc in new + changed for row in name_rows(doc)))
    if new or changed:
        schedule()  # their vectors, by the worker once this commits (rules.search.semantic)


NAME_ROW_FIELDS = ["document_id", "key", "alias", "position", "language", "game_id"]


def name_rows(document: SearchDocument) -> list[tuple]:
    """A document's rows for suggestions (``NAME_ROW_FIELDS``): its title and aliases,
    and the title's later word starts (position = how many words in)."""
    rows = []
    names, keys = document.names.split("\n"), document.name_keys.split("\n")
    for index, (name, key) in enumerate(zip(names, keys, strict=False)):
        parts = key.split(" ")
        for position in range(len(parts) if index == 0 else 1):
            suffix = " ".join(parts[position:])[:200]
            if suffix:
                alias = name[:300] if index else ""
                rows.append((document.pk, suffix, alias, position, document.language, document.game_id))
    return rows


def remove_items(item_type: str, ids: Iterable[int]) -> None:
    ids = list(ids)
    for start in range(0, len(ids), BATCH):
        chunk = ids[start : start + BATCH]
        remove_documents(SearchDocument.objects.filter(item_type=item_type, item_id__in=chunk))


def remove_documents(documents) -> None:
    """Delete these documents (a queryset) and their words' counts."""
    with _words() as vocabulary:
        rows = list(documents.values_list("pk", "language", "names", "body_text"))
        for start in range(0, len(rows), BATCH):
            batch = rows[start : start + BATCH]
            SearchDocument.objects.filter(pk__in=[pk for pk, *_ in batch]).delete()
            for _, language, names, body_text in batch:
                vocabulary.remove(language, names, body_text)


def rebuild() -> int:
    """Recreate the whole index from the published items; return how many rows it has."""
    with _words() as vocabulary:
        SearchDocument.objects.all().delete()
        SearchWord.objects.all().delete()  # counted again as the documents are written
        for item_type, model in _models().items():
            ids = model.objects.filter(status=Status.PUBLISHED).values_list("pk", flat=True).iterator()
            batch: list[int] = []
            for pk in ids:
                batch.append(pk)
                if len(batch) >= BATCH:
                    update_items(item_type, batch, vocabulary)
                    batch = []
            update_items(item_type, batch, vocabulary)
    schedule()  # every document is new: the worker embeds them all again (rules.search.semantic)
    return SearchDocument.objects.count()


def related_entries(question_ids: list[int]) -> dict[int, list[int]]:
    """FAQ question id → the ids of the entries it is linked to (its "related entries";
    the caller keeps those with a search document: the published ones): the question
    path's extra ways into those entries (``rules.search.service``). One query."""
    from faq.models import Question

    links: dict[int, list[int]] = {}
    # No join on the entries' status: only published entries have a search document,
    # which is what the caller maps these to (the join cost SQLite 20 ms at 50,000 entries).
    rows = Question.related_entries.through.objects.filter(question_id__in=question_ids).values_list(
        "question_id", "entry_id"
    )
    for question_id, entry_id in rows:
        links.setdefault(question_id, []).append(entry_id)
    return links


def connect_signals() -> None:
    """The one change the pipeline cannot see in time: a game's deletion cascades to its
    documents in the database, so their words' counts go first (``pre_delete``)."""
    from ..content.models import Game

    pre_delete.connect(_game_deleted, sender=Game, weak=False, dispatch_uid="search-delete-game")


def _game_deleted(sender, instance, **kwargs):
    """Its documents go by cascade, in the database: take their words with them first."""
    remove_documents(SearchDocument.objects.filter(game_id=instance.pk))
