"""The one pipeline that brings derived data up to date after a unit of work.

Every write is recorded in the change journal (``rules.content.journal``); at the end of each
unit of work, inside its transaction and before it commits, the journal hands its
changes here (``run``). From them the pipeline works out the scope (which entries'
cross-reference rows to rebuild, which games and languages to resolve and render, which
games' relations to compute, which items to index) and brings derived data up to date
in this order, each step reading what the steps before it wrote:

1. **cross-references** (``rules.derived.references``): the rows of entries whose see-also or
   body changed are rebuilt, then every label of each game and language is resolved;
2. **rendering** (``rules.derived.rendering``): texts whose inputs (text, where links point)
   changed are rendered again;
3. **relations and navigation** (``rules.derived.relations``): what each entry of the game
   shows of other items, its place in reading order;
4. **corrections** (``rules.derived.corrections``): entries' texts with their errata applied;
5. **translation status** (``rules.derived.translation_status``), and **game pages**
   (``rules.derived.game_pages``): what a game's page shows of each language, its lists
   of entries as HTML;
6. **search index** (``rules.search.index``): the items written, or removed;
7. **public changes** (``rules.derived.public_changes``): what an anonymous reader now sees
   of each item of the games touched, and a row of the public change feed for each item
   that appeared, changed (embedded data included) or disappeared;
8. **the planner's statistics** (``rules.shared.planner_statistics``, SQLite only): so
   that reads of the rows just written are planned with the indexes made for them.

Each step is idempotent (a fingerprint per derived column says what is already up to
date) and never calls another's refresh: the order above is the only coupling. The
derived columns commit with the write, so the content version (``rules.content.version``)
never pairs a new text with stale HTML. ``refresh_everything`` runs the same steps for
every game and language (``manage.py render_html``, after ``migrate``).

Entries, errata and questions written through ``save()`` get their derived fields
written back too, so the instance a caller holds shows what was stored.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.apps import apps
from django.dispatch import Signal

from ..content.journal import Change, Recorded
from ..search import index as search_index
from ..shared import planner_statistics
from ..shared.bulk import noting_rows_written
from . import corrections, game_pages, public_changes, references, relations, rendering, translation_status

# Sent after each run, with ``scope``: what tests and tools may watch.
finished = Signal()

ITEM_MODELS = {
    Change.Kind.ENTRY: "rules.Entry",
    Change.Kind.ERRATUM: "rules.Erratum",
    Change.Kind.QUESTION: "faq.Question",  # faq's: named, never imported (rules does not import faq)
}
# The derived columns of each kind of item, written back to the instances a unit saved.
DERIVED_FIELDS = {
    Change.Kind.ENTRY: (
        "body_html", "html_fingerprint", "relations", "relations_fingerprint", "corrections",
        "corrections_fingerprint", "translation_status", "translation_status_fingerprint",
    ),
    Change.Kind.ERRATUM: ("corrected_html", "diff_html", "html_fingerprint"),
    Change.Kind.QUESTION: ("answer_html", "html_fingerprint"),
}  # fmt: skip
# What a change of an entry's fields means for its cross-reference rows.
LINK_FIELDS = {"*", "body", "see_also", "game_id", "language"}
FEW = 20  # entries whose cross-reference rows are synced one by one, not rebuilt


@dataclass
class Scope:
    """What one unit of work's changes ask the pipeline to bring up to date."""

    languages: set[tuple[int, str]] = field(default_factory=set)  # (game, language): links, texts
    games: set[int] = field(default_factory=set)  # relations, corrections, translation status
    relink: set[int] = field(default_factory=set)  # entries whose cross-reference rows to rebuild
    public: set[int] = field(default_factory=set)  # games whose public items to diff (deleted ones too)
    whole: set[int] = field(default_factory=set)  # games whose every public item to sign again
    items: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # kind → ids written
    entries_gone: set[int] = field(default_factory=set)  # games an entry was deleted from
    index: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # kind → ids
    unindex: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    instances: list = field(default_factory=list)  # (kind, instance) to write derived fields back to

    @classmethod
    def of(cls, changes: Iterable[Recorded]) -> "Scope":
        scope = cls()
        for recorded in changes:
            scope.add(recorded)
        return scope

    def add(self, recorded: Recorded) -> None:
        change, kind = recorded.change, recorded.kind
        game = change.game_id
        self.public.update(g for g in (game, recorded.old_game_id) if g is not None)
        if kind in (Change.Kind.GAME, Change.Kind.SOURCE):
            self.whole.add(game)  # its slug, a source's title: in every item of the game
        else:
            self.items[kind].add(change.object_id)
            if kind == Change.Kind.ENTRY and change.action == Change.Action.DELETED:
                self.entries_gone.add(game)
        if kind == Change.Kind.GAME:
            # A game's slug is in every link into it; its deletion took its rows with it.
            if change.action != Change.Action.DELETED:
                self.games.add(game)
                self.languages.update((game, language) for language in languages_of(game))
            return
        if kind == Change.Kind.SOURCE:
            self.games.add(game)  # a rulebook is the sections citing one source
            return
        self.games.add(game)
        self.languages.add((game, change.language))
        if recorded.old_game_id is not None:
            self.games.add(recorded.old_game_id)
            self.languages.add((recorded.old_game_id, recorded.old_language or change.language))
        deleted = change.action == Change.Action.DELETED
        if kind == Change.Kind.ENTRY and not deleted and "references" not in recorded.derived:
            if recorded.fields & LINK_FIELDS:
                self.relink.add(change.object_id)
        if "search" not in recorded.derived:
            (self.unindex if deleted else self.index)[kind].add(change.object_id)
            if deleted:
                self.index[kind].discard(change.object_id)
        if recorded.instance is not None and not deleted and kind in DERIVED_FIELDS:
            self.instances.append((kind, recorded.instance))


