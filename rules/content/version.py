"""The content version: one row that changes with every write to public content.

Cached responses are keyed by it (``rulesite.response_cache``), so any write that can
change what a page, feed, sitemap or API response shows makes every cached response
unreachable at once, in every worker process and on every server: they all read the
version from the one database.

Decisions:

- **Database triggers, not signals.** Every INSERT, UPDATE and DELETE on a table in
  ``WATCHED_TABLES`` bumps the version inside the writing transaction: admin saves,
  bulk status actions, reverts, both importers' bulk inserts and raw ``UPDATE``s,
  cross-reference resolution, deletions and translation links alike, with no code path
  to forget. The bump commits (or rolls back) with the write, so a reader that sees the
  new version also sees the new content.
- **A random token, not a counter.** A rolled-back write (a dry-run import, a test)
  restores the old token, and the next write draws a new one; a counter would hand out
  the same number twice for different content.
- **``changed_at``** is when the last content write ran (second precision on SQLite):
  the responses' ``Last-Modified``. Clients that send ``If-None-Match`` are answered by
  the ETag, which HTTP checks first.
- **Writers queue on it (PostgreSQL).** The trigger runs *before* each writing
  statement, so a transaction takes the version row's lock before any content row's
  lock, and two content writers never wait for each other in opposite orders
  (deadlock). Code that locks content rows with ``select_for_update`` before writing
  calls ``lock_for_writing()`` first for the same reason. SQLite has one writer at a
  time anyway.
- **A rebuilt table loses its triggers.** SQLite makes some schema changes (adding a
  column with a non-constant default, altering a column) by copying the table, which
  drops its triggers: such a migration watches the table again (as 0008 does), and
  ``tests/test_response_cache.py`` writes to every watched table to check.
- **Not a model.** The table is made by migration 0005 and read with one plain
  ``SELECT``; Django's ``flush`` (between tests) does not know it, so never empties it.
- **Per game too (narrower invalidation).** A second table, ``rules_game_version``, keeps a
  token per game, changed by triggers of their own on the same tables: a write changes
  the token of every game whose rows it wrote (both, when a row moves between games;
  found through the parent row for link tables such as cross-references or a release's
  changes). A game's pages (``/<lang>/games/<slug>/…``: nothing on them comes from
  another game) are keyed by their game's token, so an edit to one game leaves every
  other game's pages cached; everything that lists across games (the home page, the
  API, feeds, search, sitemaps' index) is keyed by the site's token. Read in the same
  single-row query as the site's version (``current(game=slug)``); a game without a row
  (removed by hand) falls back to the site's token, never to a token that cannot change.
- **Read where the content is read.** With read replicas (``rulesite.replicas``) a
  reader's request reads content from a replica; the version is read through the same
  router choice (``reading_alias``), so the version and the content of one response
  come from one server, the version first: the content is then never older than the
  version it is cached under, however far the replica lags.
"""

from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import connections, router

TABLE = "rules_content_version"
GAME_TABLE = "rules_game_version"  # a token per game (migration 0026)

WATCHED_TABLES = (
    "rules_game",
    "rules_source",
    "rules_entry",
    "rules_entryredirect",
    "rules_crossreference",
    "rules_erratum",
    "rules_erratum_affects",
    "rules_searchdocument",
)
# Watched since migration 0017, which made them (0005 watches the tables above).
RELEASE_TABLES = ("rules_release", "rules_releasechange")
# faq's tables are watched by faq's own migration (rules never names faq).
FAQ_TABLES = ("faq_question", "faq_question_related_entries")


# Semantic search's vectors (rules.search.models.SearchVector): written by the worker after
# the content, they change the version's second token, ``vectors_token`` (migration
# 0023), never the content's: a page shows no vector, and the worker's batches would
# otherwise empty every cached response over and over. Views whose answer the vectors
# change (search) are cached under both (``rulesite.cache_key``: ``reads_vectors``).
VECTOR_TABLES = ("rules_searchvector",)


@dataclass(frozen=True)
class Version:
    token: int
    changed_at: datetime
    vectors: int = 0  # the vectors' token: changes with every write of semantic search's vectors
    game: int | None = None  # the token of the game asked for (``current(game=…)``), None without one

    def tag(self, game: str | None = None, vectors: bool = False) -> str:
        """What a cached response of this scope is valid for: the game's token for one
        game's page (``game``: its slug), else the site's (also when the game has no
        token); and the vectors' token for an answer that reads them."""
        tag = f"g{self.game}" if game is not None and self.game is not None else f"c{self.token}"
        return f"{tag}.{self.vectors}" if vectors else tag


_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def reading_alias() -> str:
    """The database public content is read from now (the router's choice for content
    models: a replica for a reader's request, else the primary)."""
    from .models import Entry

    return router.db_for_read(Entry)


