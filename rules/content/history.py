"""Readable history and one-step revert, on top of django-simple-history.

Every model moderators edit (Game, Source, Entry, Erratum, Question) keeps historical
records; this module turns two of them into what a moderator reads ("Body: a word diff",
"See also: added Round, removed Phase", "Affects: added Exhaust") and puts an object
back to an earlier version.

Decisions:

- ``changes_between`` accepts historical records and live objects alike, so the same
  code renders "what this version changed" (previous record → record), "what a revert
  will do" (live object → record) and "what someone else changed while you were
  editing" (your version → the current one).
- Only fields people edit are shown: timestamps, ``body_checked_at`` and the history
  bookkeeping are skipped. Long text fields are word diffs (``rules.shared.diffing``), JSON
  lists are items added and removed (or "reordered"), foreign keys and tracked M2M
  relations are named by the related object's ``str()`` ("(deleted)" when it is gone),
  choices by their label.
- ``revert`` goes through ``obj.save()``, so the revert is itself a new version, by the
  moderator, with the reason "Reverted to the version of <date> (<who>)"; tracked M2M
  relations are set first with history paused, so the one new version holds them too.
  A revert that would change nothing writes nothing.
- Entry renames: ``Entry.save()`` treats a revert like any edit. Reverting a rename
  ("Attack" → "Assault", revert to "Attack") restores the old title and slug; the newer
  slug ("assault") becomes an old address that redirects to the entry, and the newer
  title stays as an alias, so links and cross-references written against it in the
  meantime keep resolving. A moderator who does not want that alias deletes it in a
  normal edit.
- Related rows that no longer exist cannot be restored: a deleted source or parent is
  left empty, deleted entries are left out of ``affects``/``related_entries``. A
  restored slug that another row took since is refused with a ``ValidationError``.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import models, router, transaction
from django.utils import timezone
from django.utils.formats import date_format, localize
from django.utils.text import Truncator, capfirst
from django.utils.translation import gettext
from simple_history.utils import (
    get_history_manager_from_history,
    get_history_model_for_model,
    get_m2m_field_name,
    get_m2m_reverse_field_name,
)

from ..shared.diffing import PageBudget, word_diff_html
from .version import lock_for_writing

# Words of unchanged text kept on each side of a change in a text diff (the rest is "…").
DIFF_CONTEXT_WORDS = 12

#: Long texts shown as word diffs.
TEXT_FIELDS = {"body", "corrected_text", "original_text", "answer", "question", "title"}
#: Not edited by people, or bookkeeping: never shown and never restored.
SKIPPED_FIELDS = {"id", "created_at", "updated_at", "body_checked_at"}
#: ``history_change_reason`` is a CharField(max_length=100).
REASON_MAX_LENGTH = 100
EMPTY = "—"


@dataclass
class FieldChange:
    """One changed field, ready for a template.

    ``kind`` is "text" (``diff`` is safe HTML with <del>/<ins>), "list"/"relation"
    (``added``/``removed`` names, ``reordered``), "mapping" (``added``/``removed`` as
    "key: value") or "value" (``old`` → ``new`` as plain text).
    """

    name: str
    label: str
    kind: str
    old: str = ""
    new: str = ""
    diff: str = ""
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    reordered: bool = False


# --- reading records and live objects alike -------------------------------------------


def model_of(obj) -> type[models.Model]:
    """The content model of a live object or a historical record."""
    return getattr(obj, "instance_type", None) or type(obj)


def is_record(obj) -> bool:
    return hasattr(obj, "history_id") and hasattr(obj, "instance_type")


def tracked_fields(model) -> list[models.Field]:
    """The concrete fields history keeps and people edit, in the model's order."""
    kept = {f.name for f in get_history_model_for_model(model).tracked_fields}
    return [
        f for f in model._meta.concrete_fields if f.name in kept and f.name not in SKIPPED_FIELDS and not f.primary_key
    ]


def tracked_m2m_fields(model) -> list[models.ManyToManyField]:
    return list(getattr(get_history_model_for_model(model), "_history_m2m_fields", []))


