"""Importing a canonical JSON export: validated items → rows for the row writer.

* The whole file is validated before anything is written: format and version, every
  field's type, languages, statuses and kinds, duplicate keys, and that every parent,
  source and affected or related entry exists (in the file or in the database) and no
  parent chain loops. An error names the item and its line: ``line 212:
  entries[12] (slug "draw-step"): parent: no entry slug "setup"; …``.
* Rows are matched by (game, language, slug), sources by (game, language, title), and
  written in one transaction (a file of more than ``rows.COMMIT_EVERY`` items, in one
  per batch: ``rules.importing.rows``). Unchanged rows are not written at all (no history
  version); a created or changed row gets exactly one history version, with the change
  reason ``"import: canonical JSON"`` (and ``options.user``, if given). A field left out
  of an item keeps its current value (or the model's default for a new row); the
  exporter always writes every field.
* **A row is restored as the file says, whatever is stored under its slug now**, its
  source and kind included: unlike a text document's (``rules.importing.writing``),
  which never takes another source's or kind's entry by title, an export's item *is*
  a row. Its slug is that row's identity, not something made from a title that two
  documents may share; it names its own source, kind and parent; the file's other
  items point at it by that slug (``parent``, ``affects``, ``related_entries``); and
  restoring means the game equals the file afterwards (export → import → export gives
  the same bytes). So an item is never moved to another slug, and nothing is reported
  as a clash: a row whose source, kind or text the file changes is an update, each
  field listed with its before and after, which the dry run (the admin's preview)
  shows before anything is written.
* The game is created from the file if missing, and its details are updated.
* ``options.language`` imports one language of a file (the others are skipped, with a
  warning); ``options.prune`` deletes the game's rows in the imported language(s) that
  the file does not have; ``options.dry_run`` writes nothing and reports what would be
  written.
* The report has one ``Outcome`` per row: types ``game``, ``source``, ``entry``,
  ``erratum`` and ``question``; an update lists each changed field as (before, after).
* Cross-references are rebuilt from ``see_also`` and the bodies and resolved once per
  game and language at the end.

Writing itself (versions, bulk, derived data, pruning) is ``rules.importing.rows``, the
same as for a text document.
"""

from dataclasses import dataclass
from operator import attrgetter

from faq.models import Question

from ...content.models import Entry, Erratum, Game, Source
from ..errors import ImportRulesError
from ..options import ImportOptions
from ..report import ImportReport, Warning
from ..rows import Row, RowWriter, row_writer
from .format import CHANGE_REASON, SECTIONS
from .validation import Invalid, Item, Plan, check_references, line_of, load, validate


def import_canonical(text: str, options: ImportOptions) -> ImportReport:
    """Import a canonical JSON export: validate all of it, then upsert in one transaction.

    ``options.game`` (if set) must be the export's game; ``options.language`` (if set)
    limits the import to that language. ``options.prune`` deletes the game's rows in the
    imported language(s) that the export does not contain; ``options.dry_run`` does all
    the work and rolls it back. The text pipeline's options (kind, source, page, status,
    game name) do not apply: the export carries all of that itself.
    """
    payload = load(text)
    report = ImportReport("canonical", [], dry_run=options.dry_run, input_format="json")
    try:
        plan = validate(payload, options)
        with row_writer(
            report,
            reason=CHANGE_REASON,
            user=options.user,
            dry_run=options.dry_run,
            size=sum(len(items) for items in plan.items.values()),
            progress=options.progress,
        ) as writer:
            existing = Existing.load(Game.objects.filter(slug=plan.game["slug"]).first())
            check_references(plan, existing, options.prune)  # still before any write
            _write(writer, plan, existing, options)
    except Invalid as error:
        raise ImportRulesError(
            error.message, line=line_of(text.lstrip("\ufeff"), error.path)
        ) from None

    if plan.skipped:
        total = sum(plan.skipped.values())
        languages = ", ".join(f"{language}: {n}" for language, n in sorted(plan.skipped.items()))
        report.warnings.insert(
            0,
            Warning(
                None,
                f"skipped {total} item{'s' if total != 1 else ''} in other languages ({languages})",
            ),
        )
    if plan.scope and not any(plan.items.values()):
        report.warnings.append(
            Warning(None, f"the export has no {', '.join(sorted(plan.scope))} content")
        )
    return report