def reading_connection():
    """The connection public content (the search index and its vectors too) is read
    from now, where the content version was read: raw SQL goes through it."""
    return connections[reading_alias()]


# ``current``'s query as a statement prepared once per connection (PostgreSQL), its game by
# the one text parameter (NULL: none), the time as ISO text whatever the server's DateStyle.
CURRENT_STATEMENT = "rulesite_content_version"
CURRENT_SQL = (
    "SELECT token, to_char(changed_at, 'YYYY-MM-DD\"T\"HH24:MI:SS.US'), vectors_token, "  # noqa: S608
    f"(SELECT gv.token FROM {GAME_TABLE} gv JOIN rules_game g ON g.id = gv.game_id WHERE g.slug = $1) "
    f"FROM {TABLE} WHERE id = 1"
)


def current(game: str | None = None, using: str | None = None) -> Version:
    """The version now, as the database this request reads content from has it (one
    indexed single-row read, no ORM); with ``game`` (a slug), that game's token too, in
    the same query. ``using``: another database alias (the primary's own version).

    Read on every request that may be cached, and on every cache hit of the front cache
    with the per-process cache: on PostgreSQL by a statement prepared once per connection
    and run on libpq itself (``rulesite.postgresql``'s ``prepared_row``), past Django's
    cursor and psycopg's, which were two thirds of the read's CPU (a front-cache hit
    0.13–0.15 -> 0.07–0.08 ms, ``bench/cpu.py``). Whatever that way cannot answer (a
    transaction open, prepared statements off, no connection yet, an error), and any
    other database, through Django's cursor, whose errors are Django's."""
    connection = connections[using] if using else reading_connection()
    prepared_row = getattr(connection, "prepared_row", None)
    row = None
    if prepared_row is not None:
        row = prepared_row(CURRENT_STATEMENT, CURRENT_SQL, [None if game is None else game.encode()])
    if row is None:
        row = _current_row(connection, game)
    if row is None:  # a database whose row was removed by hand: still a valid version
        return Version(0, _EPOCH)
    token, changed_at, vectors, game_token = row
    if isinstance(changed_at, bytes):  # the prepared statement's ISO text
        changed_at = changed_at.decode()
    if isinstance(changed_at, str):  # that, or SQLite's CURRENT_TIMESTAMP: "YYYY-MM-DD HH:MM:SS", UTC
        changed_at = datetime.fromisoformat(changed_at)
    if changed_at.tzinfo is None:
        changed_at = changed_at.replace(tzinfo=UTC)
    return Version(int(token), changed_at, int(vectors), None if game_token is None else int(game_token))


def _current_row(reading, game: str | None) -> tuple | None:
    with reading.cursor() as cursor:
        if game is None:
            cursor.execute(f"SELECT token, changed_at, vectors_token, NULL FROM {TABLE} WHERE id = 1")  # noqa: S608
        else:
            cursor.execute(
                f"SELECT token, changed_at, vectors_token, (SELECT gv.token FROM {GAME_TABLE} gv "  # noqa: S608
                "JOIN rules_game g ON g.id = gv.game_id WHERE g.slug = %s) "
                f"FROM {TABLE} WHERE id = 1",
                [game],
            )
        return cursor.fetchone()


def game_tokens(using: str | None = None) -> dict[int, int]:
    """Every game's token, by game id (a game without a row has none)."""
    with (connections[using] if using else reading_connection()).cursor() as cursor:
        cursor.execute(f"SELECT game_id, token FROM {GAME_TABLE}")  # noqa: S608
        return {game_id: int(token) for game_id, token in cursor.fetchall()}


def of_request(request) -> Version:
    """The version the response cache read for this request (``rulesite.response_cache``
    keeps it on the request), else read now."""
    version = getattr(request, "content_version", None)
    return version if version is not None else current()


def lock_for_writing() -> None:
    """Take the version row's lock now, before locking content rows (see module docs)."""
    from .models import Entry

    writing = connections[router.db_for_write(Entry)]  # the primary: where the writer writes
    if writing.vendor == "postgresql":
        with writing.cursor() as cursor:
            cursor.execute(f"SELECT 1 FROM {TABLE} WHERE id = 1 FOR UPDATE")  # noqa: S608


# --- SQL for the migrations ------------------------------------------------------------

_BUMP_SQLITE = (
    f"UPDATE {TABLE} SET token = random(), changed_at = CURRENT_TIMESTAMP WHERE id = 1;"
)
_BUMP_POSTGRESQL = (
    f"UPDATE {TABLE} SET token = floor(random() * 9007199254740991)::bigint - 4503599627370495, "
    "changed_at = clock_timestamp() WHERE id = 1;"
)