def m2m_ids(obj, m2m_field) -> list:
    """The related ids of ``m2m_field`` on a live object or as a record kept them."""
    if is_record(obj):
        target = get_m2m_reverse_field_name(m2m_field)
        return sorted(getattr(obj, m2m_field.name).values_list(f"{target}_id", flat=True))
    if obj.pk is None:
        return []
    return sorted(getattr(obj, m2m_field.name).values_list("pk", flat=True))


def latest_version(obj):
    """The newest historical record of ``obj`` (None if it has none)."""
    if obj is None or obj.pk is None:
        return None
    return obj.history.order_by("-history_date", "-history_id").first()


def previous_version(record):
    """The record before ``record`` (ties on the date broken by id)."""
    return (
        get_history_manager_from_history(record)
        .filter(
            models.Q(history_date__lt=record.history_date)
            | models.Q(history_date=record.history_date, history_id__lt=record.history_id)
        )
        .order_by("-history_date", "-history_id")
        .first()
    )


def who(record) -> str:
    """Who made a version: the user, else the change reason ("import: …"), else nobody named."""
    if record.history_user_id:
        user = record.history_user
        return (user.get_full_name() or user.get_username()) if user else gettext("(deleted user)")
    return record.history_change_reason or gettext("no user (a script or the system)")


def when(record) -> str:
    return date_format(timezone.localtime(record.history_date), "DATETIME_FORMAT")


# --- the diff -------------------------------------------------------------------------


def changes_between(older, newer, page: PageBudget | None = None) -> list[FieldChange]:
    """What changed from ``older`` to ``newer`` (historical records or live objects);
    ``page``: the work budget of every diff on the page that shows them
    (``rules.shared.diffing.PageBudget``)."""
    model = model_of(newer)
    changes = []
    for f in tracked_fields(model):
        old, new = getattr(older, f.attname), getattr(newer, f.attname)
        if old == new:
            continue
        changes.append(_field_change(f, old, new, page))
    for m2m in tracked_m2m_fields(model):
        old_ids, new_ids = m2m_ids(older, m2m), m2m_ids(newer, m2m)
        if old_ids != new_ids:
            names = _names(m2m.related_model, [*old_ids, *new_ids])
            changes.append(
                FieldChange(
                    name=m2m.name,
                    label=capfirst(m2m.verbose_name),
                    kind="relation",
                    added=[names[pk] for pk in new_ids if pk not in old_ids],
                    removed=[names[pk] for pk in old_ids if pk not in new_ids],
                )
            )
    return changes


def _field_change(f: models.Field, old, new, page: PageBudget | None = None) -> FieldChange:
    change = FieldChange(name=f.name, label=capfirst(f.verbose_name), kind="value")
    if f.name in TEXT_FIELDS:
        change.kind = "text"
        change.diff = word_diff_html(old or "", new or "", context=DIFF_CONTEXT_WORDS, page=page)
    elif isinstance(f, models.JSONField) and isinstance(old or [], list) and isinstance(new or [], list):
        change.kind = "list"
        old, new = [str(x) for x in old or []], [str(x) for x in new or []]
        change.added = [x for x in new if x not in old]
        change.removed = [x for x in old if x not in new]
        change.reordered = not change.added and not change.removed and sorted(old) == sorted(new)
        if not (change.added or change.removed or change.reordered):  # only repeats differ
            change.kind, change.old, change.new = "value", ", ".join(old) or EMPTY, ", ".join(new) or EMPTY
    elif isinstance(f, models.JSONField) and isinstance(old or {}, dict) and isinstance(new or {}, dict):
        change.kind = "mapping"
        old, new = old or {}, new or {}
        change.added = [f"{key}: {value}" for key, value in new.items() if old.get(key) != value]
        change.removed = [f"{key}: {value}" for key, value in old.items() if new.get(key) != value]
    else:
        change.old, change.new = _display(f, old), _display(f, new)
    return change


