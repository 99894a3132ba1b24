"""Write parsed items: one transaction, idempotent, nothing deleted unless asked.

Items are matched to existing rows by slug within their game and language, so a
re-import of the same document changes nothing and a revised edition updates what
changed. Each created or changed row gets exactly one new history version (with the
import as its change reason); unchanged rows are not written at all. Rows the document
no longer contains are left alone, unless ``options.prune`` asks to delete the ones that
came from the same source.

A rules reference has hundreds of entries and the benchmark has 10,000, so the writer
works in bulk: one query loads the existing rows, new rows are inserted in batches
(parents before children), changed rows are updated in batches, cross-reference rows
are rebuilt only for entries whose labels or body changed, and references are resolved
once for the whole game and language at the end (so entries imported today resolve the
wanted references of yesterday's).

Reordering alone is not a content change: when a revised edition inserts an entry, the
``order`` of the entries after it is updated quietly (no history version, not reported).

A dry run does all the writing and rolls it back, so it reports exactly what a real
run would do.
"""

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.text import Truncator
from simple_history.utils import bulk_create_with_history, bulk_update_with_history

from ..history import REASON_MAX_LENGTH, history_paused, resnapshot_m2m, stamp
from ..models import Entry, Erratum, Game, Source
from ..references import deferred_resolution, rebuild_cross_references, request_resolution, resolution_keys
from ..search.index import index_objects as index_for_search
from ..text import normalize_label, slugify_title
from .report import Outcome, Warning
from .splitting import ParsedItem

BATCH = 500
# Written silently when only they change (see the module docstring).
QUIET_FIELDS = {"order"}
FOREIGN_KEYS = {"source", "parent"}


@dataclass
class Planned:
    item: ParsedItem
    slug: str
    values: dict
    parent_key: str | None = None  # normalised title of the parent entry, if any
    outcome: Outcome | None = None  # set when an existing row changes


def write_items(items: list[ParsedItem], options, report) -> None:
    with transaction.atomic():
        with deferred_resolution():
            game = _game(options)
            source = _source(game, options)
            writer = _Writer(game, source, options, report)
            writer.write(items)
            if options.prune and source is not None:
                writer.prune()  # deletes one by one: the search index follows by signal
            # Once for the whole game and language, with the prune's own request, when
            # the block ends.
            request_resolution(game.pk, options.language)
        for item_type, rows in writer.written.items():  # bulk writes send no signals
            index_for_search(item_type, rows)
        if options.dry_run:
            # Everything above ran for real, so the report is exact; now undo it.
            transaction.set_rollback(True)


