"""The one row writer of both importers: upserts with history, in bulk, in one transaction
(a large import in batches, readers seeing it whole: "Transactions").

The text pipeline (``writing``) turns parsed items into ``Row``s, the canonical JSON
import (``canonical.writing``) turns an export's items into them; both hand them to a
``RowWriter`` (``row_writer()``), and only it writes entries, errata and FAQ questions.
What both importers promise, kept here once:

* **Transactions.** An import of up to ``COMMIT_EVERY`` rows is one transaction:
  everything or nothing. A larger one (a 20,000-entry glossary) commits every
  ``COMMIT_EVERY`` rows with their cross-references and search rows, parents before
  children across batches, so a moderator's save or another import waits for one batch
  (about a third of a second), never for the whole document; readers never wait (WAL,
  MVCC). Everything that can refuse a document (reading, parsing, validation) runs
  before the first batch; should the database fail between two batches, the batches
  before stay, and the same import run again completes it (an import is idempotent).
  ``progress(stage, done, total)`` hears of each batch.
* **Readers see a large import before or after, never half of it.** Every row a
  batched import makes public (a new row with the status published, a stored draft the
  import publishes) is written as a draft (a stored row keeps its status) *held back*
  by the import: ``held_by_import`` names it. Every public surface tells public by
  ``status`` (``published()``, the pages, the API, search, feeds, sitemaps, booklets,
  the change feed), so a held row is nowhere to be read or found: it is not indexed for
  search, no published entry's links or relations point at it, the public change feed
  does not announce it. Its one history version records it as the import leaves it
  (published). The import's last unit of work (``rules.content.journal.last_unit``)
  publishes every row it holds with one ``UPDATE`` per table, records the release and
  runs the derived-data pipeline over the whole import (resolution, rendering,
  relations, the search index, the public change feed) in the same transaction, so the
  content version, cached pages and every derived row change at the one commit. The held
  rows' search rows are made batch by batch and only stored there, and their instances
  get no derived fields written back, so that last transaction is mostly the pipeline,
  which ran after the last batch before too: other writers wait for it once (10,000 new
  entries on SQLite: 6 s on a busy machine, 10 s of CPU for the whole import either way).
  An import that stops midway leaves its held rows held (moderators see them in the admin,
  "held back by an unfinished import"); the same import run again takes them as its own
  (unchanged, no new version) and publishes them at its end. A smaller import holds
  nothing: its one transaction is all or nothing already.
  What readers *can* see of a large import as it runs is its changes to rows that are
  already public: a published entry whose text, title or number the document changes
  shows the new one from its batch on (each row whole: its text, HTML and search row
  change together), rows a new version renumbers are parked on a temporary slug
  (``free_slugs``) until their batch, and ``--prune`` deletes rows batch by batch; what
  other entries show of them (relations, navigation, corrections) follows at the end.
* **A dry run writes nothing.** It plans every row exactly as it would write it (the
  same matching, the same change lists, new rows as unsaved instances for what the
  import reads next) and reports that; so a preview of a large document never holds
  the database's write lock (SQLite) or the content version's (PostgreSQL) while
  moderators work.
* **Unchanged rows are not written.** A created or changed row gets exactly one history
  version, with the import's change reason and user, and that version holds the row's
  relations (an erratum's ``affects``, a question's ``related_entries``) as they ended.
  The caller matches rows by natural key and gives the stored row (``Row.obj``).
* **Changes are reported field by field as text** (``changes_of``, ``as_text``): an
  entry by its slug, a source by its title, booleans as yes/no, lists joined by commas.
  Fields in ``quiet`` (the text importer's ``order``) are written without a version
  and not reported when nothing else changed.
* **Parents before children** (``parents_first``): new entries are inserted level by
  level, so a child's first version already has its parent; a parent chain that loops
  is the caller's to refuse (JSON) or cut (text) before writing.
* **Texts are written as given** (the text pipeline has normalised them already; a JSON
  export holds stored texts exactly).
* **Derived data follows in bulk**, as ``save()`` would have made it: the texts' HTML
  rendered as they are written (``rules.derived.rendering``; a ``[[link]]`` to an entry this
  import creates is rendered again by the resolution at the end), the cross-reference
  rows of entries whose labels or body changed rebuilt, born resolved against the
  entries as they are once written (held ones included), the search index updated for
  every public row written (bulk writes send no signals; held rows are indexed by the
  pipeline once published), and every game and language written to resolved once at
  the end.
* **Pruning** (``delete``) deletes row by row: each gets its "deleted" version with the
  reason, and the signals take it out of the search index and the resolution.

The importer, like the search index and the admin, uses ``faq`` explicitly (FAQ
questions are imported with the rest); ``rules`` models and querysets never do.
"""

