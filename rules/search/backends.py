"""Each database's full-text match over the index terms: FTS5 on SQLite, tsvector on
PostgreSQL. Both take the same input (groups of alternative terms, all ``[a-z0-9]+``)
and return the same output (document ids with a relevance, best first, at most a
limit; no count: ``rules.search.service`` pages through what it asked for). Equal
relevance is ordered by id, so the same search gives the same rows in the same order
every time (each page of results runs it again).

A group is one query word: its terms in the languages searched ("karten" → kart,
karten). ``mode="all"`` needs every group to match, ``"any"`` one of them. Terms of three
characters or more match as prefixes ("kart" finds "kartenspiel", German compounds
included); shorter ones match whole.
"""

from dataclasses import dataclass

from ..content.version import reading_connection

FTS = "rules_searchdocument_fts"
TABLE = "rules_searchdocument"


@dataclass
class Scope:
    language: str | None = None
    game_id: int | None = None
    item_type: str | None = None

    def where(self) -> tuple[str, list]:
        sql, params = "", []
        columns = (("d.language", self.language), ("d.game_id", self.game_id), ("d.item_type", self.item_type))
        for column, value in columns:
            if value is not None:
                sql += f" AND {column} = %s"
                params.append(value)
        return sql, params


def match(
    groups: list[list[str]],
    scope: Scope,
    *,
    mode: str = "all",
    title_only: bool = False,
    limit: int,
    prefix_from: int = 3,
    ranked: bool = True,
) -> list[tuple[int, float]]:
    """(document id, relevance) best first, at most ``limit``.

    Terms of ``prefix_from`` characters or more match as prefixes (suggestions use 1:
    the word being typed is unfinished). ``ranked=False`` skips relevance (suggestions
    rank by themselves): a two-letter prefix may match thousands of rows.
    """
    if not groups:
        return []
    if reading_connection().vendor == "postgresql":
        return _postgresql(groups, scope, mode, title_only, limit, prefix_from, ranked)
    return _sqlite(groups, scope, mode, title_only, limit, prefix_from, ranked)


def _sqlite(groups, scope, mode, title_only, limit, prefix_from, ranked):
    def one(term: str) -> str:
        return f'"{term}"*' if len(term) >= prefix_from else f'"{term}"'

    joined = f" {'AND' if mode == 'all' else 'OR'} ".join(
        "(" + " OR ".join(one(term) for term in group) + ")" for group in groups
    )
    expression = f"{{title_terms}} : ({joined})" if title_only else joined
    where, params = scope.where()
    # FTS5 wants the table's own name (not an alias) in MATCH and bm25().
    base = f"FROM {FTS} JOIN {TABLE} d ON d.id = {FTS}.rowid WHERE {FTS} MATCH %s{where}"
    with reading_connection().cursor() as cursor:
        if not ranked:
            cursor.execute(f"SELECT d.id, 0 {base} LIMIT %s", [expression, *params, limit])  # noqa: S608
            return [(row[0], 0.0) for row in cursor.fetchall()]
        # bm25: lower is better; titles weigh five times bodies.
        cursor.execute(
            f"SELECT d.id, -bm25({FTS}, 5.0, 1.0) AS rank {base} ORDER BY rank DESC, d.id LIMIT %s",  # noqa: S608
            [expression, *params, limit],
        )
        return [(row[0], float(row[1])) for row in cursor.fetchall()]


def _postgresql(groups, scope, mode, title_only, limit, prefix_from, ranked):
    weight = "A" if title_only else ""

    def one(term: str) -> str:
        return f"{term}:*{weight}" if len(term) >= prefix_from else (f"{term}:{weight}" if weight else term)

    joined = f" {'&' if mode == 'all' else '|'} ".join(
        "(" + " | ".join(one(term) for term in group) + ")" for group in groups
    )
    where, params = scope.where()
    base = f"FROM {TABLE} d WHERE d.search_vector @@ to_tsquery('simple', %s){where}"
    with reading_connection().cursor() as cursor:
        if not ranked:
            cursor.execute(f"SELECT d.id, 0 {base} LIMIT %s", [joined, *params, limit])  # noqa: S608
            return [(row[0], 0.0) for row in cursor.fetchall()]
        cursor.execute(
            f"SELECT d.id, ts_rank_cd(d.search_vector, to_tsquery('simple', %s)) AS rank {base} "  # noqa: S608
            "ORDER BY rank DESC, d.id LIMIT %s",
            [joined, joined, *params, limit],
        )
        return [(row[0], float(row[1])) for row in cursor.fetchall()]


def frequencies(groups: list[list[str]], *, cap: int = 5000, prefix_from: int = 3) -> list[int]:
    """How many documents of the whole index hold each group (a query word), counted up
    to ``cap`` (a word in thousands of documents weighs next to nothing either way), and
    the index's size last: ``rules.search.bm25``'s inverse document frequencies.

    Over the whole index, not the search's scope: SQLite answers a full-text count joined
    to a language or game filter by probing the full-text index once per row of that
    language (1-2.7 s a question at 50,000 entries, ``bench/search_latency.py``), and a
    word's rarity in all the rules texts of its language says what it needs to."""
    counts, params = [], []
    for group in groups:
        if reading_connection().vendor == "postgresql":
            counts.append(
                f"(SELECT count(*) FROM (SELECT 1 FROM {TABLE} d "  # noqa: S608
                "WHERE d.search_vector @@ to_tsquery('simple', %s) LIMIT %s) AS found)"
            )
            params.append(" | ".join(f"{term}:*" if len(term) >= prefix_from else term for term in group))
        else:
            counts.append(f"(SELECT count(*) FROM (SELECT 1 FROM {FTS} WHERE {FTS} MATCH %s LIMIT %s))")  # noqa: S608
            params.append(" OR ".join(f'"{term}"*' if len(term) >= prefix_from else f'"{term}"' for term in group))
        params.append(cap)
    counts.append(f"(SELECT count(*) FROM {TABLE})")  # noqa: S608
    with reading_connection().cursor() as cursor:  # one statement, one round trip, whatever the words
        cursor.execute("SELECT " + ", ".join(counts), params)
        return list(cursor.fetchone())