@dataclass
class Existing:
    """The game's rows already in the database, by natural key."""

    game: Game | None
    sources: dict[tuple[str, str], Source]
    entries: dict[tuple[str, str], Entry]
    errata: dict[tuple[str, str], Erratum]
    questions: dict[tuple[str, str], Question]

    @classmethod
    def load(cls, game: Game | None) -> "Existing":
        if game is None:
            return cls(None, {}, {}, {}, {})
        return cls(
            game,
            {(s.language, s.title): s for s in Source.objects.filter(game=game)},
            {
                (e.language, e.slug): e
                for e in Entry.objects.filter(game=game).select_related("parent", "source")
            },
            {
                (e.language, e.slug): e
                for e in Erratum.objects.filter(game=game).select_related("source")
            },
            {
                (q.language, q.slug): q
                for q in Question.objects.filter(game=game).select_related("source")
            },
        )

    def rows(self, section: str) -> dict:
        return getattr(self, section)


def _write(writer: RowWriter, plan: Plan, existing: Existing, options: ImportOptions) -> None:
    game_values = {name: value for name, value in plan.game.items() if name != "slug"}
    slug = plan.game["slug"]
    game = writer.save_one(
        "game", Game, existing.game, {"slug": slug}, game_values, plan.game["name"], slug
    )

    sources: dict[tuple[str, str], Source] = dict(existing.sources)
    for item in plan.items["sources"]:
        values = {
            name: value for name, value in item.values.items() if name not in ("language", "title")
        }
        identity = {"game": game, "language": item.language, "title": item.key}
        sources[item.ident] = writer.save_one(
            "source", Source, existing.sources.get(item.ident), identity, values, item.key
        )

    entry_rows: dict[tuple[str, str], Row] = {}

    def entry(key: tuple[str, str]) -> Entry:
        row = entry_rows.get(key)
        return row.obj if row is not None else existing.entries[key]

    def row_of(section: str, item: Item) -> Row:
        values = {
            name: value for name, value in item.values.items() if name not in ("language", "slug")
        }
        row = Row(
            SECTIONS[section].type,
            item.values[SECTIONS[section].title],
            item.key,
            item.language,
            values,
            obj=existing.rows(section).get(item.ident),
            item=item,
        )
        if "source" in item.refs:
            values["source"] = sources[item.refs["source"]] if item.refs["source"] else None
        return row

    for item in plan.items["entries"]:
        entry_rows[item.ident] = row_of("entries", item)
    for row in entry_rows.values():
        if "parent" in row.item.refs:
            # A parent in the file is a row of this import (``Row.parent``, perhaps new),
            # one only in the database is the stored entry.
            parent = row.item.refs["parent"]
            row.parent = entry_rows.get(parent) if parent is not None else None
            in_file = parent is None or parent in entry_rows
            row.values["parent"] = None if in_file else existing.entries[parent]
    writer.write(game, "entry", list(entry_rows.values()))

    for section, relation in (("errata", "affects"), ("questions", "related_entries")):
        rows = []
        for item in plan.items[section]:
            row = row_of(section, item)
            if relation in item.refs:
                row.relations = {relation: [entry(ref) for ref in item.refs[relation]]}
            rows.append(row)
        writer.write(game, SECTIONS[section].type, rows)

    if options.prune and existing.game is not None:
        _prune(writer, plan, existing)


def _prune(writer: RowWriter, plan: Plan, existing: Existing) -> None:
    """Delete the game's rows in the imported language(s) that the export does not have."""
    # Questions and errata first (they point at entries), sources last (everything cites them).
    for name in ("questions", "errata", "entries", "sources"):
        section = SECTIONS[name]
        keep = plan.keys(name)
        doomed = [
            obj
            for key, obj in existing.rows(name).items()
            if plan.in_scope(key[0]) and key not in keep
        ]
        doomed.sort(
            key=lambda obj, section=section: (
                obj.language,
                getattr(obj, "order", 0),
                getattr(obj, section.key),
            )
        )
        writer.delete(section.type, doomed, attrgetter(section.title))