import json
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.db import connection
from django.db.models import Max, Q
from django.utils import timezone
from simple_history.utils import (
    get_history_manager_for_model,
    get_m2m_field_name,
    get_m2m_reverse_field_name,
)

from faq.models import Question

from ..content.history import stamp, tracked_m2m_fields
from ..content.journal import Change, change_of, deferred, last_unit, record_many, unit_of_work
from ..content.models import Entry, EntryRedirect, Erratum, Source
from ..content.querysets import Status
from ..derived.references import link_targets, rebuild_cross_references, resolution_keys
from ..derived.rendering import render_fields, spec_for
from ..search.index import add_documents, document_for, index_objects
from ..search.index import vocabulary as search_vocabulary
from ..shared.bulk import create_objects, update_rows
from ..shared.text import normalize_label
from .report import ImportReport, Outcome

BATCH = 500
# What the row writer derives itself, batch by batch, for what it wrote: the
# cross-reference rows (born resolved) and the search rows. The pipeline does the rest.
DERIVED_BY_WRITER = frozenset({"references", "search"})
# Rows per transaction of a large import (row_writer): about a third of a second of writing.
COMMIT_EVERY = 500
# After each of its transactions a large import on SQLite waits this long: another writer
# waiting for the lock (a moderator's save) polls for it (SQLite's busy handler sleeps
# 1, 2, 5 … up to 100 ms between tries), and would otherwise lose the race to the next
# batch again and again; in a gap of 60 ms a new waiter always gets in, a long-waiting
# one within two gaps. PostgreSQL grants its locks in the order they were asked for.
YIELD_SECONDS = 0.06
MODELS = {"entry": Entry, "erratum": Erratum, "question": Question}
TEXT_FIELD = {"entry": "body", "erratum": "corrected_text", "question": "answer"}  # shown in a preview
TYPES = {model: type_ for type_, model in MODELS.items()}
# The order rows are pruned in: what points at entries first, then entries.
DELETE_ORDER = ("question", "erratum", "entry", "source")


@dataclass(eq=False)
class Row:
    """One entry, erratum or question an import writes."""

    type: str  # entry | erratum | question
    title: str  # as the report names it
    slug: str
    language: str
    values: dict  # model field → value (a foreign key as its object, or None)
    obj: object | None = None  # the stored row; the new one once created
    defaults: dict = field(default_factory=dict)  # set on a new row only (the text import's status)
    parent: "Row | None" = None  # an entry's parent when that is a row of this import too
    relations: dict[str, list] | None = None  # M2M field → the entries it links; None: leave it
    outcome: Outcome | None = None
    item: object = None  # what the caller made the row from (a parsed item, an export's item)

    def wanted(self) -> dict:
        """The values with the parent row's object in place of the parent row."""
        if self.parent is None:
            return self.values
        return {**self.values, "parent": self.parent.obj}


class ParentLoop(Exception):
    """A chain of parents that comes back to where it started: ``chain`` ends with the
    item it started from."""

    def __init__(self, chain: list):
        self.chain = chain
        super().__init__(chain)


def parents_first(items: list, parent_of: Callable) -> list:
    """``items`` in their order, except that a parent among them comes before its
    children; ``parent_of(item)`` is the item's parent among ``items``, or None. Raises
    ``ParentLoop`` where a chain of parents loops."""
    done: set[int] = set()
    ordered: list = []
    for item in items:
        chain: list = []
        current = item
        while current is not None and id(current) not in done:
            if any(link is current for link in chain):
                start = next(i for i, link in enumerate(chain) if link is current)
                raise ParentLoop([*chain[start:], current])
            chain.append(current)
            current = parent_of(current)
        for link in reversed(chain):
            done.add(id(link))
            ordered.append(link)
    return ordered


