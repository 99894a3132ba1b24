"""Cross-references: derive them from an entry, and resolve labels to entries.

An entry's ``see_also`` list and the ``[[Term]]`` / ``[[Term|shown text]]`` links of its
body are the source of truth; ``CrossReference`` rows mirror them so that "referenced
by" and the moderators' "wanted entries" list are plain queries.

Resolution matches a label to a *published* entry of the same game and language whose
title or alias has the same normalised form (``rules.shared.text.normalize_label``). It is the
first step of the derived-data pipeline (``rules.derived.pipeline``), run after every unit of
work for each game and language it wrote to, so a reference resolves by itself once
its target is published or renamed.
"""

from dataclasses import dataclass

from ..content.prepared import prepared_rows
from ..content.querysets import Status
from ..shared.bulk import insert_rows
from ..shared.text import normalize_label
from ..shared.wikilinks import body_links


def wanted_references(entry) -> dict[tuple[str, bool], tuple[str, int]]:
    """(normalised label, in body) → (label as written, order), from see_also and body links."""
    wanted: dict[tuple[str, bool], tuple[str, int]] = {}
    for in_body, labels in ((False, entry.see_also or []), (True, body_links(entry.body))):
        for order, label in enumerate(labels):
            label = str(label).strip()
            key = normalize_label(label)
            if key:
                wanted.setdefault((key, in_body), (label, order))
    return wanted


def rebuild_cross_references(entries, keys: dict[str, int] | None = None) -> None:
    """Replace the CrossReference rows of many saved entries at once (the importer's path).

    With ``keys`` (``resolution_keys()``) the new rows are born resolved, so the
    resolution pass that follows has (almost) nothing left to update.
    """
    from ..content.models import CrossReference

    keys = keys or {}
    ids = [entry.pk for entry in entries]
    for start in range(0, len(ids), 500):
        CrossReference.objects.filter(entry_id__in=ids[start : start + 500]).delete()
    # Plain rows, no model instances: 25,000 of them for a 10,000-entry import.
    insert_rows(
        CrossReference,
        ["entry_id", "label", "normalized_label", "order", "in_body", "target_id"],
        (
            (entry.pk, label, key, order, in_body, keys.get(key))
            for entry in entries
            for (key, in_body), (label, order) in wanted_references(entry).items()
        ),
    )


def sync_cross_references(entry) -> None:
    """Make the entry's CrossReference rows match its see_also list and body links."""
    from ..content.models import CrossReference

    wanted = wanted_references(entry)

    existing = {(ref.normalized_label, ref.in_body): ref for ref in entry.cross_references.all()}
    stale = [ref.pk for key, ref in existing.items() if key not in wanted]
    if stale:
        CrossReference.objects.filter(pk__in=stale).delete()

    to_create, to_update = [], []
    for (key, in_body), (label, order) in wanted.items():
        ref = existing.get((key, in_body))
        if ref is None:
            to_create.append(
                CrossReference(entry=entry, label=label, normalized_label=key, order=order, in_body=in_body)
            )
        elif (ref.label, ref.order) != (label, order):
            ref.label, ref.order = label, order
            to_update.append(ref)
    if to_create:
        CrossReference.objects.bulk_create(to_create)
    if to_update:
        CrossReference.objects.bulk_update(to_update, ["label", "order"])


@dataclass(frozen=True)
class LinkTarget:
    """The published entry a label resolves to, and its own page's path."""

    id: int
    title: str
    slug: str
    path: str  # Entry.canonical_url()


# The pipeline's reads: the same SQL for every game and language (rules.content.prepared).


@prepared_rows(int, str)
def _published_labels(game_id: int, language: str):
    from ..content.models import Entry

    published = Entry.objects.filter(game_id=game_id, language=language, status=Status.PUBLISHED)
    return published.order_by("pk").values_list("pk", "title", "aliases", "slug", "game__slug")


@prepared_rows(int, str)
def _labels(game_id: int, language: str):
    from ..content.models import CrossReference

    refs = CrossReference.objects.filter(entry__game_id=game_id, entry__language=language)
    return refs.values_list("pk", "normalized_label", "target_id")


def link_targets(game_id: int, language: str) -> dict[str, LinkTarget]:
    """Normalised label → the published entry it resolves to, for one game and language.

    The one resolution rule: see-also labels, ``[[links]]`` in bodies, errata and FAQ
    answers, the importer and the admin's preview all go through it.
    """
    from ..content.addresses import entry_path_template

    rows = _published_labels(game_id, language)
    if not rows:
        return {}
    template = entry_path_template(rows[0][4], language)
    targets = [
        (LinkTarget(pk, title, slug, template.format(slug=slug)), aliases) for pk, title, aliases, slug, _ in rows
    ]
    found: dict[str, LinkTarget] = {}
    # Titles win over aliases: an alias never steals a label that is another entry's title.
    for target, _aliases in targets:
        found.setdefault(normalize_label(target.title), target)
    for target, aliases in targets:
        for alias in aliases or []:
            found.setdefault(normalize_label(str(alias)), target)
    return found


def resolution_keys(game_id: int, language: str) -> dict[str, int]:
    """Normalised label → id of the published entry it resolves to (``link_targets``)."""
    return {key: target.id for key, target in link_targets(game_id, language).items()}


def resolve(game_id: int, language: str, targets: dict[str, LinkTarget] | None = None) -> int:
    """Point every cross-reference of one game and language at the entry its label names
    now (``link_targets``); return how many moved. A step of ``rules.derived.pipeline``."""
    if targets is None:
        targets = link_targets(game_id, language)
    keys = {key: target.id for key, target in targets.items()}
    refs = _labels(game_id, language)
    changed = [(pk, keys.get(label)) for pk, label, target_id in refs if keys.get(label) != target_id]
    _set_targets(changed)
    return len(changed)


def _set_targets(changed: list[tuple[int, int | None]], batch: int = 500) -> None:
    """``UPDATE … SET target_id = CASE id WHEN … END`` in batches.

    The same statement ``bulk_update()`` builds, written directly: for the 25,000
    references of a 10,000-entry import, building it through the ORM's expression
    machinery took longer than running it. Plain standard SQL, so SQLite and PostgreSQL
    run it alike; every value is a query parameter.
    """
    from django.db import connection

    from ..content.models import CrossReference

    table = connection.ops.quote_name(CrossReference._meta.db_table)
    with connection.cursor() as cursor:
        for start in range(0, len(changed), batch):
            rows = changed[start : start + batch]
            cases = " ".join("WHEN %s THEN CAST(%s AS BIGINT)" for _ in rows)
            ids = ", ".join("%s" for _ in rows)
            params = [value for pk, target in rows for value in (pk, target)] + [pk for pk, _ in rows]
            cursor.execute(
                f"UPDATE {table} SET target_id = CASE id {cases} END WHERE id IN ({ids})",  # noqa: S608
                params,
            )
