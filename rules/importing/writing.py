"""Write a text document's parsed items: rows for the row writer (``rows``: its transactions).

Items are matched to existing rows by slug within their game and language, so a
re-import of the same document changes nothing and a revised edition updates what
changed; rows the document no longer contains are left alone, unless ``options.prune``
asks to delete the ones that came from the same source.

**An import takes only what is its own.** A slug is made from a title, and two
documents of a game may well share a title (a glossary's "Attack" and a rulebook's "2.
Attack"), so the row stored under an item's slug is taken only when it is of this
import's source and, for an entry, of the item's kind (``Entry.Kind``: glossary entry,
rule section, ruling). A row of another source or another kind is never changed by
title: the item is kept apart under the next free "<slug>-2", "<slug>-3" … (one that
is unused or this import's own), and a warning with the item's line names the taken
slug, the row there with its kind and its source, and the new slug. A re-import finds
its own "-2" rows again, so it changes nothing, and says the same about the clash
each time (the two rows stay apart until a moderator joins or renames them).
Errata and FAQ questions have no kind that matters here: their source alone decides.

**Numbered rules are matched by identity first** (``identity``): a new version of a
source inserts and drops rules, and the siblings after them shift (x.3a becomes x.4a
with the same text), so matching by a slug made from "Combat 7.3a" would take each
shifted rule for another. The source's stored numbered entries are matched to the
document's numbered items by text (same number and text, same text under a new number,
a small edit); a matched entry keeps its row and id, and its slug follows its new title
when it was made from the old one (the old slug redirects to it, ``EntryRedirect``).
Slugs that change hands within one import are freed first (``RowWriter.free_slugs``),
so the order of the writes does not matter. A stored numbered entry the document no
longer has is "gone": a new rule never takes over its row by slug (it is another rule);
``--prune`` deletes it, else it is kept with a warning. What changed is listed by
``releases``.

A row **without a source** (written by hand in the admin, e.g. a wanted entry a
moderator started as a draft) of the item's kind is taken over, never silently: a
warning names it and its slug; from then on it is this source's, so the next import
says nothing. One of another kind is a clash like any other. An import without a
source (``import_rules -`` without ``--source-title``) cannot tell its own rows from
hand-written ones: it takes over rows without a source with that warning every time,
and never a row that has a source. ``--prune`` deletes only rows of the import's own
source, so it never touches what was kept apart from. These warnings are in the
reader's language (the admin's preview is a moderator's; the command's is English).

What writing itself promises (one history version per created or changed row, bulk
writes, parents before children, cross-references, search index, dry runs) is ``rows``,
shared with the JSON import.

What is particular to a text document, and decided here:

* **Slugs** are made from titles; a second item with the same title gets "-2" (a
  warning says so), cut so that the suffix fits the slug column.
* **Values too long for their column** are shortened at a word (PostgreSQL would refuse
  them); a shortened title or question is kept whole as the body's first paragraph.
* **Parents are named by title**: an entry's parent is the nearest item *above* it with
  that title (a document may repeat a heading), else the first one anywhere in it, else
  an entry of the game already stored; a chain of parents that comes back to where it
  started is cut where it closes.
* **Errata and questions name entries by label** (their "see also" lines and a
  manifest's ``affects``): the entries they change or rule on, by title or alias.
* **Reordering alone is not a content change**: when a revised edition inserts an entry,
  the ``order`` of the entries after it is updated quietly (no version, not reported).
* Cross-references are resolved across the game and language after every import, so
  entries imported today resolve the wanted references of yesterday's.
"""

from collections import defaultdict
from operator import attrgetter

from django.utils.text import Truncator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ..content.history import REASON_MAX_LENGTH, stamp
from ..content.journal import unit_of_work
from ..content.models import Entry, EntryRedirect, Game, Source, slug_was_made_from
from ..content.querysets import Status
from ..shared.text import normalize_label, slugify_title
from . import identity, releases, titles
from .errors import ImportRulesError
from .options import ImportOptions
from .report import ImportReport, Outcome, Warning
from .rows import DELETE_ORDER, MODELS, ParentLoop, Row, RowWriter, parents_first, row_writer
from .splitting import ParsedItem

