"""The change journal: what was written, in the writing transaction, and units of work.

Every write to content is recorded here as ``Change`` rows: which item (kind and id),
of which game and language, what happened (created, updated, renamed, published,
unpublished, deleted), the old and new slug or number where one changed, and when. The
rows have a monotonic id, so a reader of the journal keeps a cursor and asks for
``id > cursor`` (the API's change feed reads exactly that); they are written in the same
transaction as the write they describe, so they commit or roll back with it.

**How writes reach it.** Saves, deletions and the M2M links of errata and FAQ questions
through the ORM are recorded by signal handlers (``watch``): admin saves and deletions,
bulk admin actions, reverts, translation links, faq. Writers that bypass the ORM's
signals record their own rows (``record_many``: the importers' bulk inserts). So a model
knows nothing of the journal, and no write path can forget it.

**Units of work.** Writes are grouped: ``unit_of_work()`` is a transaction whose
changes are handed, at its end and before it commits, to the listeners (``on_flush``:
the derived-data pipeline, ``rules.derived.pipeline``), once for the whole unit. The admin makes
each POST a unit, an import each document; an entry's ``save()`` is a unit of its own
when no outer one is open. A change recorded outside any unit (a shell, a test, a
model without a ``save()`` of its own) is a unit by itself, flushed at once, so nothing
is ever left unflushed. ``deferred()`` is for a large import that commits batch by
batch: its units commit without flushing and the whole import is flushed once, at its
end, in its last unit (``last_unit()``): one transaction with what that unit writes
(the import's held rows made public), so readers see the import and everything derived
from it at once.

**Kept** ``KEEP_DAYS`` (90) days: ``manage.py prune_changes`` deletes older rows (a
client whose cursor is older starts again from a full copy; issue of the change feed).
"""

from collections.abc import Callable, Iterable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.db import models, transaction
from django.db.models.functions import Now
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save

from .querysets import Status

KEEP_DAYS = 90
# A change row's columns as record_many writes them (``at`` is the database's).
ROW_FIELDS = (
    "kind", "object_id", "game_id", "language", "action", "old_slug", "new_slug", "old_number", "new_number",
)  # fmt: skip


class Change(models.Model):
    """One recorded write to content (see the module docstring)."""

    class Kind(models.TextChoices):
        GAME = "game"
        SOURCE = "source"
        ENTRY = "entry"
        ERRATUM = "erratum"
        QUESTION = "question"

    class Action(models.TextChoices):
        CREATED = "created"
        UPDATED = "updated"
        RENAMED = "renamed"  # its slug or rule number changed (old and new in the row)
        PUBLISHED = "published"
        UNPUBLISHED = "unpublished"  # published before, now a draft, in review or archived
        DELETED = "deleted"

    id = models.BigAutoField(primary_key=True)  # monotonic: the cursor of whoever reads
    kind = models.CharField(max_length=16, choices=Kind.choices)
    object_id = models.BigIntegerField()
    game_id = models.BigIntegerField(null=True)  # not a key: a deleted game's rows stay
    language = models.CharField(max_length=8, blank=True)
    action = models.CharField(max_length=16, choices=Action.choices)
    old_slug = models.CharField(max_length=200, blank=True)
    new_slug = models.CharField(max_length=200, blank=True)
    old_number = models.CharField(max_length=32, blank=True)
    new_number = models.CharField(max_length=32, blank=True)
    # Written by the database (its clock, the transaction's time on PostgreSQL): rows are
    # inserted as plain values, many at a time (record_many).
    at = models.DateTimeField(db_default=Now())

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["game_id", "id"], name="change_by_game"),
            models.Index(fields=["kind", "object_id", "id"], name="change_by_item"),
            models.Index(fields=["at"], name="change_by_time"),  # pruning
        ]

    def __str__(self) -> str:
        return f"#{self.id} {self.kind} {self.object_id} {self.action}"


@dataclass
class Recorded:
    """A change as a unit of work hands it to its listeners: the row, and what the row
    does not keep (the changed fields, the instance written, a move's old game and
    language, and which derived data the writer already made itself)."""

    change: Change
    fields: frozenset = frozenset()  # the fields that changed ("*": all, for a new row)
    instance: object = None
    old_game_id: int | None = None
    old_language: str = ""
    derived: frozenset = frozenset()  # e.g. {"references", "search"}: done by the writer

    @property
    def kind(self) -> str:
        return self.change.kind


@dataclass
class Unit:
    changes: list[Recorded] = field(default_factory=list)
    flushes: int = 0