def create_table_sql(vendor: str) -> list[str]:
    timestamp = "CURRENT_TIMESTAMP" if vendor == "sqlite" else "clock_timestamp()"
    statements = [
        f"CREATE TABLE {TABLE} (id integer PRIMARY KEY, token bigint NOT NULL, "
        "changed_at timestamp NOT NULL)",
        f"INSERT INTO {TABLE} (id, token, changed_at) VALUES (1, 1, {timestamp})",
    ]
    if vendor == "postgresql":
        statements.append(
            "CREATE FUNCTION rules_content_changed() RETURNS trigger LANGUAGE plpgsql AS $$ "
            f"BEGIN {_BUMP_POSTGRESQL} RETURN NULL; END $$"
        )
    return statements


def drop_table_sql(vendor: str) -> list[str]:
    statements = [f"DROP TABLE {TABLE}"]
    if vendor == "postgresql":
        statements.append("DROP FUNCTION rules_content_changed()")
    return statements


def watch_sql(vendor: str, tables) -> list[str]:
    """Triggers that bump the version on every write to ``tables``."""
    statements = []
    for table in tables:
        if vendor == "postgresql":
            statements.append(
                f"CREATE TRIGGER {table}_content_changed BEFORE INSERT OR UPDATE OR DELETE "
                f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION rules_content_changed()"
            )
        else:  # SQLite: row triggers only
            for operation in ("INSERT", "UPDATE", "DELETE"):
                statements.append(
                    f"CREATE TRIGGER {table}_content_{operation.lower()} AFTER {operation} "
                    f"ON {table} BEGIN {_BUMP_SQLITE} END"
                )
    return statements


def unwatch_sql(vendor: str, tables) -> list[str]:
    statements = []
    for table in tables:
        if vendor == "postgresql":
            statements.append(f"DROP TRIGGER IF EXISTS {table}_content_changed ON {table}")
        else:
            for operation in ("insert", "update", "delete"):
                statements.append(f"DROP TRIGGER IF EXISTS {table}_content_{operation}")
    return statements


_VECTORS_SQLITE = f"UPDATE {TABLE} SET vectors_token = random() WHERE id = 1;"
_VECTORS_POSTGRESQL = (
    f"UPDATE {TABLE} SET vectors_token = floor(random() * 9007199254740991)::bigint - 4503599627370495 WHERE id = 1;"
)


def watch_vectors_sql(vendor: str) -> list[str]:
    """The vectors' token and the triggers that change it on every write to the vectors."""
    statements = [f"ALTER TABLE {TABLE} ADD COLUMN vectors_token bigint NOT NULL DEFAULT 0"]
    for table in VECTOR_TABLES:
        if vendor == "postgresql":
            statements += [
                "CREATE FUNCTION rules_vectors_changed() RETURNS trigger LANGUAGE plpgsql AS $$ "
                f"BEGIN {_VECTORS_POSTGRESQL} RETURN NULL; END $$",
                f"CREATE TRIGGER {table}_vectors_changed BEFORE INSERT OR UPDATE OR DELETE "
                f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION rules_vectors_changed()",
            ]
        else:
            statements += [
                f"CREATE TRIGGER {table}_vectors_{operation.lower()} AFTER {operation} ON {table} "
                f"BEGIN {_VECTORS_SQLITE} END"
                for operation in ("INSERT", "UPDATE", "DELETE")
            ]
    return statements


def unwatch_vectors_sql(vendor: str) -> list[str]:
    statements = []
    for table in VECTOR_TABLES:
        if vendor == "postgresql":
            statements += [f"DROP TRIGGER IF EXISTS {table}_vectors_changed ON {table}",
                           "DROP FUNCTION IF EXISTS rules_vectors_changed()"]  # fmt: skip
        else:
            statements += [f"DROP TRIGGER IF EXISTS {table}_vectors_{operation}" for operation in
                           ("insert", "update", "delete")]  # fmt: skip
    return [*statements, f"ALTER TABLE {TABLE} DROP COLUMN vectors_token"]


def watch_again(*tables: str):
    """A migration's ``RunPython`` function that watches ``tables``: new ones, or again
    (SQLite adds a column with a non-constant default by rebuilding the table, which
    drops its triggers); any trigger already there is replaced, not doubled. The games'
    triggers too, once their table exists (migration 0026 on)."""

    def run(apps, schema_editor) -> None:
        vendor = schema_editor.connection.vendor
        run_sql(schema_editor, unwatch_sql(vendor, tables))
        run_sql(schema_editor, watch_sql(vendor, tables))
        if GAME_TABLE in schema_editor.connection.introspection.table_names():
            run_sql(schema_editor, unwatch_games_sql(vendor, tables))
            run_sql(schema_editor, watch_games_sql(vendor, tables))

    return run