# Written silently when only they change (see the module docstring).
QUIET_FIELDS = {"order"}
BODY_FIELD = {"entry": "body", "erratum": "corrected_text", "question": "answer"}
# A stored row as a warning names it (type, an entry's kind).
EXISTING = {
    ("entry", Entry.Kind.GLOSSARY): _("the glossary entry “%(title)s”"),
    ("entry", Entry.Kind.SECTION): _("the rule section “%(title)s”"),
    ("entry", Entry.Kind.RULING): _("the ruling “%(title)s”"),
    ("entry", None): _("the entry “%(title)s”"),
    ("erratum", None): _("the erratum “%(title)s”"),
    ("question", None): _("the FAQ question “%(title)s”"),
}


def write_items(
    items: list[ParsedItem], options: ImportOptions, report: ImportReport, *, previous_pattern: str = titles.DEFAULT
) -> None:
    """``options.numbered_title``: the pattern this import titles numbered rules with;
    ``previous_pattern``: the one the source's stored rules were titled with
    (``source_pattern``)."""
    with row_writer(
        report,
        reason=import_reason(options),
        user=options.user,
        quiet=QUIET_FIELDS,
        dry_run=options.dry_run,
        size=len(items),
        progress=options.progress,
    ) as writer:
        if options.progress is not None:
            options.progress("planning" if options.dry_run else "writing", 0, len(items))
        game = _game(writer, options)
        pattern = _pattern_to_keep(options, items)
        version_before = _stored_version(game, options)
        source = _source(writer, game, options, pattern)
        if options.source is not None:
            releases.check(source, options.source)
            releases.begin(writer, source, options.source, version_before)
            _keep_pattern(writer, source, pattern)
        document = _Document(game, source, options, report, previous_pattern)
        rows = document.rows(items)
        writer.free_slugs(Entry, document.parked)
        writer.write(game, "entry", rows["entry"])
        writer.keep_old_addresses(document.moved())
        entries = document.entries_by_name(rows["entry"])
        # After the entries: an erratum may affect an entry further down the document.
        # An erratum's "see also" labels name the entries it changes; a question's, the
        # entries it rules on.
        document.link(rows["erratum"], entries, "affects", "to mark as affected")
        writer.write(game, "erratum", rows["erratum"])
        document.link(rows["question"], entries, "related_entries", "to link")
        writer.write(game, "question", rows["question"])
        if options.prune and source is not None:
            document.prune(writer)
        report.changes = releases.changes_of(
            rows, document.before, document.removed, slugs=document.slugs, title_follows=document.follows,
            revived=document.revived,
        )  # fmt: skip
        if source is not None and options.source.version:
            # With the rows it lists: a batched import's release is public at its end.
            writer.at_end(lambda: releases.record(writer, source, options.source, report.changes))


