"""Benchmark: saving a game for offline, what it takes in the browser, and an offline entry page.

    .venv/bin/python bench/offline_save.py [--entries 600] [--database-url URL]

Builds the site as bench/serve.py does (migrations, the demo content, a generated
glossary of --entries entries with 20 errata and 20 FAQ questions, collectstatic: hashed
static files), makes every bulk file (``build_files --bulk``, as a deploy does), starts
gunicorn with gunicorn.conf.py and production settings on 127.0.0.1, then drives Debian's
Chromium (Playwright) at 390 px, the loopback as the "fast connection":

- for each game and language with a bulk file: open its page, press "Save for offline",
  and time the press to ``data-offline-state="saved"`` (download, JSON parsing, records
  written to IndexedDB, the shell kept); the bulk file's size as sent (gzip) and as
  JSON; the saved copy's size (``size`` of the game's record: its records as JSON) and
  ``navigator.storage.estimate()``'s usage before and after (IndexedDB and the Cache
  API together, as the browser counts them);
- then offline (``context.set_offline(True)``): the generated game's first entry and
  another, opened by address, and the time from the start of the navigation to its text
  on the page (``data-offline-render-ms``, offline-reader.js).

Budgets (issue "At the table without a signal"): the generated glossary saved in under
3 s and under 2 MB of browser storage, an offline entry page under 200 ms; the script
exits 1 when one is missed. Timings are on the shared 2-core machine: run it idle.
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import serve  # bench/serve.py: the same site

SAVE_BUDGET_S = 3.0
STORAGE_BUDGET = 2 * 1024 * 1024
RENDER_BUDGET_MS = 200
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True}
ESTIMATE = "navigator.storage.estimate().then((e) => e.usage)"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=600, help="entries of the generated glossary (600)")
    parser.add_argument("--database-url", help="an empty database to fill (default: SQLite in a temporary directory)")
    return parser.parse_args()


def build(args: argparse.Namespace, workdir: Path) -> dict[str, str]:
    site = serve.build_site(argparse.Namespace(entries=args.entries, database_url=args.database_url), workdir)
    import django
    from django.core.management import call_command

    django.setup()
    started = time.perf_counter()
    call_command("build_files", "--bulk", stdout=open(os.devnull, "w"))  # noqa: SIM115
    print(f"bulk files: {time.perf_counter() - started:.1f} s")
    from django.db import connections

    from rules.api.bulk import wanted_files

    pairs = [(game.slug, language) for game, language, _path in wanted_files() if game is not None]
    connections.close_all()
    env = dict(site.env)
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SECURE_SSL_REDIRECT="0",  # plain http on the loopback
        DJANGO_SECURE_COOKIES="0",
        DJANGO_HSTS_SECONDS="0",
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SITE_URL="",
    )
    env["RULESITE_BENCH_PAIRS"] = json.dumps(pairs)
    return env


def measure(base: str, pairs: list[tuple[str, str]]) -> tuple[list[dict], list[int]]:
    from playwright.sync_api import expect, sync_playwright

    sys.path.insert(0, str(serve.ROOT))
    from tests.browser.conftest import CHROMIUM_ARGS, _chromium

    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        context = browser.new_context(**PHONE)
        page = context.new_page()
        page.goto(f"{base}/en/")
        page.wait_for_timeout(500)
        for slug, language in pairs:
            page.goto(f"{base}/{language if language in ('en', 'de', 'pl', 'nl') else 'en'}/games/{slug}/")
            if page.locator("[data-offline-save]").count() == 0:
                continue
            before = page.evaluate(ESTIMATE)
            button = page.locator("[data-offline-save]")
            started = time.perf_counter()
            button.click()
            expect(button).to_have_attribute("data-offline-state", "saved", timeout=60_000)
            seconds = time.perf_counter() - started
            key = f"{slug}/{button.get_attribute('data-language')}"
            meta = page.evaluate("(key) => rulesiteOffline.game(key)", key)
            after = page.evaluate(ESTIMATE)
            rows.append(
                {
                    "game": f"{slug} ({meta['language']})",
                    "entries": meta["entries"],
                    "download": meta.get("download") or 0,
                    "stored": meta["size"],
                    "estimate": after - before,
                    "seconds": seconds,
                }
            )
        context.set_offline(True)
        renders = []
        slug = serve.GAME_SLUG
        entries = page.evaluate(
            """(key) => rulesiteOffline.searchRecord(key).then((record) => record.rows.map((row) => row[0]))""",
            f"{slug}/en",
        )
        for entry in (entries[0], entries[len(entries) // 2], entries[-1]):
            page.goto(f"{base}/en/games/{slug}/rules/{entry}/")
            expect(page.locator("html")).to_have_attribute("data-offline-view", "entry")
            renders.append(int(page.locator("html").get_attribute("data-offline-render-ms")))
        browser.close()
    return rows, renders


def kb(value: int) -> str:
    return f"{value / 1024:,.0f} KB"


def main() -> int:
    args = parse_args()
    gunicorn = Path(sys.executable).parent / "gunicorn"
    with tempfile.TemporaryDirectory(prefix="rulesite-offline-bench-") as directory:
        workdir = Path(directory)
        env = build(args, workdir)
        pairs = json.loads(env.pop("RULESITE_BENCH_PAIRS"))
        with serve.serving(gunicorn, env, workdir / "gunicorn.log") as base:
            rows, renders = measure(base, pairs)
    print()
    print(f"{'game (language)':40} {'entries':>7} {'download':>10} {'saved copy':>11} {'estimate':>10} {'save':>7}")
    for row in rows:
        print(
            f"{row['game']:40} {row['entries']:>7} {kb(row['download']):>10} {kb(row['stored']):>11} "
            f"{kb(row['estimate']):>10} {row['seconds']:>6.2f}s"
        )
    print(f"offline entry page, navigation start to text: {', '.join(f'{ms} ms' for ms in renders)}")
    generated = next(row for row in rows if row["game"].startswith(serve.GAME_SLUG))
    met = {
        f"save under {SAVE_BUDGET_S:.0f} s": generated["seconds"] < SAVE_BUDGET_S,
        "under 2 MB stored": max(generated["stored"], generated["estimate"]) < STORAGE_BUDGET,
        f"entry page under {RENDER_BUDGET_MS} ms": max(renders) < RENDER_BUDGET_MS,
    }
    for name, ok in met.items():
        print(f"{name}: {'met' if ok else 'MISSED'}")
    return 0 if all(met.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
