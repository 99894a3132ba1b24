"""Entry pages stored as an anonymous reader gets them: an uncached entry page is its one
query, which reads the stored page beside the rows, and no rendering.

Rendering an entry page costs more than everything else its request does together (1.4
of 2.1 ms of CPU, ``bench/cpu.py``: 0.7 ms with the page stored), yet what it shows
depends on little: the rows of the page's query (the entry in each of its languages,
with its game and source, and everything it shows of other items stored with it:
``rules.derived.relations``), the UI language, the site's address, and the code,
templates, translations and static files that render them. So:

- **What a page is made of** (``inputs``) is a digest of exactly those: the rows as the
  database gives them (``PreparedQuery.with_digest``), the UI language, the scheme and
  host, and ``deployed()`` (a digest of the code, templates, translations and static
  manifest this process runs). A page's inputs change whenever anything it shows could.
  What stored pages of every kind share is ``rules.pages.stored``; game pages are stored
  likewise (``rules.pages.stored_game_pages``), by the same worker.
- **The reader** (``rules.pages.views.entry_detail``) reads the page's rows and, in the
  same query, each version's stored page in the reader's UI language with the inputs it
  was made of (``ENTRY_PAGE_STORED``: a column of the query, left out of the rows' digest;
  a second query had cost PostgreSQL a round trip, a third of an uncached page's database
  work). It computes its request's inputs from the rows and is served the stored page
  only when they are equal to the stored page's; otherwise the page is rendered in the
  request, as before. A stored page can therefore be missing or
  old, never wrong: no write has to remember to throw one away.
- **Only for anonymous readers of the plain address** (``stored.servable``): a request
  with a query string the view reads (``?content=``, ``?as_of=``; others are dropped
  before it, ``rulesite.cache_key``) or with a session cookie (a moderator may see more)
  is rendered as before.
- **The worker stores them** (``store_entry_pages``, on the ``embeddings`` queue of work
  nobody waits for; the name it was queued under since 0030, kept so runs queued before a
  deploy still find it, though it stores game pages too): after every unit of work that
  changed public content (asked for once per transaction, not while a run is waiting)
  and when a worker starts (a deploy changes ``deployed()``), it renders every game's
  page and every published entry's page whose inputs differ from the stored ones, in
  each UI language, for about ``RUN_SECONDS`` a run, then asks for the next. A game
  whose content token (``rules.content.version``) has not moved since the worker last
  went through its pages is not looked at (a moderator's save costs a scan of that
  game's pages, one query each, not of the site's). Rendering costs the worker
  what readers no longer pay: the benchmark site's 2,598 pages (653 entries, four UI
  languages) took 4.0 s on SQLite and 6.4 s on PostgreSQL, about 1.5 to 2.5 ms a page.

Pages of the same rows in every process and on every server are the same bytes, so the
stored page is exactly what rendering in the request would give: ``tests/pages/
test_stored_pages.py`` compares them after each kind of write.
"""

import time

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS
from django.db.models import OuterRef
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import translation
from django_tasks import task

from ..builds.site import SiteRequest
from ..content import version as content_version
from ..content.addresses import entry_url_template
from ..content.models import Entry, Game
from ..content.prepared import PreparedQuery, Read
from ..shared.queues import EMBEDDINGS, Refresh
from . import stored, stored_game_pages
from .models import StoredEntryPage, StoredGamePage, StoredPage
from .page_context import entry_page_context
from .releases import as_of_context

# A run's length. Runs are short because a worker told to stop (SIGTERM, every deploy)
# finishes its running task first, and the vectors' runs share the queue: a 10,000-entry
# import's 40,000 pages take minutes, and a stop waited up to a minute for them
# (tests/test_workers.py: 58-71 s on PostgreSQL, most of it that wait).
RUN_SECONDS = 10
PRIORITY = -20  # after the vectors' runs: search answers better with them
BATCH = 50  # pages written per transaction


def _stored_rows(ui_language: str):
    """The stored page of the outer query's entry in ``ui_language`` (a subquery)."""
    return StoredEntryPage.objects.filter(entry=OuterRef("pk"), ui_language=ui_language)