class _Document:
    """One document's items as rows of its game and language."""

    def __init__(
        self,
        game: Game,
        source: Source | None,
        options: ImportOptions,
        report: ImportReport,
        previous_pattern: str = titles.DEFAULT,
    ):
        self.game, self.source, self.options, self.report = game, source, options, report
        self.pattern = options.numbered_title or titles.DEFAULT
        self.report_reason = import_reason(options)
        self.previous_pattern = previous_pattern
        self.kept: dict[str, set[str]] = defaultdict(set)  # type → slugs in the document
        # (type, base slug) → how many of its candidates in a row (base, base-2 …) are kept
        self._taken_run: dict[tuple[str, str], int] = {}
        self.stored: dict[str, dict] = {}  # type → slug → stored row
        self._sources: dict[int, str] | None = None  # the game's sources' titles, by id
        # Numbered rules matched by identity (``identity``): item → the stored entry it is.
        self.same: dict[int, Entry] = {}
        # This source's numbered entries the new version does not have, by id.
        self.gone: dict[int, Entry] = {}
        self.parked: list[Entry] = []  # stored entries whose slug goes to another row
        self.before: dict[int, tuple[str, str, str]] = {}  # stored row id → (number, title, text)
        self.slugs: dict[int, str] = {}  # stored row id → its slug before the import
        # Stored entries whose title the pattern made from their number, and still does
        # (a new title is part of their renumbering: ``releases.classify``), by id.
        self.follows: set[int] = set()
        # Stored rows an import archived as removed that the document has again, by id.
        self.revived: set[int] = set()
        self._archived_by_import: dict[str, set[int]] | None = None
        self.removed: list[tuple[str, object, int]] = []  # (type, row, id) pruned, as they were
        self.moves: list[tuple[Entry, str]] = []  # (entry matched by identity, its old slug)
        self._history_titles: dict[int, set[str]] | None = None  # entry id → former titles

    def _match(self, item: ParsedItem) -> tuple[str, object | None]:
        """The item's slug and the stored row it updates (None: a row of its own is
        created): the first of ``<slug>``, ``<slug>-2``, ``<slug>-3`` … that this document
        has not used and whose stored row, if any, the item may take (``_claim``)."""
        base = slugify_title(item.title)
        model = MODELS[item.type]
        # Candidates the document took already are skipped without a look: a document of
        # thousands of items with one title tried ``-2``, ``-3`` … from the start for each
        # (n²/2 steps: 256 KB of "Rule" lines did not finish in 30 s).
        taken = self._taken_run.get((item.type, base), 0)
        slug, counter = (base, 2) if taken == 0 else (_numbered(base, taken + 1, model), taken + 2)
        clash = None
        while True:
            if slug not in self.kept[item.type]:
                obj = self.stored[item.type].get(slug)
                claim = self._claim(item, obj)
                if claim not in ("clash", "gone"):
                    break
                if claim == "gone":
                    self.report.warnings.append(Warning(item.line, self._gone_message(item, obj)))
                elif clash is None:
                    clash = obj
            slug, counter = _numbered(base, counter, model), counter + 1
        if base in self.kept[item.type]:
            self.report.warnings.append(
                Warning(
                    item.line,
                    f"a second item titled {item.title!r}: imported separately as {slug!r}",
                )
            )
        if clash is not None:
            self.report.warnings.append(Warning(item.line, self._clash_message(item, clash, slug)))
        if claim == "adopt":
            self.report.warnings.append(Warning(item.line, self._adopt_message(item, obj)))
        self.kept[item.type].add(slug)
        while _candidate(base, taken + 1, model) in self.kept[item.type]:
            taken += 1
        self._taken_run[(item.type, base)] = taken
        return slug, obj

    def _claim(self, item: ParsedItem, obj) -> str:
        """May the item take this stored row? "new" (there is none), "own" (this import's
        source, and for an entry its kind), "adopt" (no source, same kind: taken with a
        warning) or "clash" (another source or another kind: left alone)."""
        if obj is None:
            return "new"
        if item.type == "entry" and obj.pk in self.gone:
            return "gone"
        if item.type == "entry" and obj.kind != item.entry_kind:
            return "clash"
        if obj.source_id is None:
            # An import without a source cannot tell its own rows from hand-written ones.
            return "adopt"
        if self.source is not None and obj.source_id == self.source.pk:
            return "own"
        return "clash"

    def _existing(self, type_: str, obj) -> str:
        """A stored row as a warning names it: its kind and title."""
        key = (type_, obj.kind) if type_ == "entry" else (type_, None)
        title = obj.question if type_ == "question" else obj.title
        return str(EXISTING.get(key, EXISTING[("entry", None)])) % {"title": title}

    def _source_title(self, source_id: int) -> str:
        if self._sources is None:  # loaded at the first clash only
            self._sources = dict(Source.objects.filter(game=self.game).values_list("pk", "title"))
        return self._sources.get(source_id, "")

    def _clash_message(self, item: ParsedItem, obj, slug: str) -> str:
        values = {
            "title": item.title,
            "slug": slug,
            "taken": obj.slug,
            "existing": self._existing(item.type, obj),
        }
        own = self.source.pk if self.source is not None else None
        if obj.source_id is not None and obj.source_id != own:
            values["source"] = self._source_title(obj.source_id)
            return (
                gettext(
                    "“%(title)s” is imported separately as “%(slug)s”: “%(taken)s” is %(existing)s "
                    "of another source, “%(source)s”."
                )
                % values
            )
        if obj.source_id is None:
            origin = gettext("no source")
        else:
            origin = gettext("source “%(source)s”") % {"source": self._source_title(obj.source_id)}
        return gettext(
            "“%(title)s” is imported separately as “%(slug)s”: “%(taken)s” is %(existing)s "
            "(%(origin)s), another kind of entry."
        ) % {**values, "origin": origin}

    def _gone_message(self, item: ParsedItem, obj) -> str:
        return gettext(
            "“%(title)s” is a new rule: the rule stored as %(number)s (“%(slug)s”) is not in this "
            "version, and is kept until an import with --prune removes it."
        ) % {"title": item.title, "number": obj.number, "slug": obj.slug}

    def _adopt_message(self, item: ParsedItem, obj) -> str:
        return gettext(
            "“%(title)s” takes over %(existing)s (“%(slug)s”), which has no source: written "
            "by hand, or imported without one."
        ) % {"title": item.title, "existing": self._existing(item.type, obj), "slug": obj.slug}

    def _values(self, item: ParsedItem, order: int) -> dict:
        common = {"source": self.source, "page": self.options.page, "order": order}
        if item.type == "entry":
            return {
                "title": item.title,
                "aliases": item.aliases,
                "kind": item.entry_kind,
                "number": item.number,
                "order": order,
                "body": item.body,
                "see_also": item.cross_references,
                "source": self.source,
                "page": self.options.page,
                "is_fragment": item.is_fragment,
            }
        if item.type == "erratum":
            return {
                "title": item.title,
                "corrected_text": item.body,
                "kind": item.erratum_kind,
                **common,
            }
        return {"question": item.title, "answer": item.body, "topic": item.topic, **common}

    def rows(self, items: list[ParsedItem]) -> dict[str, list[Row]]:
        """Rows by type, in document order, matched to the stored rows by slug."""
        language = self.options.language
        for type_, model in MODELS.items():
            stored = model.objects.filter(game=self.game, language=language) if self.game.pk else []
            self.stored[type_] = {obj.slug: obj for obj in stored}
        for type_, by_slug in self.stored.items():
            for obj in by_slug.values():
                self.before[id(obj)] = releases.state(type_, obj)
                self.slugs[id(obj)] = obj.slug
        self._identify(items)
        self._titles(items)
        slugs = self._identity_slugs(items)  # before the other items: they keep their place
        rows: dict[str, list[Row]] = defaultdict(list)
        for order, item in enumerate(items):
            values = self._values(item, order)
            if id(item) in self.same:
                obj, slug = self.same[id(item)], slugs[id(item)]
                values["slug"] = slug
            else:
                slug, obj = self._match(item)
            if item.type == "entry" and obj is not None:
                values["aliases"] = self._aliases(item, obj)
            if obj is not None and self._removed_by_an_import(item.type, obj):
                values["status"] = self.options.status  # back in the document: added again
                self.revived.add(id(obj))
            row = Row(
                item.type,
                item.title,
                slug,
                language,
                values,
                obj=obj,
                defaults={"status": self.options.status},
                item=item,
            )
            rows[item.type].append(row)
        if self.options.prune:  # a pruned rule's address may go to a new rule now
            self.parked.extend(obj for obj in self.gone.values() if obj.slug in self.kept["entry"])
        for type_, planned in rows.items():
            for row in planned:
                self._fit(MODELS[type_], row)
        self._parents(rows["entry"])
        return rows

    def _identify(self, items: list[ParsedItem]) -> None:
        """Which numbered items are which of this source's stored numbered entries
        (``identity``): the same rule, though renumbered or reworded. The stored entries
        found are taken out of the slug matching; those not found are "gone"."""
        if self.source is None or self.source.pk is None:
            return
        own = [e for e in self.stored["entry"].values() if e.source_id == self.source.pk and e.number]
        numbered = [item for item in items if item.type == "entry" and item.number]
        if not own or not numbered:
            return
        pairs = identity.match(
            [identity.Rule(e.pk, e.number, identity.text_of(e.body, e.title), not e.body.strip()) for e in own],
            [
                identity.Rule(id(item), item.number, identity.text_of(item.body, item.title), not item.body.strip())
                for item in numbered
            ],
        )
        by_pk = {e.pk: e for e in own}
        self.same = {key: by_pk[pk] for key, pk in pairs.items()}
        found = set(pairs.values())
        self.gone = {e.pk: e for e in own if e.pk not in found}
        for entry in self.same.values():
            del self.stored["entry"][entry.slug]
        if self.options.prune:
            for entry in self.gone.values():
                del self.stored["entry"][entry.slug]

    def _removed_by_an_import(self, type_: str, obj) -> bool:
        """Whether ``obj`` is archived because an import of this source removed it (its
        latest version is an import's), not by a moderator; one query per type for every
        archived row of the game's language, at the first one asked for."""
        if obj.status != Status.ARCHIVED or self.source is None or obj.source_id != self.source.pk:
            return False
        if self._archived_by_import is None:
            self._archived_by_import = {}
        if type_ not in self._archived_by_import:
            history = MODELS[type_].history
            archived = MODELS[type_].objects.filter(
                game=self.game, language=self.options.language, source=self.source, status=Status.ARCHIVED
            ).values("pk")
            latest = {}
            for pk, reason in (
                history.filter(id__in=archived).order_by("id", "history_id").values_list("id", "history_change_reason")
            ):
                latest[pk] = reason or ""
            self._archived_by_import[type_] = {pk for pk, reason in latest.items() if reason.startswith("import:")}
        return obj.pk in self._archived_by_import[type_]

    def _titles(self, items: list[ParsedItem]) -> None:
        """The title of each numbered rule found again whose document gives it none (the
        pattern made it, ``titles``): a stored title the pattern did not make (a moderator
        named the rule) is kept; one it made follows the rule's new number and section,
        which is no re-title (``follows``); one the source's former pattern made takes the
        pattern given now, a re-title."""
        for item in items:
            obj = self.same.get(id(item))
            if obj is None or not item.title_from_pattern or obj.title == item.title:
                continue
            if titles.is_rendering(obj.title, self.pattern, obj.number):
                self.follows.add(id(obj))
            elif not titles.is_rendering(obj.title, self.previous_pattern, obj.number):
                item.title = obj.title

    def _aliases(self, item: ParsedItem, obj: Entry) -> list[str]:
        """The aliases of a stored entry the item updates: the document's, then the titles
        it had that readers knew it by: one it keeps from an earlier re-title, and its
        title now if this import re-titles it while published (as a rename in the admin
        keeps the old title, ``Entry.save``)."""
        aliases = list(item.aliases)
        names = {normalize_label(name) for name in (item.title, *aliases)}
        extra = [alias for alias in obj.aliases or [] if normalize_label(str(alias)) not in names]
        former = self._former_titles(obj) if extra else set()  # the history only when it matters
        for alias in extra:
            key = normalize_label(str(alias))
            if key in former and key not in names:
                aliases.append(alias)
                names.add(key)
        retitled = normalize_label(obj.title) not in names and id(obj) not in self.follows
        if retitled and not releases.same_title(self.before[id(obj)], (item.number, item.title, "")):
            if obj.status == Status.PUBLISHED:
                aliases.append(obj.title)
        return aliases

    def _former_titles(self, obj: Entry) -> set[str]:
        """The normalised titles ``obj`` had in its history; one query for every stored
        entry with an alias the document does not give, at the first one asked for."""
        if self._history_titles is None:
            asked = [e.pk for e in self.stored["entry"].values() if e.aliases] + [
                e.pk for e in self.same.values() if e.aliases
            ]
            self._history_titles = defaultdict(set)
            for start in range(0, len(asked), 500):
                for pk, title in (
                    Entry.history.filter(id__in=asked[start : start + 500]).values_list("id", "title").distinct()
                ):
                    self._history_titles[pk].add(normalize_label(title))
        return self._history_titles.get(obj.pk, set())

    def _identity_slugs(self, items: list[ParsedItem]) -> dict[int, str]:
        """The slug of each item matched by identity: made from its new title when the
        stored slug was made from the old one (a renumbered "Combat 7.3a" moves to
        "combat-7-4a"), else the stored one; never one another row keeps."""
        slugs: dict[int, str] = {}
        for item in items:
            obj = self.same.get(id(item))
            if obj is None:
                continue
            own = slugify_title(item.title)
            base = own if slug_was_made_from(obj.slug, obj.title) else obj.slug
            slug = next((s for s in (base, obj.slug) if self._free(s)), None)
            counter = 2
            while slug is None:
                candidate, counter = _numbered(base, counter, Entry), counter + 1
                slug = candidate if self._free(candidate) else None
            holder = self.stored["entry"].get(own)
            if slug != own and holder is not None and self._claim(item, holder) == "clash":
                # The same clash as when the rule was first imported, said the same way.
                self.report.warnings.append(Warning(item.line, self._clash_message(item, holder, slug)))
            if slug != obj.slug:
                self.parked.append(obj)
                self.moves.append((obj, obj.slug))
            self.kept["entry"].add(slug)
            slugs[id(item)] = slug
        return slugs

    def _free(self, slug: str) -> bool:
        """No item has taken ``slug`` and no stored entry that stays where it is has it."""
        return slug not in self.kept["entry"] and slug not in self.stored["entry"]

    def moved(self) -> list[tuple[Entry, str]]:
        """(entry, its old slug) for every entry matched by identity whose slug moved."""
        return self.moves

    def _fit(self, model, row: Row) -> None:
        """Shorten what is longer than its column (PostgreSQL would refuse it); a shortened
        title or question is kept whole as the first paragraph of the body."""
        body_field = BODY_FIELD[row.type]
        for name, value in list(row.values.items()):
            limit = getattr(model._meta.get_field(name), "max_length", None) if isinstance(value, str) else None
            if limit is None or len(value) <= limit:
                continue
            short = value[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
            row.values[name] = short
            if name in ("title", "question"):
                row.values[body_field] = f"{value}\n\n{row.values[body_field]}".strip()
            self.report.warnings.append(Warning(row.item.line, f"{name} shortened to {limit} characters: {short!r}"))

    def _parents(self, rows: list[Row]) -> None:
        """Each entry's parent: a row of this document (``Row.parent``), else a stored
        entry of that title, else none (with a warning)."""
        first: dict[str, Row] = {}
        for row in rows:
            first.setdefault(normalize_label(row.item.title), row)
        latest: dict[str, Row] = {}
        for row in rows:
            key = normalize_label(row.item.parent) if row.item.parent else None
            if key is not None:
                parent = latest.get(key) or first.get(key)
                if parent is not None and parent is not row:
                    row.parent = parent
            latest[normalize_label(row.item.title)] = row
        while True:  # a chain that comes back to where it started is cut where it closes
            try:
                parents_first(rows, lambda row: row.parent)
                break
            except ParentLoop as loop:
                loop.chain[0].parent = None
        by_title: dict[str, Entry] = {}
        for entry in self.stored["entry"].values():
            by_title.setdefault(normalize_label(entry.title), entry)
        for row in rows:
            if row.parent is not None or not row.item.parent:
                row.values["parent"] = None
                continue
            parent = by_title.get(normalize_label(row.item.parent))
            if parent is None:
                self.report.warnings.append(
                    Warning(row.item.line, f"{row.item.title!r}: no parent section {row.item.parent!r}")
                )
            row.values["parent"] = parent

    def entries_by_name(self, rows: list[Row]) -> dict[str, Entry]:
        """The game's entries in this language after writing (this document's win), by
        normalised title and alias."""
        by_title: dict[str, Entry] = {}
        for entry in self.stored["entry"].values():
            by_title.setdefault(normalize_label(entry.title), entry)
        for row in rows:
            by_title[normalize_label(row.obj.title)] = row.obj
        by_name: dict[str, Entry] = {}
        for entry in by_title.values():
            for name in entry.names:
                by_name.setdefault(normalize_label(str(name)), entry)
        return by_name

    def link(self, rows: list[Row], by_name: dict[str, Entry], relation: str, verb: str) -> None:
        """The entries each row's labels name (``Row.relations``); a row without labels
        keeps the entries it has."""
        for row in rows:
            item = row.item
            labels = list(dict.fromkeys([*item.affects, *item.cross_references]))
            if not labels:
                continue
            wanted: dict[int, Entry] = {}
            for label in labels:
                entry = by_name.get(normalize_label(label))
                if entry is None:
                    self.report.warnings.append(Warning(item.line, f"{item.title!r}: no entry {label!r} {verb}"))
                else:
                    wanted[entry.pk or id(entry)] = entry  # a dry run's new entry has no id
            row.relations = {relation: list(wanted.values())}

    def prune(self, writer: RowWriter) -> None:
        """Remove this source's rows (same game and language) that the document lacks:
        archive them (``options.removal``, the default) or delete them. A row archived
        already is left as it is: it was removed before."""
        if self.source.pk is None:  # a dry run of a new source: it has no rows yet
            return
        for type_ in DELETE_ORDER:
            if type_ not in MODELS:
                continue
            stored = MODELS[type_].objects.filter(
                game=self.game, language=self.options.language, source=self.source
            )
            if type_ == "entry":
                # By identity where it was matched (a dry run has moved no slug yet): not a
                # rule found again, and either gone or at a slug the document left.
                same = {obj.pk for obj in self.same.values()}
                stale = [
                    self.gone.get(obj.pk, obj)  # a parked rule is named by the slug it had
                    for obj in stored
                    if obj.pk not in same and (obj.pk in self.gone or obj.slug not in self.kept[type_])
                ]
            else:
                stale = list(stored.exclude(slug__in=self.kept[type_]))
            title = attrgetter("question" if type_ == "question" else "title")
            if self.options.removal == "delete":
                self.removed.extend((type_, obj, obj.pk) for obj in stale)  # a deleted row has no pk
                writer.delete(type_, stale, title)
                continue
            before = [obj for obj in stale if obj.status == Status.ARCHIVED]  # removed before
            stale = [obj for obj in stale if obj.status != Status.ARCHIVED]
            self.removed.extend((type_, obj, obj.pk) for obj in stale)
            self._archive(writer, type_, stale, title)
            self._archive(writer, type_, [obj for obj in before if obj in self.parked], title, again=True)

    def _archive(self, writer: RowWriter, type_: str, objs: list, title, again: bool = False) -> None:
        """Archive these rows, each with its history version by this import: no longer
        public, kept with their history. A parked entry (its address went to another row
        of this document) gets the next free address of its own; ``again``: rows archived
        before, which only move there (nothing to report)."""
        if not objs:
            return
        if not again:
            self.report.outcomes += [Outcome(type_, title(obj), "archived", getattr(obj, "slug", "")) for obj in objs]
        if writer.plan_only:
            return
        parked = [obj for obj in objs if type_ == "entry" and obj in self.parked]
        with unit_of_work():
            writer.archive(MODELS[type_], [obj for obj in objs if obj not in parked])  # in bulk
            for obj in parked:  # saved one by one: each also moves to an address of its own
                old, counter = obj.slug, 2
                while not self._free(slug := _numbered(old, counter, Entry)):
                    counter += 1
                obj.slug = slug
                self.kept["entry"].add(slug)
                obj.status = Status.ARCHIVED
                stamp(obj, self.report_reason, self.options.user)
                obj.save()
                # Its old address is another rule's now, not a way to this one.
                EntryRedirect.objects.filter(entry=obj, old_slug=old).delete()


def _candidate(base: str, index: int, model) -> str:
    """A base slug's ``index``-th candidate: the base itself, then ``<base>-2`` …"""
    return base if index == 1 else _numbered(base, index, model)


def _numbered(base: str, counter: int, model) -> str:
    """``<base>-<counter>``, the base cut so that it fits the slug column."""
    suffix = f"-{counter}"
    limit = model._meta.get_field("slug").max_length
    return base[: limit - len(suffix)].rstrip("-") + suffix


def import_reason(options: ImportOptions) -> str:
    """The change reason of every version an import writes: "import: SOURCE TITLE",
    shortened to fit the history's field (a source title may be 300 characters long)."""
    reason = f"import: {options.source.title if options.source else 'document'}"
    return Truncator(reason).chars(REASON_MAX_LENGTH)


def _game(writer: RowWriter, options: ImportOptions) -> Game:
    """The game, created if it is new (it needs a name) or updated with the given details."""
    game = Game.objects.filter(slug=options.game).first()
    details = dict(options.game_details)
    if game is None and not options.game_name:
        raise ImportRulesError(f"unknown game {options.game!r}: give its name (--game-name) to create it")
    values = {"name": options.game_name, **details} if options.game_name else details
    return writer.save_one("game", Game, game, {"slug": options.game}, values, options.game_name or "", report=False)


def _stored_version(game: Game, options: ImportOptions) -> str:
    """The version the named source has before this import (a manifest updates it)."""
    if options.source is None or game.pk is None:
        return ""
    stored = Source.objects.filter(game=game, language=options.language, title=options.source.title)
    return stored.values_list("version", flat=True).first() or ""


def _source(writer: RowWriter, game: Game, options: ImportOptions, pattern: str | None) -> Source | None:
    """The source named in the options; an existing one keeps its details unless the
    options say to update them (a manifest). A new one keeps ``pattern`` (``_keep_pattern``)."""
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
    source = Source.objects.filter(game=game, language=options.language, title=info.title).first() if game.pk else None
    if source is not None and not info.update_existing:
        return source
    if source is None and pattern:
        values["numbered_title"] = pattern
    identity = {"game": game, "language": options.language, "title": info.title}
    return writer.save_one("source", Source, source, identity, values, info.title, report=False)


def source_pattern(options: ImportOptions) -> str | None:
    """The pattern the source named in ``options`` titled its numbered rules with
    (``titles``): the one it keeps, else the one its rules' titles show (a source imported
    before sources kept it); None for a new source or one whose titles show none."""
    if options.source is None:
        return None
    source = Source.objects.filter(game__slug=options.game, language=options.language, title=options.source.title)
    source = source.first()
    if source is None:
        return None
    if source.numbered_title:
        return source.numbered_title
    rows = {pk: (number, title, parent) for pk, number, title, parent in source.entries.values_list(
        "pk", "number", "title", "parent_id"
    )}  # fmt: skip
    rules = []
    for number, title, parent in rows.values():
        if not number:
            continue
        sections, seen = [], set()
        while parent in rows and parent not in seen:
            seen.add(parent)
            sections.append(rows[parent][1])
            parent = rows[parent][2]
        rules.append((number, title, sections))
    return titles.infer(rules)


def _pattern_to_keep(options: ImportOptions, items: list[ParsedItem]) -> str | None:
    """What the source keeps as its pattern for numbered rules after this import ("" for
    ``titles.DEFAULT``), or None when the document titled no rule by a pattern."""
    if not any(item.title_from_pattern for item in items):
        return None
    pattern = options.numbered_title or titles.DEFAULT
    return "" if pattern == titles.DEFAULT else pattern


def _keep_pattern(writer: RowWriter, source: Source | None, pattern: str | None) -> None:
    """The source keeps the pattern its numbered rules were titled with (``titles``), when
    this document titled any by it: the next version, imported without one, uses it."""
    if source is None or pattern is None or source.numbered_title == pattern:
        return
    identity = {"game": source.game, "language": source.language, "title": source.title}
    writer.save_one("source", Source, source, identity, {"numbered_title": pattern}, source.title, report=False)
