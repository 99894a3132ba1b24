"""The activity log: every recorded change to moderated content, newest first.

django-simple-history keeps one history table per model (Game, Source, Entry, Erratum,
FAQ Question). ``changes()`` merges them into one queryset with a UNION ALL of the
same few columns (type, version id, when, who, what happened, why, object id, game,
title), ordered newest first, so the database pages through all of them at once and
``Paginator`` counts and slices it like any queryset. Filters (user, type, game) and the
per-game scope are applied to each table before the union.

``rows()`` then dresses one page: who, whether the item still exists, and which fields
each version changed, compared with the version before it. That costs a fixed number of
queries per *type* on the page (the page's versions with the id of their previous
version, those previous versions, their tracked M2M rows, the items still present), plus
one for the users and one for the games: never one per row.

Models are named by their app label so that ``rules`` does not import ``faq``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models import CharField, F, OuterRef, Q, Subquery, Value
from django.utils.text import capfirst
from simple_history.models import HistoricalRecords

from ..content.history import tracked_fields, tracked_m2m_fields

#: Every type the log covers: kind → (model label, the field that names an item).
TRACKED = {
    "game": ("rules.Game", "name"),
    "source": ("rules.Source", "title"),
    "entry": ("rules.Entry", "title"),
    "erratum": ("rules.Erratum", "title"),
    "question": ("faq.Question", "question"),
}

#: simple-history's history_type → what a moderator calls it.
ACTIONS = {"+": "created", "~": "changed", "-": "deleted"}

NO_USER = "none"  # the user filter's value for changes made without a user (imports, code)

COLUMNS = [
    "act_kind", "act_id", "act_when", "act_user", "act_type", "act_reason", "act_object", "act_game", "act_title",
]


def model_for(kind: str) -> type[models.Model]:
    return apps.get_model(TRACKED[kind][0])


@dataclass
class Change:
    """One row of the log: one version of one item."""

    kind: str
    model: type[models.Model]
    version_id: int
    when: datetime
    user: object | None
    user_id: int | None
    action: str  # "created", "changed" or "deleted"
    reason: str
    object_id: int
    game_id: int | None
    title: str
    game: object | None = None
    exists: bool = False
    changed_fields: list[str] = field(default_factory=list)
    admin_url: str | None = None  # set by the page that shows the row

    @property
    def type_label(self) -> str:
        return capfirst(self.model._meta.verbose_name)


def changes(*, kinds=None, games=None, user=None, game=None) -> models.QuerySet:
    """All versions as dicts of ``COLUMNS``, newest first.

    ``kinds``: the types to include (default all); ``games``: the scope, a queryset or
    ids of games (None: every game); ``user``: a user id or ``NO_USER``; ``game``: one
    game id.
    """
    parts = []
    for kind in kinds if kinds is not None else TRACKED:
        model = model_for(kind)
        history = model.history.model
        game_column = "id" if kind == "game" else "game_id"
        rows = history.objects.order_by()  # no ordering inside a compound statement
        if games is not None:
            rows = rows.filter(**{f"{game_column}__in": games})
        if game is not None:
            rows = rows.filter(**{game_column: game})
        if user == NO_USER:
            rows = rows.filter(history_user__isnull=True)
        elif user is not None:
            rows = rows.filter(history_user_id=user)
        rows = rows.annotate(
            act_kind=Value(kind, output_field=CharField()),
            act_id=F("history_id"),
            act_when=F("history_date"),
            act_user=F("history_user_id"),
            act_type=F("history_type"),
            act_reason=F("history_change_reason"),
            act_object=F("id"),
            act_game=F(game_column),
            act_title=F(TRACKED[kind][1]),
        ).values(*COLUMNS)
        parts.append(rows)
    if not parts:
        return model_for("entry").history.model.objects.none().values(*COLUMNS)
    merged = parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]
    return merged.order_by("-act_when", "-act_id", "act_kind")


def rows(page) -> list[Change]:
    """The page's versions (dicts from ``changes()``) as ``Change`` rows, fully described."""
    result = [
        Change(
            kind=row["act_kind"],
            model=model_for(row["act_kind"]),
            version_id=row["act_id"],
            when=row["act_when"],
            user=None,
            user_id=row["act_user"],
            action=ACTIONS.get(row["act_type"], "changed"),
            reason=row["act_reason"] or "",
            object_id=row["act_object"],
            game_id=row["act_game"],
            title=row["act_title"] or "",
        )
        for row in page
    ]
    users = get_user_model()._default_manager.in_bulk({c.user_id for c in result if c.user_id})
    games = apps.get_model("rules.Game")._default_manager.in_bulk({c.game_id for c in result if c.game_id})
    for change in result:
        change.user = users.get(change.user_id)
        change.game = games.get(change.game_id)
    for kind in {c.kind for c in result}:
        _describe(kind, [c for c in result if c.kind == kind])
    return result


def _describe(kind: str, page_changes: list[Change]) -> None:
    """Existence and changed fields for the changes of one type (a fixed number of queries)."""
    model = model_for(kind)
    history = model.history.model
    existing = set(
        model._default_manager.filter(pk__in={c.object_id for c in page_changes}).values_list("pk", flat=True)
    )
    for change in page_changes:
        change.exists = change.object_id in existing

    edits = [c for c in page_changes if c.action == "changed"]
    if not edits:
        return
    older = history.objects.filter(id=OuterRef("id")).filter(
        Q(history_date__lt=OuterRef("history_date"))
        | Q(history_date=OuterRef("history_date"), history_id__lt=OuterRef("history_id"))
    )
    records = history.objects.filter(history_id__in=[c.version_id for c in edits]).annotate(
        previous_id=Subquery(older.order_by("-history_date", "-history_id").values("history_id")[:1])
    )
    records = {record.history_id: record for record in records}
    previous = history.objects.in_bulk(
        {r.previous_id for r in records.values() if r.previous_id}, field_name="history_id"
    )
    m2m = _m2m_values(model, [*records, *previous])
    fields = tracked_fields(model)
    for change in edits:
        record = records.get(change.version_id)
        before = previous.get(record.previous_id) if record and record.previous_id else None
        if before is None:
            continue  # the first version history kept: nothing to compare with
        change.changed_fields = [
            capfirst(f.verbose_name)
            for f in fields
            if getattr(before, f.attname) != getattr(record, f.attname)
        ] + [
            capfirst(f.verbose_name)
            for f in tracked_m2m_fields(model)
            if m2m[f.name].get(before.history_id, set()) != m2m[f.name].get(record.history_id, set())
        ]


def _m2m_values(model, version_ids) -> dict[str, dict[int, set]]:
    """For each tracked M2M field: version id → the related ids that version kept."""
    values: dict[str, dict[int, set]] = {}
    for m2m_field in tracked_m2m_fields(model):
        through = HistoricalRecords.m2m_models[m2m_field]
        target = f"{m2m_field.m2m_reverse_field_name()}_id"
        kept: dict[int, set] = {}
        for version_id, related_id in through.objects.filter(history_id__in=version_ids).values_list(
            "history_id", target
        ):
            kept.setdefault(version_id, set()).add(related_id)
        values[m2m_field.name] = kept
    return values
