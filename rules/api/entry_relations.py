"""Everything an entry's JSON shows about other items, for a whole page of entries at once.

Six ``values_list`` queries for any number of entries (cross-references with their
targets, the published entries linking here, published errata, published FAQ questions,
published children, translations), and no model instances: a page of 50 entries links
about a thousand items, and building a model for each (as ``prefetch_related`` does)
took most of the time of an API page. The entry page, which shows one entry, keeps
``EntryQuerySet.with_page_relations()``.

Only published items are loaded, except cross-reference targets, whose status is
loaded so that the serializer can hide a target unpublished a moment ago (before the
references are resolved again).
"""

from collections import defaultdict
from dataclasses import dataclass, field

from ..models import CrossReference, Entry, Erratum
from ..querysets import Status


@dataclass(frozen=True)
class Linked:
    """An entry as another entry's JSON shows it."""

    id: int
    title: str
    slug: str
    number: str = ""
    language: str = ""
    game_slug: str = ""
    status: str = Status.PUBLISHED

    @property
    def is_published(self) -> bool:
        return self.status == Status.PUBLISHED


@dataclass
class Relations:
    references: list = field(default_factory=list)  # (label, in_body, Linked or None)
    referrers: dict = field(default_factory=dict)  # entry id → Linked, in title order
    errata: list = field(default_factory=list)  # (id, title)
    questions: list = field(default_factory=list)  # (id, question)
    children: list = field(default_factory=list)  # Linked
    translations: list = field(default_factory=list)  # Linked


def load(entries: list[Entry]) -> dict[int, Relations]:
    """Entry id → its relations, in six queries whatever the number of entries."""
    ids = [entry.pk for entry in entries]
    found = {pk: Relations() for pk in ids}

    refs = (
        CrossReference.objects.filter(entry_id__in=ids)
        .order_by("entry_id", "in_body", "order", "pk")
        .values_list(
            "entry_id", "label", "in_body", "target_id", "target__title", "target__slug",
            "target__language", "target__game__slug", "target__status",
        )  # fmt: skip
    )
    for entry_id, label, in_body, target_id, title, slug, language, game_slug, status in refs:
        target = Linked(target_id, title, slug, "", language, game_slug, status) if target_id else None
        found[entry_id].references.append((label, in_body, target))

    referrers = (
        CrossReference.objects.filter(target_id__in=ids, entry__status=Status.PUBLISHED)
        .order_by("entry__title", "pk")
        .values_list("target_id", "entry_id", "entry__title", "entry__slug")
    )
    for target_id, entry_id, title, slug in referrers:
        # An entry linking twice (see-also and body) is listed once.
        found[target_id].referrers.setdefault(entry_id, Linked(entry_id, title, slug))

    # The order of Erratum's and Question's Meta.ordering, as the pages show them (within
    # an entry's one game: no join to sort games by name).
    affects = Erratum.affects.through.objects.filter(entry_id__in=ids, erratum__status=Status.PUBLISHED)
    for entry_id, erratum_id, title in affects.order_by(
        "erratum__language", "erratum__order", "erratum__title", "erratum_id"
    ).values_list("entry_id", "erratum_id", "erratum__title"):
        found[entry_id].errata.append((erratum_id, title))

    # faq builds on rules: its questions are reached through the reverse relation's table.
    related = Entry._meta.get_field("faq_questions").through.objects
    for entry_id, question_id, question in (
        related.filter(entry_id__in=ids, question__status=Status.PUBLISHED)
        .order_by("question__language", "question__order", "question__question", "question_id")
        .values_list("entry_id", "question_id", "question__question")
    ):
        found[entry_id].questions.append((question_id, question))

    children = (
        Entry.objects.published()
        .filter(parent_id__in=ids)
        .order_by("order", "pk")
        .values_list("parent_id", "pk", "title", "slug", "number")
    )
    for parent_id, pk, title, slug, number in children:
        found[parent_id].children.append(Linked(pk, title, slug, number))

    by_key = defaultdict(list)
    for entry in entries:
        by_key[entry.translation_key].append(entry.pk)
    versions = (
        Entry.objects.published()
        .filter(translation_key__in=list(by_key))
        .order_by("language", "pk")
        .values_list("translation_key", "pk", "title", "slug", "language", "game__slug")
    )
    for key, pk, title, slug, language, game_slug in versions:
        for entry_id in by_key[key]:
            if entry_id != pk:
                found[entry_id].translations.append(Linked(pk, title, slug, "", language, game_slug))
    return found
