#!/usr/bin/env python3
"""Keep a local JSON mirror of a rulesite's public data: the reference API client.

    python scripts/mirror.py https://rules.example.org mirror.json
    python scripts/mirror.py https://rules.example.org mirror.json --game mond --language de

The first run downloads one bulk data file (``/api/v1/bulk/``); every later run reads the
change feed from the cursor it kept (``/api/v1/changes/?since=<cursor>``) and fetches
only what changed: created and updated items from their ``url``, deleted ones dropped.
A cursor older than what the site keeps (410 Gone) starts again from a bulk file.
Standard library only; run it from cron as often as you like (a poll with nothing new is
one small request).

The mirror file is JSON: ``{"site", "cursor", "game", "language", "items": {"<kind>:<id>": item}}``,
written atomically (a new file renamed over the old one).
"""

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request

KINDS = {"games": "game", "sources": "source", "entries": "entry", "errata": "erratum", "questions": "question"}
USER_AGENT = "rulesite-mirror/1"


class Gone(Exception):
    """The site no longer keeps changes from our cursor."""


def fetch(url: str, attempts: int = 12):
    """GET ``url`` as JSON (gzip taken); None for a 404. Waits out a 503 (a bulk file
    being made) and a 429 (too many requests) as their Retry-After says."""
    for _attempt in range(attempts):
        request = urllib.request.Request(
            url, headers={"Accept": "application/json", "Accept-Encoding": "gzip", "User-Agent": USER_AGENT}
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - the user's own site URL
                body = response.read()
                if response.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                return json.loads(body)
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None
            if error.code == 410:
                raise Gone(json.loads(error.read() or b"{}").get("detail", "")) from None
            if error.code in (429, 503):
                time.sleep(min(float(error.headers.get("Retry-After") or 5), 60))
                continue
            raise
    raise RuntimeError(f"{url}: still not available after {attempts} attempts")


def full_copy(site: str, game: str | None, language: str | None) -> dict:
    """The items of one bulk file (of everything, or of one game and language), keyed
    as the change feed names them, and the cursor it was made at."""
    files = fetch(f"{site}/api/v1/bulk/")
    chosen = next(f for f in files if f["game"] == game and f["language"] == language)
    document = fetch(chosen["url"])
    items, game_ids = {}, {}
    # Games are named by slug in the files and by id in the feed: the feed's first rows
    # for a game carry both, so a mirror keys games by slug.
    for section, kind in KINDS.items():
        for item in document.get(section, []):
            key = f"game:{item['slug']}" if kind == "game" else f"{kind}:{item['id']}"
            items[key] = item
    return {"cursor": document["cursor"], "items": items, "game_ids": game_ids}


def follow(site: str, mirror: dict) -> int:
    """Apply every change after the mirror's cursor; how many were read."""
    read = 0
    url = f"{site}/api/v1/changes/?since={mirror['cursor']}&limit=1000"
    while url:
        page = fetch(url)
        for change in page["results"]:
            read += 1
            if mirror.get("game") and change["game"] != mirror["game"] and change["kind"] != "game":
                continue
            if mirror.get("language") and change["language"] not in (mirror["language"], ""):
                continue
            apply(mirror, change)
        mirror["cursor"] = page["cursor"]
        url = page["next"]
    return read


def apply(mirror: dict, change: dict) -> None:
    items, game_ids = mirror["items"], mirror.setdefault("game_ids", {})
    if change["kind"] == "game":
        game_id = str(change["id"])
        old = game_ids.get(game_id) or change.get("old_slug") or change["game"]
        items.pop(f"game:{old}", None)
        if change["action"] == "deleted":
            game_ids.pop(game_id, None)
            return
        item = fetch(change["url"])
        if item is not None:
            if mirror.get("game") and item["slug"] != mirror["game"] and old != mirror["game"]:
                return
            if mirror.get("game"):
                mirror["game"] = item["slug"]  # the game we mirror was renamed
            items[f"game:{item['slug']}"] = item
            game_ids[game_id] = item["slug"]
        return
    key = f"{change['kind']}:{change['id']}"
    if change["action"] in ("deleted", "removed"):  # removed: a release removed it (removed_in)
        items.pop(key, None)
        return
    item = fetch(change["url"])
    if item is None:  # gone again since: a later change says so
        items.pop(key, None)
    else:
        items[key] = item


def save(path: str, mirror: dict) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", dir=directory, delete=False, encoding="utf-8", suffix=".tmp") as out:
        json.dump(mirror, out, ensure_ascii=False, sort_keys=True)
    os.replace(out.name, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", help="the site's base URL, e.g. https://rules.example.org")
    parser.add_argument("path", help="the mirror file (made on the first run)")
    parser.add_argument("--game", help="only this game (its slug); with --language")
    parser.add_argument("--language", help="only this content language; with --game")
    args = parser.parse_args(argv)
    if bool(args.game) != bool(args.language):
        parser.error("--game and --language go together (or neither: everything)")
    site = args.site.rstrip("/")
    mirror = None
    if os.path.exists(args.path):
        with open(args.path, encoding="utf-8") as existing:
            mirror = json.load(existing)
        if mirror.get("site") != site:
            parser.error(f"{args.path} mirrors {mirror.get('site')}, not {site}")
    started = time.monotonic()
    if mirror is None:
        copy = full_copy(site, args.game, args.language)
        mirror = {"site": site, "game": args.game, "language": args.language, **copy}
        how = "full copy"
    else:
        how = "changes"
    try:
        read = follow(site, mirror)
    except Gone as gone:
        print(f"{gone} Starting again from a bulk file.", file=sys.stderr)
        mirror = {"site": site, "game": mirror.get("game"), "language": mirror.get("language"),
                  **full_copy(site, mirror.get("game"), mirror.get("language"))}  # fmt: skip
        read = follow(site, mirror)
    save(args.path, mirror)
    elapsed = time.monotonic() - started
    print(f"{how}: {len(mirror['items'])} items, {read} changes read, cursor {mirror['cursor']} ({elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