def as_text(value) -> str:
    """A field's value as a reviewer reads it in a before/after diff."""
    if value is None:
        return ""
    if isinstance(value, Entry):
        return value.slug
    if isinstance(value, Source):
        return value.title
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(as_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def changes_of(obj, values: dict) -> dict[str, tuple[str, str]]:
    """Field → (before, after) as text, for the values that differ from the row's.

    A foreign key is compared by id, so comparing thousands of rows loads no related row."""
    opts = type(obj)._meta
    changes: dict[str, tuple[str, str]] = {}
    for name, value in values.items():
        model_field = opts.get_field(name)
        if model_field.is_relation:
            if getattr(obj, model_field.attname) != (value.pk if value is not None else None):
                changes[name] = (as_text(getattr(obj, name)), as_text(value))
        elif getattr(obj, name) != value:
            changes[name] = (as_text(getattr(obj, name)), as_text(value))
    return changes


@contextmanager
def row_writer(
    report: ImportReport,
    *,
    reason: str,
    user=None,
    quiet: Iterable[str] = (),
    dry_run: bool = False,
    size: int = 0,
    progress: Callable[[str, int, int], None] | None = None,
) -> Iterator["RowWriter"]:
    """One import's writer, and its transactions (module docstring, "Transactions"):

    - a **dry run** writes nothing at all: the writer plans every row as it would write
      it and reports that, so a preview never holds the database;
    - an import of up to ``COMMIT_EVERY`` rows (``size``, the items it brings) is **one
      transaction**: everything or nothing is written;
    - a larger one commits every ``COMMIT_EVERY`` rows, with their cross-references and
      search rows, so other writers (a moderator saving, another import) wait a batch,
      not the whole import; ``progress(stage, done, total)`` hears of each batch. What it
      makes public stays held back until its last unit of work publishes all of it at
      once, with the derived data of the whole import (module docstring, "Readers see a
      large import before or after").

    Every row written is recorded in the change journal (``rules.content.journal``), and the
    derived-data pipeline brings the rest (resolution, rendering of links, relations …)
    up to date at the end."""
    writer = RowWriter(
        report, reason=reason, user=user, quiet=quiet, plan_only=dry_run,
        batched=not dry_run and size > COMMIT_EVERY, total=size, progress=progress,
    )  # fmt: skip
    if dry_run:
        yield writer
        return
    if not writer.batched:
        with unit_of_work():  # one transaction; derived data follows before it commits
            yield writer
            writer.finish()
        return
    with deferred():  # a unit per batch; derived data follows once, in the last
        yield writer
        if progress is not None:  # before the last unit: its own write must commit now
            progress("linking", writer.done, writer.total)
        with last_unit():  # held rows published, the release, the pipeline: one commit
            writer.finish()


class RowWriter:
    def __init__(
        self,
        report: ImportReport,
        *,
        reason: str,
        user=None,
        quiet: Iterable[str] = (),
        plan_only: bool = False,
        batched: bool = False,
        total: int = 0,
        progress: Callable[[str, int, int], None] | None = None,
    ):
        self.report, self.reason, self.user = report, reason, user
        self.quiet = frozenset(quiet)
        self.plan_only, self.batched = plan_only, batched
        self.total, self.done, self.progress = total, 0, progress
        # A batched import holds back what it makes public until its end (module docstring).
        self.hold = uuid.uuid4() if batched else None
        self.held: dict[str, list] = defaultdict(list)  # type → rows held back by this import
        self._documents: dict[str, list] = defaultdict(list)  # their search rows, made batch by batch
        self._at_end: list[Callable[[], None]] = []
        self.written: dict[str, list] = defaultdict(list)  # type → rows created or changed
        self.references: list[Entry] = []  # entries whose labels or links changed
        self.languages: set[tuple[int, str]] = set()  # (game id, language) written to
        self._targets: dict[tuple[int, str], dict] = {}
        self._keys: dict[tuple[int, str], dict[str, int]] = {}  # a batched import's resolution keys
        # A batched import's search words: their counts written once at the end, not per
        # batch (the typo vocabulary, rules.search.fuzzy; should the import stop between
        # batches, manage.py rebuild_search_index counts them again).
        self._vocabulary = search_vocabulary() if batched else None

    # -- single rows: a game, a source ---------------------------------------------------

    def save_one(
        self,
        type_: str,
        model,
        obj,
        identity: dict,
        values: dict,
        title: str,
        slug: str = "",
        *,
        report: bool = True,
    ):
        """Create or update one row with ``save()``, once and only if something changed."""
        if obj is None:
            obj = model(**identity, **values)
            outcome = Outcome(type_, title, "created", slug)
        else:
            changes = changes_of(obj, values)
            if not changes:
                if report:
                    self.report.outcomes.append(Outcome(type_, title, "unchanged", slug))
                return obj
            for name in changes:
                setattr(obj, name, values[name])
            outcome = Outcome(type_, title, "updated", slug, changes)
        if not self.plan_only:
            stamp(obj, self.reason, self.user)
            obj.save()
        if report:
            self.report.outcomes.append(outcome)
        return obj

    # -- entries, errata, questions in bulk -----------------------------------------------

    def write(self, game, type_: str, rows: list[Row]) -> None:
        """Create, update or leave alone each row; one outcome per row, in their order.
        A dry run plans them; a large import writes them a batch per transaction."""
        if self.plan_only:
            self._plan(game, type_, rows)
        elif not self.batched:
            self._write(game, type_, rows)
        else:
            # Parents first across batches: a new row's new parent is written before it.
            ordered = parents_first(rows, lambda row: row.parent)
            for start in range(0, len(ordered), COMMIT_EVERY):
                with unit_of_work():  # committed now; the pipeline runs after the last batch
                    self._write(game, type_, ordered[start : start + COMMIT_EVERY])
                    self._derive_written()
                self.done += len(ordered[start : start + COMMIT_EVERY])
                if self.progress is not None:
                    self.progress("writing", self.done, self.total)
                if connection.vendor == "sqlite":
                    time.sleep(YIELD_SECONDS)
        self.report.outcomes.extend(row.outcome for row in rows)  # in the document's order

    def _plan(self, game, type_: str, rows: list[Row]) -> None:
        """What ``_write`` would do, without writing: the same outcomes and the same
        in-memory rows (a new row is an unsaved instance) for what the import reads next."""
        model = MODELS[type_]
        current = self._current_relations(model, [row for row in rows if row.obj is not None and row.relations])
        for row in parents_first(rows, lambda row: row.parent):
            if row.obj is None:
                row.obj = model(game=game, language=row.language, slug=row.slug, **row.defaults, **row.wanted())
                row.outcome = Outcome(type_, row.title, "created", row.slug, text=row.values.get(TEXT_FIELD[type_], ""))
                continue
            obj, values = row.obj, row.wanted()
            _as_meant(obj)
            changes = changes_of(obj, values)
            for name, targets in (row.relations or {}).items():
                before = current.get((name, obj.pk), {})
                if set(before) != {entry.pk for entry in targets}:
                    changes[name] = (as_text(sorted(before.values())), as_text(sorted(e.slug for e in targets)))
            for name in changes:
                if name in values:
                    setattr(obj, name, values[name])
            content = {name: change for name, change in changes.items() if name not in self.quiet}
            if content:
                row.outcome = Outcome(type_, row.title, "updated", row.slug, content)
            else:
                row.outcome = Outcome(type_, row.title, "unchanged", row.slug)

    def _write(self, game, type_: str, rows: list[Row]) -> None:
        model = MODELS[type_]
        new = [row for row in rows if row.obj is None]
        stored = [row for row in rows if row.obj is not None]
        current = self._current_relations(
            model, [row for row in stored if row.relations is not None]
        )
        for level in _levels(new):
            objs = [
                model(
                    game=game, language=row.language, slug=row.slug, **row.defaults, **row.wanted()
                )
                for row in level
            ]
            for obj in objs:
                self._hold_if_needed(TYPES[model], obj, Status.DRAFT)
            for row, obj in zip(level, self._create(model, objs), strict=True):
                row.obj = obj
                row.outcome = Outcome(type_, row.title, "created", row.slug, text=row.values.get(TEXT_FIELD[type_], ""))

        updates: list[tuple[object, list[str]]] = []
        quiet: list = []
        marked: list = []  # rows held or let go with no other change: two columns, no version
        relinked: list[Row] = [row for row in new if row.relations and any(row.relations.values())]
        for row in stored:  # after the new rows: a parent may be one of them
            obj, values = row.obj, row.wanted()
            stored_status, was_held = obj.status, obj.held_by_import is not None
            _as_meant(obj)
            changes = changes_of(obj, values)
            for name, targets in (row.relations or {}).items():
                before = current.get((name, obj.pk), {})
                if set(before) != {entry.pk for entry in targets}:
                    changes[name] = (
                        as_text(sorted(before.values())),
                        as_text(sorted(e.slug for e in targets)),
                    )
            if changes.keys() & (row.relations or {}).keys():
                relinked.append(row)
            content = {name: change for name, change in changes.items() if name not in self.quiet}
            fields = [name for name in changes if name in values]
            for name in fields:
                setattr(obj, name, values[name])
            visibility = self._hold_if_needed(type_, obj, stored_status, was_held)
            if content:
                updates.append((obj, [*fields, *(name for name in visibility if name not in fields)]))
                row.outcome = Outcome(type_, row.title, "updated", row.slug, content)
            else:
                if fields:
                    quiet.append(obj)
                if visibility:
                    marked.append(obj)
                row.outcome = Outcome(type_, row.title, "unchanged", row.slug)
        self._update(model, updates)
        if quiet:
            _update_columns(model, quiet, sorted(self.quiet))
        self._mark(model, marked)
        self._relink(model, relinked)
        self._snapshot_relations(model, [row.obj for row in new] + [obj for obj, _ in updates])

    # -- holding back what a batched import makes public ----------------------------------

    def _hold_if_needed(self, type_: str, obj, stored_status: str, was_held: bool = False) -> list[str]:
        """Hold ``obj`` back if this import makes it public and commits in batches: it
        keeps ``stored_status`` (a new row: draft) and names this import until the end
        (``publish_held``). A row an unfinished import held that this one does not hold is
        let go: its status is written as this import leaves it. The columns that changed."""
        if self.hold is not None and obj.status == Status.PUBLISHED and (was_held or stored_status != Status.PUBLISHED):
            obj.status, obj.held_by_import = stored_status, self.hold
            self.held[type_].append(obj)
            return ["status", "held_by_import"]
        if was_held:
            obj.held_by_import = None
            return ["status", "held_by_import"]
        return []

    def _mark(self, model, objs: list) -> None:
        """Write the status and hold of rows that changed nothing else (a row an unfinished
        import held, taken over): no version (it has its one), published now if this import
        does not hold it."""
        if not objs:
            return
        _update_columns(model, objs, ["held_by_import", "status"])
        record_many(_published(TYPES[model], obj) for obj in objs if obj.status == Status.PUBLISHED)

    def at_end(self, call: Callable[[], None]) -> None:
        """Run ``call`` in the import's last unit of work (a batched import's, with its held
        rows published and the pipeline run); at once in one transaction or a dry run."""
        if self.hold is None:
            call()
        else:
            self._at_end.append(call)

    def publish_held(self) -> None:
        """Publish every row this import held back: one ``UPDATE`` per table, in the last
        unit of work, with the search rows made for them batch by batch; each is recorded
        as published, so the pipeline links to it and announces it with everything else
        the import did (and indexes one a moderator changed meanwhile)."""
        for type_, objs in self.held.items():
            model = MODELS[type_]
            rows = model._default_manager.filter(held_by_import=self.hold)
            still = dict(rows.values_list("pk", "updated_at"))  # a moderator may have deleted or edited one
            rows.update(status=Status.PUBLISHED, held_by_import=None)
            ready = [doc for doc in self._documents.get(type_, ()) if still.get(doc.item_id) == doc.updated_at]
            add_documents(type_, ready, vocabulary=self._vocabulary)
            indexed = {doc.item_id for doc in ready}
            for obj in objs:
                obj.status, obj.held_by_import = Status.PUBLISHED, None
            record_many(_published(type_, obj, indexed=obj.pk in indexed) for obj in objs if obj.pk in still)
        self.held.clear()
        self._documents.clear()

    def _targets_for(self, game_id: int, language: str) -> dict:
        """Where ``[[links]]`` point before the import (``rules.derived.references.link_targets``)."""
        key = (game_id, language)
        if key not in self._targets:
            self._targets[key] = link_targets(game_id, language)
        return self._targets[key]

    def _render(self, obj) -> None:
        render_fields(obj, self._targets_for(obj.game_id, obj.language))

    def _create(self, model, objs: list) -> list:
        if not objs:
            return []
        for obj in objs:
            self._render(obj)
        saved = create_objects(objs, batch_size=BATCH)
        self._versions(model, saved, "+")
        self._written(model, saved)
        record_many(
            self._kept(change_of(TYPES[model], Change.Action.CREATED, obj, fields={"*"}, derived=DERIVED_BY_WRITER))
            for obj in saved
        )
        if model is Entry:
            self.references.extend(saved)
        return saved

    def _update(self, model, updates: list[tuple[object, list[str]]]) -> None:
        if not updates:
            return
        now = timezone.now()
        spec = spec_for(model)
        fields = {name for _, changed in updates for name in changed} | {"updated_at"}
        objs = []
        for obj, changed in updates:
            obj.updated_at = now
            if model is Entry and "body" in changed:
                obj.body_checked_at = now  # a new text is checked against errata anew
                fields.add("body_checked_at")
            if set(spec.texts) & set(changed):
                self._render(obj)
                fields.update([*spec.outputs, "html_fingerprint"])
            if model is Entry and {"body", "see_also"} & set(changed):
                self.references.append(obj)
            objs.append(obj)
        _update_columns(model, objs, sorted(fields))
        self._versions(model, objs, "~")
        self._written(model, objs)
        record_many(
            self._kept(
                change_of(TYPES[model], Change.Action.UPDATED, obj, fields=set(changed), derived=DERIVED_BY_WRITER)
            )
            for obj, changed in updates
        )

    def _kept(self, recorded):
        """A change as the journal keeps it. A batched import's rows get no derived fields
        written back (``rules.derived.pipeline``): read again in its last transaction,
        where others wait for it, 20,000 rows' relations cost 2 s, for instances no caller
        reads derived data from."""
        if self.batched:
            recorded.instance = None
        return recorded

    def _versions(self, model, objs: list, history_type: str) -> None:
        """One history version for each of ``objs`` ("+" created, "~" changed), made as
        simple-history's bulk_history_create makes them (its tracked fields, the date,
        user and change reason), and written by ``create_objects``: with ``COPY`` on
        PostgreSQL, 10,000 versions in 1.0 s instead of 1.6 s."""
        if not objs or not getattr(settings, "SIMPLE_HISTORY_ENABLED", True):
            return
        history = get_history_manager_for_model(model).model
        date = timezone.now()
        user = self.user or history.get_default_history_user(objs[0])
        tracked = [field.attname for field in history.tracked_fields]
        create_objects(
            [
                history(
                    history_date=date,
                    history_user=user,
                    history_change_reason=self.reason,
                    history_type=history_type,
                    **{name: _as_left(obj, name) for name in tracked},
                )
                for obj in objs
            ],
            batch_size=BATCH,
        )

    def _written(self, model, objs: list) -> None:
        self.written[TYPES[model]].extend(objs)
        self.languages.update((obj.game_id, obj.language) for obj in objs)

    # -- relations (M2M) ------------------------------------------------------------------

    @staticmethod
    def _current_relations(model, rows: list[Row]) -> dict[tuple[str, int], dict[int, str]]:
        """(M2M field, row id) → {linked entry id: its slug}, for these stored rows."""
        found: dict[tuple[str, int], dict[int, str]] = defaultdict(dict)
        names = {name for row in rows for name in row.relations or {}}
        ids = [row.obj.pk for row in rows]
        for name in sorted(names):
            m2m = model._meta.get_field(name)
            through = m2m.remote_field.through
            own, other = m2m.m2m_field_name(), m2m.m2m_reverse_name()
            for start in range(0, len(ids), BATCH):
                links = through._default_manager.filter(
                    **{f"{own}__in": ids[start : start + BATCH]}
                )
                for pk, entry_id, slug in links.values_list(
                    own, other, f"{m2m.m2m_reverse_field_name()}__slug"
                ):
                    found[(name, pk)][entry_id] = slug
        return found

    @staticmethod
    def _relink(model, rows: list[Row]) -> None:
        """Replace the M2M rows of these rows by their ``relations`` (no signal, no version:
        the row's one version gets them in ``_snapshot_relations``)."""
        if not rows:
            return
        names = {name for row in rows for name in row.relations or {}}
        for name in sorted(names):
            m2m = model._meta.get_field(name)
            through = m2m.remote_field.through
            own, other = m2m.m2m_column_name(), m2m.m2m_reverse_name()
            ids = [row.obj.pk for row in rows if name in row.relations]
            for start in range(0, len(ids), BATCH):
                through._default_manager.filter(
                    **{f"{m2m.m2m_field_name()}__in": ids[start : start + BATCH]}
                ).delete()
            through._default_manager.bulk_create(
                [
                    through(**{own: row.obj.pk, other: entry.pk})
                    for row in rows
                    if name in row.relations
                    for entry in dict.fromkeys(row.relations[name])
                ],
                batch_size=BATCH,
            )

    @staticmethod
    def _snapshot_relations(model, objs: list) -> None:
        """The newest history version of each of ``objs`` (just written in bulk, which
        records no M2M rows) gets the M2M rows the object has now."""
        m2m_fields = tracked_m2m_fields(model)
        if not m2m_fields or not objs:
            return
        history = model.history.model
        ids = [obj.pk for obj in objs]
        latest: dict[int, int] = {}
        for start in range(0, len(ids), BATCH):
            rows = (
                history._default_manager.filter(id__in=ids[start : start + BATCH])
                .values("id")
                .annotate(latest=Max("history_id"))
                .values_list("id", "latest")
            )
            latest.update(rows)
        versions = list(latest.values())
        for m2m in m2m_fields:
            through = getattr(model, m2m.name).through
            record_model = history.__dict__[m2m.name].model
            own, other = get_m2m_field_name(m2m), get_m2m_reverse_field_name(m2m)
            links = []
            for start in range(0, len(ids), BATCH):
                record_model._default_manager.filter(
                    history_id__in=versions[start : start + BATCH]
                ).delete()
                links += through._default_manager.filter(
                    **{f"{own}_id__in": ids[start : start + BATCH]}
                ).values_list("pk", f"{own}_id", f"{other}_id")
            record_model._default_manager.bulk_create(
                [
                    record_model(
                        history_id=latest[pk],
                        id=link_id,
                        **{f"{own}_id": pk, f"{other}_id": entry_id},
                    )
                    for link_id, pk, entry_id in links
                    if pk in latest
                ],
                batch_size=BATCH,
            )

    # -- addresses: slugs that move -------------------------------------------------------

    def free_slugs(self, model, objs: list) -> None:
        """Park these stored rows on a temporary slug of their own before anything is
        written, so a new version can give their slugs to other rows (a rule renumbered
        from 7.3a to 7.4a leaves its address to the new 7.3a) whatever the order of the
        writes; every row then gets its final slug in the ordinary write (or is pruned).
        One statement; nothing in a dry run."""
        if self.plan_only or not objs:
            return
        with unit_of_work():
            update_rows(model, ["slug"], [(obj.pk, f"~{obj.pk}") for obj in objs])

    def keep_old_addresses(self, moves: list[tuple[object, str]]) -> None:
        """Each ``(entry, old slug)``: the old slug leads to the entry (``EntryRedirect``),
        as an entry renamed in the admin keeps its old address. Where the old slug now
        belongs to another entry, that entry's page is shown there, and the record says
        where the rule that had the address went. An entry's own new slug redirects
        nowhere. A few statements for any number of moves."""
        if self.plan_only or not moves:
            return
        with unit_of_work():
            for start in range(0, len(moves), BATCH):
                batch = moves[start : start + BATCH]
                own = Q()
                for entry, _old in batch:
                    own |= Q(entry_id=entry.pk, old_slug=entry.slug)
                EntryRedirect.objects.filter(own).delete()
                entry = batch[0][0]
                scope = {"game_id": entry.game_id, "language": entry.language}
                stored = {
                    redirect.old_slug: redirect
                    for redirect in EntryRedirect.objects.filter(**scope, old_slug__in=[old for _e, old in batch])
                }
                moved = []
                for entry, old in batch:
                    if old in stored:
                        stored[old].entry_id = entry.pk
                        moved.append(stored[old])
                EntryRedirect.objects.bulk_update(moved, ["entry"], batch_size=BATCH)
                EntryRedirect.objects.bulk_create(
                    [EntryRedirect(**scope, old_slug=old, entry=entry) for entry, old in batch if old not in stored]
                )

    # -- pruning --------------------------------------------------------------------------

    def delete(self, type_: str, objs: Iterable, title: Callable[[object], str]) -> None:
        """Delete these rows one by one, each with a "deleted" version by this import
        (a large import commits every ``COMMIT_EVERY`` of them)."""
        objs = list(objs)
        for start in range(0, len(objs), COMMIT_EVERY if self.batched else max(len(objs), 1)):
            with unit_of_work():
                for obj in objs[start : start + COMMIT_EVERY] if self.batched else objs:
                    outcome = Outcome(type_, title(obj), "deleted", getattr(obj, "slug", ""))
                    if not self.plan_only:
                        stamp(obj, self.reason, self.user)
                        obj.delete()  # recorded in the journal by its signal; the pipeline follows
                    self.report.outcomes.append(outcome)

    def archive(self, model, objs: list) -> None:
        """Archive these rows in bulk: their status, one version each ("~", the import's
        reason and user) and their journal rows, as saving them one by one would write
        them (``rules.content.journal``: "unpublished" for a row that was public,
        "updated" for one that was not), in the caller's unit of work. One by one, 1,992
        archived rules of a 4,000-rule glossary took 6 s (a query for the journal's
        "before", an update, a version and a journal row each)."""
        if not objs or self.plan_only:
            return
        now = timezone.now()
        public = set()  # as the journal tells it: the status stored before, not one in memory
        for start in range(0, len(objs), BATCH):
            ids = [obj.pk for obj in objs[start : start + BATCH]]
            public.update(model.objects.filter(pk__in=ids, status=Status.PUBLISHED).values_list("pk", flat=True))
        for obj in objs:
            obj.status = Status.ARCHIVED
            obj.updated_at = now
        _update_columns(model, objs, ["status", "updated_at"])
        self._versions(model, objs, "~")
        kind = TYPES[model]
        record_many(
            change_of(kind, Change.Action.UNPUBLISHED if obj.pk in public else Change.Action.UPDATED, obj,
                      fields={"status"})
            for obj in objs
        )  # fmt: skip

    # -- at the end -----------------------------------------------------------------------

    def finish(self) -> None:
        """Derived data for what was written: cross-reference rows, the search index; a
        batched import's held rows published and what waited for its end (``at_end``).
        The pipeline follows as the unit of work ends (resolution of every game and
        language written to, relations, the public change feed …)."""
        if self.plan_only:
            return
        self._derive_written()
        self.publish_held()
        if self._vocabulary is not None:  # a batched import's words, counted once at its end
            self._vocabulary.save()
        for call in self._at_end:
            call()
        self._at_end.clear()

    def _resolution_keys(self, game_id: int, language: str, entries: list) -> dict[str, int]:
        """``resolution_keys`` of the game and language, read once per import and
        extended with each batch's published entries, held ones included (titles before
        aliases, as ``link_targets``): a batch's references are born resolved to what is
        written so far; the resolution at the end settles the rest exactly (a reader is
        shown a reference's target only once it is published)."""
        if not self.batched:
            return resolution_keys(game_id, language)
        keys = self._keys.get((game_id, language))
        if keys is None:
            keys = self._keys[(game_id, language)] = resolution_keys(game_id, language)
        published = [
            entry for entry in entries if entry.status == Status.PUBLISHED or entry.held_by_import == self.hold
        ]
        for entry in published:
            keys.setdefault(normalize_label(entry.title), entry.pk)
        for entry in published:
            for alias in entry.aliases or []:
                keys.setdefault(normalize_label(str(alias)), entry.pk)
        return keys

    def _derive_written(self) -> None:
        """Cross-reference rows and search rows of what was written since the last call."""
        by_language: dict[tuple[int, str], list[Entry]] = defaultdict(list)
        for entry in self.references:
            by_language[(entry.game_id, entry.language)].append(entry)
        for (game_id, language), entries in sorted(by_language.items()):
            # Born resolved against the entries as they are now, this import's included.
            rebuild_cross_references(entries, self._resolution_keys(game_id, language, entries))
        for type_, objs in self.written.items():
            index_objects(type_, objs, vocabulary=self._vocabulary)  # a held row is no row of the index yet
            if self.hold is not None:  # a held row's, made now: stored where it is published
                self._documents[type_].extend(
                    document_for(type_, obj) for obj in objs if obj.held_by_import == self.hold
                )
        self.references.clear()
        self.written.clear()


def _published(type_: str, obj, *, indexed: bool = False):
    """A held row published: the pipeline links to it and announces it, and indexes it
    unless its search row is stored already (``indexed``); its derived fields are the
    created row's, already written back: no instance to write them to again."""
    recorded = change_of(type_, Change.Action.PUBLISHED, obj, fields={"status"}, derived={"search"} if indexed else ())
    recorded.instance = None
    return recorded


def _as_left(obj, name: str):
    """A column's value as the import leaves the row: a held row published."""
    if name == "status" and obj.held_by_import is not None:
        return Status.PUBLISHED
    return getattr(obj, name)


def _as_meant(obj) -> None:
    """A row an unfinished import held back is, to this import, what that one meant it to
    be: published (it is compared as such, and held again or published by this one)."""
    if obj.held_by_import is not None:
        obj.status = Status.PUBLISHED


def _update_columns(model, objs: list, fields: list[str]) -> None:
    """Write these columns of ``objs`` as they are in memory: plain ``UPDATE`` statements
    (``rules.shared.bulk.update_rows``), where ``bulk_update()`` builds a ``CASE``
    expression per row and column through the ORM (8 of the 12 s of a 10,000-rule
    version that renumbers a thousand rules and moves the order of them all)."""
    columns = [model._meta.get_field(name) for name in fields]
    update_rows(model, fields, [(obj.pk, *(getattr(obj, column.attname) for column in columns)) for obj in objs])


def _levels(rows: list[Row]) -> list[list[Row]]:
    """New rows in insertion rounds: a row whose parent is new too comes a round after it."""
    new = {id(row) for row in rows}

    def new_parent(row: Row) -> Row | None:
        return row.parent if row.parent is not None and id(row.parent) in new else None

    depth: dict[int, int] = {}
    levels: dict[int, list[Row]] = defaultdict(list)
    for row in parents_first(rows, new_parent):
        parent = new_parent(row)
        depth[id(row)] = depth[id(parent)] + 1 if parent is not None else 0
        levels[depth[id(row)]].append(row)
    return [levels[level] for level in sorted(levels)]