def _display(f: models.Field, value) -> str:
    if value is None or value == "":
        return EMPTY
    if f.is_relation:
        return _names(f.related_model, [value])[value]
    if f.choices:
        return str(dict(f.flatchoices).get(value, value))
    if isinstance(value, bool):
        return gettext("Yes") if value else gettext("No")
    return str(localize(value))


def _names(model, pks) -> dict:
    found = {obj.pk: str(obj) for obj in model._default_manager.filter(pk__in=set(pks))}
    return {pk: found.get(pk, gettext("(deleted)")) for pk in pks}


# --- recording who and why ------------------------------------------------------------


def stamp(obj, reason: str, user=None) -> None:
    """Who and why for the version the next save of ``obj`` records (no user: unknown)."""
    obj._change_reason = reason
    if user is not None:
        obj._history_user = user


@contextmanager
def history_paused(obj):
    """Saves and M2M changes of ``obj`` record no version inside this block (the
    caller folds them into one version, e.g. with ``resnapshot_m2m``)."""
    obj.skip_history_when_saving = True
    try:
        yield
    finally:
        del obj.skip_history_when_saving


# --- revert ---------------------------------------------------------------------------


def lock(obj) -> None:
    """Lock ``obj``'s row until the surrounding transaction ends (no-op outside one).

    PostgreSQL queues a second writer here; SQLite ignores ``select_for_update`` but has
    one writer at a time anyway.
    """
    model = type(obj)
    if transaction.get_connection(router.db_for_write(model)).in_atomic_block:
        lock_for_writing()  # before the row: writers queue in one order (rules.content.version)
        model._default_manager.select_for_update().filter(pk=obj.pk).values_list("pk", flat=True).first()


def revert_reason(record) -> str:
    """The stored reason; the date in one unambiguous format whatever the UI language."""
    date = timezone.localtime(record.history_date).strftime("%Y-%m-%d %H:%M")
    reason = gettext("Reverted to the version of %(date)s (%(who)s)") % {"date": date, "who": who(record)}
    return Truncator(reason).chars(REASON_MAX_LENGTH)


def revert(obj, record, user) -> bool:
    """Make ``obj`` equal to the historical ``record`` in one new version by ``user``.

    Returns whether anything changed; reverting to the current state writes nothing.
    Raises ``ValidationError`` when the restored values clash with another row (a slug
    taken since), and ``ValueError`` when ``record`` is not a version of ``obj``.
    """
    model = type(obj)
    if model_of(record) is not model or getattr(record, model._meta.pk.attname) != obj.pk:
        raise ValueError("The record is not a version of this object.")
    if not changes_between(obj, record):
        return False
    with transaction.atomic():
        for f in tracked_fields(model):
            value = getattr(record, f.attname)
            if f.is_relation and value is not None and not f.related_model._default_manager.filter(pk=value).exists():
                value = None  # the related row was deleted since; documented above
            setattr(obj, f.attname, value)
        obj.validate_constraints()
        with history_paused(obj):  # the M2M rows go into the one version below
            for m2m in tracked_m2m_fields(model):
                existing = m2m.related_model._default_manager.filter(pk__in=m2m_ids(record, m2m))
                getattr(obj, m2m.name).set(existing)
        stamp(obj, revert_reason(record), user)
        try:
            obj.save()
        finally:
            del obj._history_user, obj._change_reason
    return True


def resnapshot_m2m(obj) -> None:
    """Rewrite the tracked M2M rows of ``obj``'s newest version from the live rows.

    The admin saves the object (one version) and then its M2M fields; with history
    paused for the latter, this makes the one version hold the M2M state it ended with.
    """
    record = latest_version(obj)
    if record is None:
        return
    for m2m in tracked_m2m_fields(type(obj)):
        manager = getattr(record, m2m.name)
        manager.all().delete()
        through = getattr(obj, m2m.name).through
        names = [f.attname for f in through._meta.concrete_fields]
        rows = through._default_manager.filter(**{get_m2m_field_name(m2m): obj})
        manager.model._default_manager.bulk_create(
            [manager.model(history=record, **{name: getattr(row, name) for name in names}) for row in rows]
        )