# Every language's version of an entry, for its page: the same SQL for every entry,
# so it is compiled once (rules.content.prepared). Sorted in Python: ORDER BY costs more to
# compile than a sort of a version or two.
ENTRY_PAGE_VERSIONS = PreparedQuery(
    Entry, lambda game, slug: Entry.objects.published().filter(game__slug=game, slug=slug).for_page().order_by(), 2
)
# The same rows, each with its stored page in a UI language (``stored.stored_columns``: the
# inputs it was made of, then its HTML; or for a client that takes gzip, its digest and
# the compressed page).
def _with_stored(game: str, slug: str, ui_language: str, gzip: bool):
    return ENTRY_PAGE_VERSIONS.build(game, slug).annotate(**stored.stored_columns(_stored_rows(ui_language), gzip))


ENTRY_PAGE_STORED = PreparedQuery(Entry, lambda game, slug, ui: _with_stored(game, slug, ui, False), 3)
ENTRY_PAGE_STORED_GZIP = PreparedQuery(Entry, lambda game, slug, ui: _with_stored(game, slug, ui, True), 3)


def versions(game: str, slug: str) -> tuple[list[Entry], str]:
    """The entry's versions (sorted by language) and the digest of their rows."""
    return instances(ENTRY_PAGE_VERSIONS.read(game, slug))


def read_with_stored(game: str, slug: str, ui_language: str, gzip: bool) -> Read:
    """The entry's versions, each with its stored page in ``ui_language`` (compressed,
    for a client that takes it: ``gzip``), as rows (``stored_page``)."""
    return (ENTRY_PAGE_STORED_GZIP if gzip else ENTRY_PAGE_STORED).read(game, slug, ui_language)


def instances(read: Read) -> tuple[list[Entry], str]:
    """The versions ``read`` (sorted by language) and the digest of their rows."""
    return sorted(read.instances(), key=lambda candidate: candidate.language), read.digest


def stored_page(request, read: Read, ui_language: str, gzip: bool) -> HttpResponse | None:
    """The stored page of the version in the reader's language (``read_with_stored``), if
    it was made of the rows read, from two columns of its row: no instance is made. None:
    no version in that language (the page may redirect to a translation: ``entry_detail``
    then asks ``stored_page_of`` for the version it shows), or no page stored of these rows."""
    for row in read.rows:
        if read.value(row, "language") == ui_language:
            compressed = read.value(row, "stored_gzip") if gzip else None
            return _stored(request, read.digest, ui_language, read.value(row, "stored_page"), compressed, gzip)
    return None


def stored_page_of(request, entry: Entry, rows: str, ui_language: str, gzip: bool) -> HttpResponse | None:
    """The stored page of ``entry`` (an instance of ``read_with_stored``'s rows, of digest
    ``rows``) if it was made of those rows."""
    return _stored(request, rows, ui_language, entry.stored_page, getattr(entry, "stored_gzip", None), gzip)


def _stored(request, rows: str, ui_language: str, page: str | None, compressed: bytes | None, gzip: bool):
    return stored.stored_response(stored.inputs(request, ui_language, rows), page, compressed, gzip)


def shown(candidates: list[Entry], ui_language: str, wanted: str | None) -> Entry:
    """The version a page shows: the one ``?content=`` asks for, else the UI language's,
    else the first."""
    entry = next((e for e in candidates if e.language == ui_language), candidates[0])
    return next((e for e in candidates if e.language == wanted), entry)


def translation_to_go_to(entry: Entry, ui_language: str, wanted: str | None) -> Entry | None:
    """The version in the reader's language that the address of ``entry`` (shown in
    another language, not asked for by ``?content=``) redirects to; None: no redirect."""
    if entry.language in (ui_language, wanted):
        return None
    return next((t for t in entry.related.translations if t.language == ui_language), None)


def render_page(request, entry: Entry) -> HttpResponse:
    """The entry page, rendered."""
    context = entry_page_context(request, entry)
    context.update(as_of_context(request, entry))  # ?as_of=: the text as a release had it
    return render(request, "rules/entry_detail.html", context)


# -- the worker ---------------------------------------------------------------------------


@task(priority=PRIORITY, queue_name=EMBEDDINGS)
def store_entry_pages() -> int:
    """Store pages whose inputs changed, for about RUN_SECONDS; how many it rendered."""
    done, finished = refresh(seconds=RUN_SECONDS)
    if not finished:
        RUNS.enqueue()
    return done