class _Writer:
    def __init__(self, game: Game, source: Source | None, options, report):
        from faq.models import Question  # the importer writes FAQ questions too

        self.game, self.source, self.options, self.report = game, source, options, report
        self.reason = import_reason(options)
        self.models = {"entry": Entry, "erratum": Erratum, "question": Question}
        self.types = {model: type_ for type_, model in self.models.items()}
        self.kept: dict[str, set[str]] = defaultdict(set)  # type → slugs in the document
        self.written: dict[str, list] = defaultdict(list)  # type → rows created or changed
        self.created: set[tuple[str, int]] = set()  # (type, pk) of rows this import created

    # -- planning -------------------------------------------------------------------

    def _slug(self, item: ParsedItem) -> str:
        base = slugify_title(item.title)
        slug, counter = base, 2
        while slug in self.kept[item.type]:
            slug, counter = f"{base}-{counter}", counter + 1
        if slug != base:
            self.report.warnings.append(
                Warning(item.line, f"a second item titled {item.title!r}: imported separately as {slug!r}")
            )
        self.kept[item.type].add(slug)
        return slug

    def _plan(self, items: list[ParsedItem]) -> dict[str, list[Planned]]:
        source, page = self.source, self.options.page
        plans: dict[str, list[Planned]] = defaultdict(list)
        for order, item in enumerate(items):
            slug = self._slug(item)
            if item.type == "entry":
                values = {
                    "title": item.title,
                    "aliases": item.aliases,
                    "kind": item.entry_kind,
                    "number": item.number,
                    "order": order,
                    "body": item.body,
                    "see_also": item.cross_references,
                    "source": source,
                    "page": page,
                    "is_fragment": item.is_fragment,
                }
                parent_key = normalize_label(item.parent) if item.parent else None
                plans["entry"].append(Planned(item, slug, values, parent_key))
            elif item.type == "erratum":
                values = {
                    "title": item.title,
                    "corrected_text": item.body,
                    "kind": item.erratum_kind,
                    "source": source,
                    "page": page,
                    "order": order,
                }
                plans["erratum"].append(Planned(item, slug, values))
            elif item.type == "question":
                values = {
                    "question": item.title,
                    "answer": item.body,
                    "topic": item.topic,
                    "source": source,
                    "page": page,
                    "order": order,
                }
                plans["question"].append(Planned(item, slug, values))
        for type_, planned in plans.items():
            for plan in planned:
                self._fit(self.models[type_], plan)
        return plans

    def _fit(self, model, plan: Planned) -> None:
        """Shorten what is longer than its column (PostgreSQL would refuse it); a shortened
        title or question is kept whole as the first paragraph of the body."""
        body_field = {"entry": "body", "erratum": "corrected_text", "question": "answer"}[plan.item.type]
        for name, value in list(plan.values.items()):
            limit = getattr(model._meta.get_field(name), "max_length", None) if isinstance(value, str) else None
            if limit is None or len(value) <= limit:
                continue
            short = value[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
            plan.values[name] = short
            if name in ("title", "question"):
                plan.values[body_field] = f"{value}\n\n{plan.values[body_field]}".strip()
            self.report.warnings.append(
                Warning(plan.item.line, f"{name} shortened to {limit} characters: {short!r}")
            )

    # -- writing --------------------------------------------------------------------

    def write(self, items: list[ParsedItem]) -> None:
        plans = self._plan(items)
        entries = self._write_entries(plans["entry"])
        errata = self._write_simple("erratum", plans["erratum"])
        questions = self._write_simple("question", plans["question"])
        # After the entries: an erratum may affect an entry further down the document.
        # An erratum's "see also" labels name the entries it changes; a question's, the
        # entries it rules on.
        self._link_entries(plans["erratum"], errata, entries, "affects", "to mark as affected")
        self._link_entries(plans["question"], questions, entries, "related_entries", "to link")

    def _existing(self, type_: str) -> dict:
        model = self.models[type_]
        return {obj.slug: obj for obj in model.objects.filter(game=self.game, language=self.options.language)}

    def _write_entries(self, plans: list[Planned]) -> dict[str, Entry]:
        """Entries by normalised title (this document's and existing ones), after writing."""
        existing = self._existing("entry")
        saved: dict[int, Entry] = {}  # id(plan) → its row, once it has one
        parents = self._link_parents(plans)

        by_title: dict[str, Entry] = {}
        for entry in existing.values():
            by_title.setdefault(normalize_label(entry.title), entry)

        def parent_of(plan: Planned) -> Entry | None:
            if plan.parent_key is None:
                return None
            parent_plan = parents.get(id(plan))
            if parent_plan is not None:
                return saved.get(id(parent_plan)) or existing.get(parent_plan.slug)
            parent = by_title.get(plan.parent_key)
            if parent is None:
                self.report.warnings.append(
                    Warning(plan.item.line, f"{plan.item.title!r}: no parent section {plan.item.parent!r}")
                )
            return parent

        for plan in plans:
            if plan.slug in existing:
                saved[id(plan)] = existing[plan.slug]

        # New entries, parents before children: each round creates those whose parent
        # has a row (or who have none), so a child's first history version has its parent.
        new = [plan for plan in plans if plan.slug not in existing]
        outcomes: dict[str, Outcome] = {}
        created: list[Entry] = []
        while new:
            ready = [p for p in new if id(p) not in parents or id(parents[id(p)]) in saved]
            ready = ready or new  # cannot happen once cycles are cut; never loop forever
            objs = [
                Entry(
                    game=self.game,
                    language=self.options.language,
                    slug=plan.slug,
                    status=self.options.status,
                    parent=parent_of(plan),
                    **plan.values,
                )
                for plan in ready
            ]
            for plan, obj in zip(ready, self._create(Entry, objs), strict=True):
                saved[id(plan)] = obj
                outcomes[plan.slug] = Outcome("entry", plan.item.title, "created", plan.slug)
                created.append(obj)
            ready_ids = {id(p) for p in ready}
            new = [p for p in new if id(p) not in ready_ids]

        # Existing entries: compare, then update what changed.
        changed_refs: list[Entry] = list(created)
        updates: list[tuple[Entry, list[str]]] = []
        quiet: list[Entry] = []
        for plan in plans:
            obj = existing.get(plan.slug)
            if obj is None:
                continue
            fields = self._apply(obj, {**plan.values, "parent": parent_of(plan)}, plan)
            if fields == ["order"]:
                quiet.append(obj)
            elif fields:
                updates.append((obj, fields))
                if {"body", "see_also"} & set(fields):
                    changed_refs.append(obj)
        self._update(Entry, updates)
        if quiet:
            Entry.objects.bulk_update(quiet, ["order"], batch_size=BATCH)
        if changed_refs:
            rebuild_cross_references(changed_refs, resolution_keys(self.game.pk, self.options.language))
        self._record(plans, outcomes)
        for entry in saved.values():
            by_title[normalize_label(entry.title)] = entry
        return by_title

    @staticmethod
    def _link_parents(plans: list[Planned]) -> dict[int, Planned]:
        """id(child plan) → parent plan: the nearest item *above* it with the parent's
        title (a document may repeat a heading), else the first one anywhere in it."""
        first: dict[str, Planned] = {}
        for plan in plans:
            first.setdefault(normalize_label(plan.item.title), plan)
        latest: dict[str, Planned] = {}
        parents: dict[int, Planned] = {}
        for plan in plans:
            if plan.parent_key is not None:
                parent = latest.get(plan.parent_key) or first.get(plan.parent_key)
                if parent is not None and parent is not plan:
                    parents[id(plan)] = parent
            latest[normalize_label(plan.item.title)] = plan
        # A chain that comes back to where it started is cut where it closes.
        for plan in plans:
            seen, current = {id(plan)}, parents.get(id(plan))
            while current is not None:
                if id(current) in seen:
                    parents.pop(id(plan), None)
                    break
                seen.add(id(current))
                current = parents.get(id(current))
        return parents

    def _write_simple(self, type_: str, plans: list[Planned]) -> dict[str, object]:
        """Errata or questions: no parents, so one insert batch and one update batch."""
        model = self.models[type_]
        existing = self._existing(type_)
        outcomes: dict[str, Outcome] = {}
        new_objs, updates = [], []
        for plan in plans:
            obj = existing.get(plan.slug)
            if obj is None:
                obj = model(game=self.game, language=self.options.language, slug=plan.slug, status=self.options.status, **plan.values)
                new_objs.append(obj)
                outcomes[plan.slug] = Outcome(type_, plan.item.title, "created", plan.slug)
                continue
            fields = self._apply(obj, plan.values, plan)
            if fields and fields != ["order"]:
                updates.append((obj, fields))
            elif fields:
                model.objects.filter(pk=obj.pk).update(order=obj.order)
        saved = {obj.slug: obj for obj in self._create(model, new_objs)}
        self._update(model, updates)
        self._record(plans, outcomes)
        return {**existing, **saved}

    def _apply(self, obj, values: dict, plan: Planned) -> list[str]:
        """Set the changed values on ``obj``; return the changed field names."""
        changed = [key for key, value in values.items() if _current(obj, key) != _comparable(value)]
        content = [key for key in changed if key not in QUIET_FIELDS]
        if content:
            plan.outcome = Outcome(
                plan.item.type,
                plan.item.title,
                "updated",
                plan.slug,
                changes={key: (_as_text(getattr(obj, key)), _as_text(values[key])) for key in content},
            )
        for key in changed:
            setattr(obj, key, values[key])
        return changed

    def _create(self, model, objs: list) -> list:
        if not objs:
            return []
        saved = bulk_create_with_history(
            objs, model, batch_size=BATCH, default_change_reason=self.reason, default_user=self.options.user
        )
        self.written[self.types[model]].extend(saved)
        self.created.update((self.types[model], obj.pk) for obj in saved)
        return saved

    def _update(self, model, updates: list[tuple[object, list[str]]]) -> None:
        if not updates:
            return
        now = timezone.now()
        fields = {field for _, changed in updates for field in changed} | {"updated_at"}
        objs = []
        for obj, changed in updates:
            obj.updated_at = now
            if model is Entry and "body" in changed:
                obj.body_checked_at = now  # a new text is checked against errata anew
                fields.add("body_checked_at")
            objs.append(obj)
        fields = sorted(fields)
        bulk_update_with_history(
            objs, model, fields, batch_size=BATCH, default_change_reason=self.reason, default_user=self.options.user
        )
        self.written[self.types[model]].extend(objs)

    def _record(self, plans: list[Planned], created: dict[str, Outcome]) -> None:
        for plan in plans:
            outcome = created.get(plan.slug) or plan.outcome
            self.report.outcomes.append(
                outcome or Outcome(plan.item.type, plan.item.title, "unchanged", plan.slug)
            )

    def _link_entries(self, plans: list[Planned], rows: dict, entries: dict[str, Entry], relation: str, verb: str) -> None:
        by_name: dict[str, Entry] = {}
        for entry in entries.values():
            for name in entry.names:
                by_name.setdefault(normalize_label(str(name)), entry)
        for plan in plans:
            item, row = plan.item, rows[plan.slug]
            labels = list(dict.fromkeys([*item.affects, *item.cross_references]))
            if not labels:
                continue
            wanted: dict[int, Entry] = {}
            for label in labels:
                entry = by_name.get(normalize_label(label))
                if entry is None:
                    self.report.warnings.append(Warning(item.line, f"{item.title!r}: no entry {label!r} {verb}"))
                else:
                    wanted[entry.pk] = entry
            manager = getattr(row, relation)
            if {e.pk for e in manager.all()} == wanted.keys():
                continue
            if (plan.item.type, row.pk) in self.created:
                # A new row: its one "created" version gets the linked entries too.
                with history_paused(row):
                    manager.set(wanted.values())
                resnapshot_m2m(row)
            else:
                # An existing row: the change is a version of its own, by this import.
                stamp(row, self.reason, self.options.user)
                manager.set(wanted.values())

    # -- pruning --------------------------------------------------------------------

    def prune(self) -> None:
        """Delete this source's rows (same game and language) that the document lacks."""
        for type_, model in self.models.items():
            stale = model.objects.filter(game=self.game, language=self.options.language, source=self.source).exclude(
                slug__in=self.kept[type_]
            )
            for obj in stale:
                title = obj.question if type_ == "question" else obj.title
                self.report.outcomes.append(Outcome(type_, title, "deleted", obj.slug))
                stamp(obj, self.reason)
                obj.delete()


def _current(obj, key: str):
    """A field's value; a foreign key's id, so comparing 10,000 rows loads no related row."""
    if key in FOREIGN_KEYS:
        return getattr(obj, f"{key}_id")
    return getattr(obj, key)


def _comparable(value):
    return value.pk if hasattr(value, "_meta") else value


def _as_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def import_reason(options) -> str:
    """The change reason of every version an import writes: "import: SOURCE TITLE",
    shortened to fit the history's field (a source title may be 300 characters long)."""
    reason = f"import: {options.source.title if options.source else 'document'}"
    return Truncator(reason).chars(REASON_MAX_LENGTH)


def _game(options) -> Game:
    game = Game.objects.filter(slug=options.game).first()
    details = dict(options.game_details)
    if game is None:
        if not options.game_name:
            from .errors import ImportRulesError

            raise ImportRulesError(f"unknown game {options.game!r}: give its name (--game-name) to create it")
        game = Game(slug=options.game, name=options.game_name, **details)
        stamp(game, import_reason(options), options.user)
        game.save()
        return game
    wanted = {"name": options.game_name, **details} if options.game_name else details
    changed = {key: value for key, value in wanted.items() if getattr(game, key) != value}
    if changed:
        for key, value in changed.items():
            setattr(game, key, value)
        stamp(game, import_reason(options), options.user)
        game.save()
    return game


def _source(game: Game, options) -> Source | None:
    info = options.source
    if info is None:
        return None
    values = {
        "kind": info.kind,
        "version": info.version,
        "official": info.official,
        "url": info.url,
        "attribution": info.attribution,
    }
    source = Source.objects.filter(game=game, language=options.language, title=info.title).first()
    if source is None:
        source = Source(game=game, language=options.language, title=info.title, **values)
    elif not (info.update_existing and any(getattr(source, key) != value for key, value in values.items())):
        return source
    for key, value in values.items():
        setattr(source, key, value)
    stamp(source, import_reason(options), options.user)
    source.save()
    return source