def languages_of(game_id: int) -> set[str]:
    """The languages a game has texts in (entries, errata, questions)."""
    found: set[str] = set()
    for label in ITEM_MODELS.values():
        model = apps.get_model(label)
        rows = model._default_manager.filter(game_id=game_id).order_by().values_list("language", flat=True)
        found |= set(rows.distinct())
    return found


def run(changes: list[Recorded]) -> Scope:
    """The journal's listener: bring derived data up to date for these changes."""
    scope = Scope.of(changes)
    refresh(scope)
    finished.send(sender=run, scope=scope)
    return scope


def refresh(scope: Scope) -> dict[str, int]:
    """The steps, in their order (module docstring); how many rows each wrote."""
    with noting_rows_written() as rows_written:
        written = _derive(scope)
    # 7. public items and the change feed: of the items written, those whose derived
    # columns were, those embedding a written entry (every erratum and question of a game
    # an entry was deleted from: their links went with it); every item of a game whose
    # own row or a source changed.
    candidates = defaultdict(set, {kind: set(ids) for kind, ids in scope.items.items()})
    for kind, label in ITEM_MODELS.items():
        candidates[kind] |= rows_written.get(label, set())
    for kind, ids in public_changes.embedding(candidates[Change.Kind.ENTRY]).items():
        candidates[kind] |= ids
    for kind, ids in public_changes.embedders_of(scope.entries_gone).items():
        candidates[kind] |= ids
    written["public"] += public_changes.refresh(scope.public, candidates, whole=scope.whole)
    _write_back(scope.instances)
    planner_statistics.refresh()  # 8.
    return dict(written)