# (what this process renders with, game id) → the game's content token when each of its
# pages was last found stored or stored (rules.content.version): a game nobody wrote to
# since is not looked at again. Per process: a worker that starts looks at every page.
_stored_at: dict[tuple[str, int], int] = {}


def refresh(seconds: float | None = None) -> tuple[int, bool]:
    """Render and store every game's page and every published entry's page, in each UI
    language, whose stored inputs differ from its inputs now (for ``seconds`` at most),
    skipping the games not written to since this process last did so; (pages rendered,
    whether every game was looked at). Pages of entries no longer published are deleted."""
    deadline = None if seconds is None else time.monotonic() + seconds
    StoredEntryPage.objects.exclude(entry__in=Entry.objects.published()).delete()
    tokens = content_version.game_tokens(using=DEFAULT_DB_ALIAS)  # before the rows they cover
    stored_inputs = {(entry, ui): made_of for entry, ui, made_of in StoredEntryPage.objects.values_list(
        "entry_id", "ui_language", "inputs").iterator()}  # fmt: skip
    stored_games: dict[int, dict[str, str]] = {}
    for game_id, ui, made_of in StoredGamePage.objects.values_list("game_id", "ui_language", "inputs"):
        stored_games.setdefault(game_id, {})[ui] = made_of
    done, batch = 0, []
    for game_id, game_slug in Game.objects.order_by("slug").values_list("pk", "slug"):
        seen = (stored.deployed(), game_id)
        if game_id in tokens and _stored_at.get(seen) == tokens[game_id]:
            continue
        # The game's page first: it costs a reader more than an entry's.
        game_pages = stored_game_pages.pages_to_store(game_slug, stored_games.get(game_id, {}))
        done += len(game_pages)
        _write(game_pages)
        slugs = Entry.objects.published().filter(game_id=game_id).order_by("slug").values_list("slug", flat=True)
        for slug in slugs.distinct().iterator():
            done += _store_page(game_slug, slug, stored_inputs, batch)
            if len(batch) >= BATCH:
                _write(batch)
            if deadline is not None and time.monotonic() > deadline:
                _write(batch)
                return done, False
        _write(batch)
        if game_id in tokens:
            _stored_at[seen] = tokens[game_id]
    return done, True


def _store_page(game_slug: str, slug: str, stored_inputs: dict, batch: list) -> int:
    """Add to ``batch`` the page of ``slug`` in each UI language whose inputs are not the
    stored ones; how many."""
    candidates, rows = versions(game_slug, slug)
    rendered = 0
    for ui_language, _name in settings.LANGUAGES:
        if not candidates:  # unpublished since the list was read
            break
        entry = shown(candidates, ui_language, None)
        if translation_to_go_to(entry, ui_language, None) is not None:
            continue  # the address redirects to the translation
        request = SiteRequest(entry_url_template(game_slug, ui_language).format(slug=slug), ui_language=ui_language)
        if stored_inputs.get((entry.pk, ui_language)) == stored.inputs(request, ui_language, rows):
            continue
        # Loaded again in the UI language, as a request loads it: what an entry shows of
        # other items carries addresses in the language active when it is first read.
        with translation.override(ui_language):
            fresh, fresh_rows = versions(game_slug, slug)
            if not fresh:
                break
            page = shown(fresh, ui_language, None)
            body = render_page(request, page).content
        made_of = stored.inputs(request, ui_language, fresh_rows)
        batch.append(StoredEntryPage.of(body, entry=page, ui_language=ui_language, inputs=made_of))
        rendered += 1
    return rendered


def _write(pages: list[StoredPage]) -> None:
    """Store ``pages`` (of one kind), each in place of the page of its item and UI language
    stored before, if any; and empty the list."""
    if pages:
        model = type(pages[0])
        (once,) = model._meta.constraints  # the item and the UI language
        columns = [field.name for field in model._meta.concrete_fields
                   if not field.primary_key and field.name not in once.fields]  # fmt: skip
        model.objects.bulk_create(pages, update_conflicts=True, unique_fields=once.fields, update_fields=columns)
        pages.clear()


def schedule(sender=None, scope=None, **kwargs) -> None:
    """The pipeline's ``finished`` receiver (and a worker's start): once a unit of work that
    changed public content commits, the worker stores its pages (``Refresh``: once per
    transaction, and not while a run is waiting to start)."""
    if scope is None or scope.public:
        RUNS.schedule()


RUNS = Refresh(store_entry_pages)