def unwatching(*tables: str):
    """A migration's ``RunPython`` function that stops watching ``tables`` (the reverse of
    ``watch_again``, which also watches tables for the first time)."""

    def run(apps, schema_editor) -> None:
        run_sql(schema_editor, unwatch_sql(schema_editor.connection.vendor, tables))

    return run


def run_sql(schema_editor, statements: list[str]) -> None:
    for statement in statements:
        schema_editor.execute(statement)


# --- A token per game (migration 0026) -------------------------------------------------

# How a written row of each watched table names its game (``{row}``: the row, NEW or OLD
# in a SQLite trigger, the transition table's alias in PostgreSQL's).
GAME_OF_ROW = {
    "rules_game": "{row}.id",
    "rules_source": "{row}.game_id",
    "rules_entry": "{row}.game_id",
    "rules_entryredirect": "{row}.game_id",
    "rules_erratum": "{row}.game_id",
    "rules_searchdocument": "{row}.game_id",
    "faq_question": "{row}.game_id",
    "rules_crossreference": "(SELECT e.game_id FROM rules_entry e WHERE e.id = {row}.entry_id)",
    "rules_erratum_affects": "(SELECT x.game_id FROM rules_erratum x WHERE x.id = {row}.erratum_id)",
    "faq_question_related_entries": "(SELECT q.game_id FROM faq_question q WHERE q.id = {row}.question_id)",
    "rules_release": "(SELECT s.game_id FROM rules_source s WHERE s.id = {row}.source_id)",
    "rules_releasechange": (
        "(SELECT s.game_id FROM rules_release r JOIN rules_source s ON s.id = r.source_id "
        "WHERE r.id = {row}.release_id)"
    ),
}
_RANDOM = {"sqlite": "random()", "postgresql": "floor(random() * 9007199254740991)::bigint - 4503599627370495"}


def create_game_table_sql(vendor: str) -> list[str]:
    """The games' tokens, one row for every game there is."""
    return [
        f"CREATE TABLE {GAME_TABLE} (game_id integer PRIMARY KEY, token bigint NOT NULL)",
        f"INSERT INTO {GAME_TABLE} (game_id, token) SELECT id, {_RANDOM[vendor]} FROM rules_game",
    ]


def _bump_games(vendor: str, select_games: str) -> str:
    """An upsert giving every game ``select_games`` names (a query of ``game_id``) a new token."""
    return (
        f"INSERT INTO {GAME_TABLE} (game_id, token) SELECT game_id, {_RANDOM[vendor]} "
        f"FROM (SELECT DISTINCT game_id FROM ({select_games}) AS written) AS changed "
        "WHERE game_id IS NOT NULL ON CONFLICT (game_id) DO UPDATE SET token = excluded.token;"
    )


def watch_games_sql(vendor: str, tables) -> list[str]:
    """Triggers that change the token of every game a write to ``tables`` touches: row
    triggers on SQLite; on PostgreSQL statement triggers reading the statement's
    transition tables (one function per table and operation: an INSERT has no old rows,
    a DELETE no new ones), run after the content version's own trigger, so writers
    still take the version row's lock first."""
    statements = []
    for table in tables:
        game = GAME_OF_ROW[table]
        for operation in ("INSERT", "UPDATE", "DELETE"):
            rows = {"INSERT": ["NEW"], "UPDATE": ["NEW", "OLD"], "DELETE": ["OLD"]}[operation]
            name = f"{table}_games_{operation.lower()}"
            if vendor == "postgresql":
                aliases = {"NEW": "new_rows", "OLD": "old_rows"}
                select = " UNION ".join(
                    f"SELECT {game.format(row='t')} AS game_id FROM {aliases[row]} t" for row in rows
                )
                referencing = " ".join(f"{row} TABLE AS {aliases[row]}" for row in rows)
                statements += [
                    f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$ "
                    f"BEGIN {_bump_games(vendor, select)} RETURN NULL; END $$",
                    f"CREATE TRIGGER {name} AFTER {operation} ON {table} REFERENCING {referencing} "
                    f"FOR EACH STATEMENT EXECUTE FUNCTION {name}()",
                ]
            else:
                select = " UNION ".join(f"SELECT {game.format(row=row)} AS game_id" for row in rows)
                statements.append(
                    f"CREATE TRIGGER {name} AFTER {operation} ON {table} BEGIN {_bump_games(vendor, select)} END"
                )
    return statements


def unwatch_games_sql(vendor: str, tables) -> list[str]:
    statements = []
    for table in tables:
        for operation in ("insert", "update", "delete"):
            name = f"{table}_games_{operation}"
            if vendor == "postgresql":
                statements += [f"DROP TRIGGER IF EXISTS {name} ON {table}", f"DROP FUNCTION IF EXISTS {name}()"]
            else:
                statements.append(f"DROP TRIGGER IF EXISTS {name}")
    return statements