_unit: ContextVar[Unit | None] = ContextVar("journal_unit", default=None)
_deferred: ContextVar[list | None] = ContextVar("journal_deferred", default=None)
_listeners: list[Callable[[list[Recorded]], None]] = []


def on_flush(listener: Callable[[list[Recorded]], None]) -> None:
    """Call ``listener`` with a unit's changes at its end (the pipeline, at start-up)."""
    if listener not in _listeners:
        _listeners.append(listener)


def current_unit() -> Unit | None:
    return _unit.get()


@contextmanager
def unit_of_work():
    """A transaction whose changes are flushed to the listeners once, before it commits
    (joins the enclosing unit when there is one)."""
    if _unit.get() is not None:
        yield _unit.get()
        return
    unit = Unit()
    token = _unit.set(unit)
    try:
        with transaction.atomic():
            yield unit
            collector = _deferred.get()
            if collector is not None:
                collector.extend(unit.changes)  # flushed once, when the deferral ends
            else:
                _flush(unit)
    finally:
        _unit.reset(token)


@contextmanager
def deferred():
    """Units inside commit without flushing; all their changes are flushed once at the
    end (a large import, batch by batch: ``rules.importing.rows``)."""
    if _deferred.get() is not None or _unit.get() is not None:
        yield
        return
    collected: list[Recorded] = []
    token = _deferred.set(collected)
    try:
        yield
    finally:
        _deferred.reset(token)
    if collected:  # no last unit took them
        with unit_of_work() as unit:
            unit.changes[:0] = collected


@contextmanager
def last_unit():
    """Inside ``deferred()``: its last unit of work, which flushes every change the
    deferral collected together with its own, before it commits; what it writes and
    everything derived from all the deferral's writes commit at once. Outside a deferral,
    an ordinary unit."""
    collected = _deferred.get()
    if collected is None or _unit.get() is not None:
        with unit_of_work() as unit:
            yield unit
        return
    token = _deferred.set(None)
    try:
        with unit_of_work() as unit:
            yield unit
            unit.changes[:0] = collected  # flushed as this unit ends, before it commits
            collected.clear()
    finally:
        _deferred.reset(token)


def _flush(unit: Unit) -> None:
    """Hand the unit's changes to every listener; changes a listener records meanwhile
    (none do today) are handed on in a further round."""
    handed = 0
    while handed < len(unit.changes):
        batch = unit.changes[handed:]
        handed = len(unit.changes)
        unit.flushes += 1
        for listener in _listeners:
            listener(batch)


def _add(recorded: list[Recorded]) -> None:
    unit = _unit.get()
    if unit is not None:
        unit.changes.extend(recorded)
        return
    with unit_of_work() as own:  # outside any unit: a unit of its own, flushed now
        own.changes.extend(recorded)


def record(kind: str, action: str, obj=None, *, object_id=None, game_id=None, language="", **details) -> None:
    """Record one change (an explicit write; saves and deletions are recorded by
    ``watch``'s handlers)."""
    record_many([_recorded(kind, action, obj, object_id=object_id, game_id=game_id, language=language, **details)])


def record_many(recorded: Iterable[Recorded]) -> None:
    """Write the rows of many changes at once (a bulk writer's) and add them to the unit."""
    recorded = list(recorded)
    if not recorded:
        return
    from ..shared.bulk import insert_rows

    insert_rows(Change, ROW_FIELDS, ([getattr(item.change, name) for name in ROW_FIELDS] for item in recorded))
    _add(recorded)


def change_of(
    kind: str, action: str, obj=None, *, fields=frozenset(), derived=frozenset(), **values
) -> Recorded:
    """A change of ``obj`` (its id, game and language read from it) as ``record_many``
    takes it."""
    return _recorded(kind, action, obj, fields=fields, derived=derived, **values)


def _recorded(kind, action, obj=None, *, object_id=None, game_id=None, language="", fields=frozenset(),
              derived=frozenset(), old_game_id=None, old_language="", instance=None, **slugs) -> Recorded:  # fmt: skip
    if obj is not None:
        object_id = obj.pk if object_id is None else object_id
        game_id = _game_of(kind, obj) if game_id is None else game_id
        language = getattr(obj, "language", "") or language
    change = Change(kind=kind, object_id=object_id, game_id=game_id, language=language or "", action=action, **slugs)
    return Recorded(
        change, frozenset(fields), instance if instance is not None else obj, old_game_id, old_language,
        frozenset(derived),
    )  # fmt: skip


def _game_of(kind: str, obj) -> int | None:
    return obj.pk if kind == Change.Kind.GAME else getattr(obj, "game_id", None)


