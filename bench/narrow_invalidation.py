"""After an edit to one game, how many of another game's cached pages are still served
from the cache (the per-game tokens of ``rules.content.version``).

    .venv/bin/python bench/narrow_invalidation.py --database-url sqlite:////tmp/rulesite-serve-XXXX/serve.sqlite3
        (or --database-url postgres://… --static-root /tmp/rulesite-serve-XXXX/static)
        [--cache-url redis://127.0.0.1:6379/0]

Use a database ``bench/serve.py --keep`` built (its demo games and its generated
"benchmark-game"). In one process, through Django's WSGI handler with the response
cache on (a per-process cache, or ``--cache-url``): every page of every game is
requested once (the game page, its entries, errata, FAQ, contents), then one entry of
the first demo game is saved (a unit of work, as a moderator's admin save), then every
page is requested again. A page answered without reading anything but the content
version (one query; none with Redis) came from the cache. Prints, per game, how many of
its pages were cache hits after the edit: the edited game's should be none, every
other game's all of them; and the lists across games (home page, API lists) are all
rendered again.
"""

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--cache-url", default="", help="default: the per-process cache")
    parser.add_argument("--static-root", help="the static/ bench/serve.py --keep kept (default: beside a SQLite file)")
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = args.database_url
    if args.cache_url:
        os.environ["DJANGO_CACHE_URL"] = args.cache_url
    else:
        os.environ.pop("DJANGO_CACHE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rulesite.settings.base")
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-not-secret")
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver,localhost,127.0.0.1"
    os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "0"
    # serve.py's collectstatic: beside a SQLite file, or --static-root (pages name hashed files).
    static_root = Path(args.static_root or Path(args.database_url.removeprefix("sqlite:///")).parent / "static")
    if static_root.is_dir():
        os.environ.setdefault("DJANGO_STATIC_ROOT", str(static_root))

    import django

    django.setup()
    from django.core.cache import caches
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.utils import translation

    from rules.content.models import Entry, Game

    caches["default"].clear()
    client = Client()
    pages: dict[str, list[str]] = {}
    for game in Game.objects.published().order_by("pk"):
        urls = [f"/en/games/{game.slug}/", f"/en/games/{game.slug}/errata/", f"/en/games/{game.slug}/faq/",
                f"/en/games/{game.slug}/rules/"]  # fmt: skip
        with translation.override("en"):
            urls += [entry.get_absolute_url() for entry in Entry.objects.published().filter(game=game)[:200]]
        pages[game.slug] = urls
    pages["(across games)"] = ["/en/", "/api/v1/entries/?page_size=50", "/api/v1/games/", "/en/feeds/changes/"]

    def hit(url: str) -> bool:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        return response.status_code == 200 and len(queries) <= 1

    for urls in pages.values():
        for url in urls:
            client.get(url)
    warm = {slug: sum(hit(url) for url in urls) for slug, urls in pages.items()}

    edited = Game.objects.published().order_by("pk").first()
    entry = Entry.objects.published().filter(game=edited).first()
    entry.body += "\n\nEdited by bench/narrow_invalidation.py."
    entry.save()  # a unit of work: the pipeline, then the commit
    print(f"edited: {entry.title!r} of {edited.slug}\n")
    print(f"{'game':<36} {'pages':>6} {'hits before':>12} {'hits after the edit':>20}")
    total = kept = 0
    for slug, urls in pages.items():
        after = sum(hit(url) for url in urls)
        print(f"{slug:<36} {len(urls):>6} {warm[slug]:>12} {after:>20}")
        if slug not in (edited.slug, "(across games)"):
            total, kept = total + warm[slug], kept + after
    # A page that was no hit before the edit is one the cache never keeps (a redirect to
    # the reader's language, say): the share is of those that were.
    print(f"\nother games' cached pages still cached after the edit: {kept} of {total} ({kept / max(total, 1):.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
