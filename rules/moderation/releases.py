"""Publishing a release at once: every item it added or changed that is not public yet.

An import of a new version writes its new items as drafts by default (the admin's
upload); a moderator reviews the release's change list (``rules.admin.releases``) and
publishes the whole release with one button, or entry by entry from each entry's page.
Each item is saved on its own, so each gets its history version (who, "published with
<source> <version>"), and the derived data follows once for all of them (one unit of
work, ``rules.content.journal``).
"""

from dataclasses import dataclass

from django.db import transaction

from ..content.history import REASON_MAX_LENGTH, stamp
from ..content.journal import unit_of_work
from ..content.models import Entry, Erratum
from ..content.querysets import Status
from ..content.releases import Release, ReleaseChange
from ..content.version import lock_for_writing


@dataclass(frozen=True)
class Published:
    changed: int  # items published now
    already: int  # items the release lists that were public already
    withheld: int  # archived items: a moderator archived them on purpose, left alone


def items_of(changes) -> dict[str, list[int]]:
    """The ids of the items ``changes`` (a release's) added, changed or renumbered, by
    type: what is there to publish or to show as it is now."""
    ids: dict[str, list[int]] = {"entry": [], "erratum": [], "question": []}
    for change in changes:
        if change.item_id is not None and change.change != ReleaseChange.Kind.REMOVED:
            ids.setdefault(change.item_type, []).append(change.item_id)
    return ids


def publish_release(release: Release, user=None) -> Published:
    """Publish every draft or in-review item of the release's change list."""
    ids = items_of(release.changes.all())
    querysets = [
        Entry.objects.filter(pk__in=ids["entry"]),
        Erratum.objects.filter(pk__in=ids["erratum"]),
        # faq builds on rules: its questions are reached through the game, by name
        release.source.game.faq_questions.filter(pk__in=ids["question"]),
    ]
    reason = f"published with {release.source.title} {release.version}"[:REASON_MAX_LENGTH]
    changed = already = withheld = 0
    with transaction.atomic(), unit_of_work():
        lock_for_writing()  # before the rows (rules.content.version)
        for queryset in querysets:
            for obj in queryset.select_for_update():
                if obj.status == Status.PUBLISHED:
                    already += 1
                elif obj.status == Status.ARCHIVED:
                    withheld += 1
                else:
                    obj.status = Status.PUBLISHED
                    stamp(obj, reason, user)
                    obj.save()
                    changed += 1
    return Published(changed, already, withheld)
