"""A mirror of the public API, kept the two ways a client can: by paging every list, and
by following the change feed (what ``scripts/mirror.py`` does over HTTP). Tests compare
the two after writes."""

import json
from urllib.parse import urlsplit

LISTS = {
    "game": "/api/v1/games/",
    "source": "/api/v1/sources/",
    "entry": "/api/v1/entries/",
    "erratum": "/api/v1/errata/",
    "question": "/api/v1/faq/",
}


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _get(client, url: str):
    response = client.get(_path(url), headers={"accept": "application/json"})
    return response


def paged(client) -> dict[str, list[str]]:
    """Every item of every list endpoint, paged through: kind → its items' JSON, sorted."""
    found: dict[str, list[str]] = {}
    for kind, url in LISTS.items():
        items, following = [], f"{url}?page_size=100"
        while following:
            response = _get(client, following)
            assert response.status_code == 200, response.content[:300]
            page = response.json()
            items += [json.dumps(item, sort_keys=True) for item in page["results"]]
            following = page["next"]
        found[kind] = sorted(items)
    return found


class FeedMirror:
    """A client's copy, made and kept from ``/api/v1/changes/`` alone."""

    def __init__(self, cursor: int = 0):
        self.cursor = cursor
        self.items: dict[tuple[str, int], dict] = {}
        self.seen: list[dict] = []  # every change read, in order

    def follow(self, client, limit: int | None = None) -> int:
        """Read the feed from the cursor to its end; how many requests it took."""
        url = f"/api/v1/changes/?since={self.cursor}" + (f"&limit={limit}" if limit else "")
        requests = 0
        while url:
            response = _get(client, url)
            requests += 1
            assert response.status_code == 200, response.content[:300]
            page = response.json()
            for change in page["results"]:
                self.apply(client, change)
            self.seen += page["results"]
            self.cursor = page["cursor"]
            url = page["next"]
        return requests

    def apply(self, client, change: dict) -> None:
        key = (change["kind"], change["id"])
        if change["action"] in ("deleted", "removed"):
            self.items.pop(key, None)
            return
        response = _get(client, change["url"])
        if response.status_code == 404:  # gone again since: a later change says so
            self.items.pop(key, None)
            return
        assert response.status_code == 200, response.content[:300]
        self.items[key] = response.json()

    def as_lists(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {kind: [] for kind in LISTS}
        for (kind, _pk), item in self.items.items():
            found[kind].append(json.dumps(item, sort_keys=True))
        return {kind: sorted(items) for kind, items in found.items()}