def _derive(scope: Scope) -> dict[str, int]:
    """Steps 1 to 6."""
    written: dict[str, int] = defaultdict(int)
    Entry = apps.get_model("rules.Entry")
    targets = {pair: references.link_targets(*pair) for pair in sorted(scope.languages, key=_key)}
    # 1. cross-references: the rows of entries whose labels or links changed, then resolution.
    if scope.relink:
        entries = list(Entry.objects.filter(pk__in=scope.relink).only("pk", "game_id", "language", "body", "see_also"))
        by_language = defaultdict(list)
        for entry in entries:
            by_language[(entry.game_id, entry.language)].append(entry)
        for pair, group in sorted(by_language.items(), key=lambda item: _key(item[0])):
            if len(group) <= FEW:  # a save: its rows kept, changed in place
                for entry in group:
                    references.sync_cross_references(entry)
            else:
                keys = {key: target.id for key, target in targets.get(pair, {}).items()}
                references.rebuild_cross_references(group, keys)
    for pair in sorted(scope.languages, key=_key):
        written["references"] += references.resolve(*pair, targets=targets[pair])
    # 2. rendering
    for pair in sorted(scope.languages, key=_key):
        written["rendering"] += rendering.refresh(*pair, targets=targets[pair])
    # 3–5. relations and navigation, corrections, translation status, game pages
    for game in sorted(g for g in scope.games if g is not None):
        written["relations"] += relations.refresh(game)
        written["corrections"] += corrections.refresh(game)
        written["translation_status"] += translation_status.refresh(game)
        written["game_pages"] += game_pages.refresh(game)
    # 6. search index
    for kind, ids in scope.unindex.items():
        search_index.remove_items(kind, sorted(ids))
        written["search"] += len(ids)
    for kind, ids in scope.index.items():
        if ids:
            search_index.update_items(kind, sorted(ids))
            written["search"] += len(ids)
    return written


def _key(pair: tuple) -> tuple:
    game, language = pair
    return (game or 0, language or "")


def _write_back(instances: list) -> None:
    """The derived fields as stored, onto the instances the unit saved (one query per kind)."""
    by_kind = defaultdict(list)
    for kind, instance in instances:
        by_kind[kind].append(instance)
    for kind, objs in by_kind.items():
        model = apps.get_model(ITEM_MODELS[kind])
        names = DERIVED_FIELDS[kind]
        rows = model._default_manager.filter(pk__in=[obj.pk for obj in objs]).values("pk", *names)
        stored = {row["pk"]: row for row in rows}
        for obj in objs:
            row = stored.get(obj.pk)
            if row is None:
                continue
            for name in names:
                setattr(obj, name, row[name])
            for cached in ("related", "corrected", "translation_state"):  # read from the fields above
                obj.__dict__.pop(cached, None)


def refresh_everything() -> dict[str, int]:
    """Every game and language, every step (``manage.py render_html``, after ``migrate``);
    how many rows each step wrote. The search index is ``manage.py rebuild_search_index``'s."""
    Game = apps.get_model("rules.Game")
    scope = Scope()
    for game in Game.objects.order_by("pk").values_list("pk", flat=True):
        scope.games.add(game)
        scope.languages.update((game, language) for language in languages_of(game))
    scope.public = scope.games | public_changes.known_games()  # a game deleted meanwhile: its items go
    scope.whole = set(scope.public)
    return refresh(scope)  # cross-reference rows are kept with every write: only resolved again


def rebuild_search_index() -> int:
    """Step 6 over everything, from scratch (``manage.py rebuild_search_index``): every
    document and word count made again from the published items; how many documents."""
    return search_index.rebuild()


def refresh_after_migrate(sender, using="default", plan=None, **kwargs) -> None:
    """After ``migrate`` ran migrations, and only once the schema is complete: a
    ``migrate`` back to an older state (or forward to one short of the latest) leaves
    tables the derived steps read missing, so it leaves derived data to the next full
    ``migrate``. A no-op ``migrate`` costs nothing."""
    if plan and schema_is_complete(using):
        refresh_everything()


def schema_is_complete(using: str = "default") -> bool:
    from django.db import connections
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections[using])
    return not executor.migration_plan(executor.loader.graph.leaf_nodes())