# --- watching the models: saves, deletions, links ---------------------------------------


@dataclass(frozen=True)
class Watched:
    kind: str
    tracked: tuple[str, ...]  # the fields whose change is a change of the item (attnames)


_watched: dict[type, Watched] = {}


def watch(model, kind: str, *, ignore: Iterable[str] = (), links: Iterable = ()) -> None:
    """Record every save and deletion of ``model``'s rows (and changes to its M2M
    ``links``, e.g. ``Erratum.affects``) as changes of ``kind``. Derived columns and
    timestamps (``ignore``) are not changes of the item."""
    skipped = {"updated_at", "created_at", *ignore}
    tracked = tuple(
        f.attname for f in model._meta.concrete_fields if not f.primary_key and f.name not in skipped
    )
    _watched[model] = Watched(kind, tracked)
    uid = f"journal-{model._meta.label_lower}"
    pre_save.connect(_before_save, sender=model, weak=False, dispatch_uid=f"{uid}-pre")
    post_save.connect(_saved, sender=model, weak=False, dispatch_uid=f"{uid}-post")
    post_delete.connect(_deleted, sender=model, weak=False, dispatch_uid=f"{uid}-delete")
    for relation in links:
        m2m_changed.connect(_linked, sender=relation.through, weak=False, dispatch_uid=f"{uid}-{relation.field.name}")


def _before_save(sender, instance, raw=False, **kwargs) -> None:
    if raw or instance.pk is None:
        instance._journal_before = None
        return
    watched = _watched[sender]
    instance._journal_before = sender._default_manager.filter(pk=instance.pk).values(*watched.tracked).first()


def _saved(sender, instance, created, raw=False, **kwargs) -> None:
    if raw:  # loaddata: nothing derived follows it either
        return
    watched = _watched[sender]
    before = getattr(instance, "_journal_before", None)
    instance._journal_before = None
    kind = watched.kind
    if created or before is None:
        record_many([_recorded(kind, Change.Action.CREATED, instance, fields={"*"})])
        return
    after = {name: getattr(instance, name) for name in watched.tracked}
    changed = {name for name in watched.tracked if before.get(name) != after[name]}
    if not changed:
        return
    recorded = []
    moved = {"game_id", "language"} & changed
    extra = {"old_game_id": before.get("game_id"), "old_language": before.get("language", "")} if moved else {}
    renamed = {"slug", "number"} & changed
    if renamed:
        recorded.append(
            _recorded(
                kind, Change.Action.RENAMED, instance, fields=changed,
                old_slug=before.get("slug") or "", new_slug=getattr(instance, "slug", "") or "",
                old_number=before.get("number") or "", new_number=getattr(instance, "number", "") or "", **extra,
            )  # fmt: skip
        )
    if "status" in changed:
        was, now = before["status"] == Status.PUBLISHED, after["status"] == Status.PUBLISHED
        if was != now:
            action = Change.Action.PUBLISHED if now else Change.Action.UNPUBLISHED
            recorded.append(_recorded(kind, action, instance, fields=changed, **extra))
    if changed - {"slug", "number", "status"} or not recorded:
        recorded.append(_recorded(kind, Change.Action.UPDATED, instance, fields=changed, **extra))
    record_many(recorded)


def _deleted(sender, instance, **kwargs) -> None:
    record(_watched[sender].kind, Change.Action.DELETED, instance, fields={"*"}, instance=None)


def _linked(sender, instance, action, reverse=False, model=None, pk_set=None, **kwargs) -> None:
    """An erratum's ``affects`` or a question's ``related_entries`` changed (from either
    side): a change of that erratum or question."""
    if action not in ("post_add", "post_remove", "post_clear"):
        return
    if type(instance) in _watched and not reverse:
        field = next(f.name for f in type(instance)._meta.many_to_many if f.remote_field.through is sender)
        record(_watched[type(instance)].kind, Change.Action.UPDATED, instance, fields={field})
        return
    # From the entry's side: each item whose links changed.
    owner = next((m for m in _watched if any(f.remote_field.through is sender for f in m._meta.many_to_many)), None)
    if owner is None:
        return
    field = next(f for f in owner._meta.many_to_many if f.remote_field.through is sender)
    if pk_set is None:  # a clear from the entry's side names no item: the entry's own page changed
        record(_watched[type(instance)].kind, Change.Action.UPDATED, instance, fields={field.related_query_name()})
        return
    items = owner._default_manager.filter(pk__in=pk_set)
    record_many(_recorded(_watched[owner].kind, Change.Action.UPDATED, item, fields={field.name}) for item in items)
