"""Installable and offline, the server's part (rules.pages.offline): the manifest in every
UI language with its icons, the service worker's headers and settings, the offline page,
and the offline search's folding held to the server's. The browser's part is
tests/browser/test_offline.py."""

import json
import re
import struct
import unicodedata
from http import HTTPStatus
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders

from rules.pages import offline

pytestmark = pytest.mark.django_db

NAMES = {
    "en": ("rulesite: rules, errata and FAQ at the table", "Rules"),
    "de": ("rulesite: Regeln, Errata und FAQ am Spieltisch", "Regeln"),
    "pl": ("rulesite: zasady, errata i FAQ przy stole", "Zasady"),
    "nl": ("rulesite: regels, errata en FAQ aan tafel", "Regels"),
}


def png_size(path: str) -> tuple[int, int]:
    head = Path(path).read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.mark.parametrize("language", NAMES)
def test_the_manifest_speaks_the_readers_language(client, language):
    response = client.get(f"/{language}/manifest.webmanifest")
    assert response.status_code == HTTPStatus.OK
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert (manifest["name"], manifest["short_name"]) == NAMES[language]
    assert manifest["lang"] == language
    assert manifest["start_url"] == f"/{language}/"
    assert (manifest["id"], manifest["scope"], manifest["display"]) == ("/", "/", "standalone")
    assert manifest["theme_color"] == "#1f4e79" and manifest["background_color"] == "#fbfaf7"


def test_the_icons_are_the_sizes_they_say(client):
    manifest = json.loads(client.get("/en/manifest.webmanifest").content)
    purposes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert purposes == {("192x192", "any"), ("512x512", "any"), ("192x192", "maskable"), ("512x512", "maskable")}
    for icon in manifest["icons"]:
        assert icon["type"] == "image/png"
        path = finders.find(icon["src"].removeprefix(settings.STATIC_URL))
        side = int(icon["sizes"].split("x")[0])
        assert png_size(path) == (side, side), icon["src"]
    assert png_size(finders.find("img/icons/apple-touch-icon.png")) == (180, 180)


def test_every_page_links_the_manifest_and_both_theme_colours(client):
    html = client.get("/de/").content.decode()
    assert '<link rel="manifest" href="/de/manifest.webmanifest">' in html
    assert 'content="#1f4e79" media="(prefers-color-scheme: light)"' in html
    assert 'content="#16324f" media="(prefers-color-scheme: dark)"' in html
    assert "js/offline.js" in html and 'data-worker="/sw.js"' in html


def test_the_service_worker_is_never_cached_stale(client):
    first = client.get("/sw.js")
    assert first.status_code == HTTPStatus.OK
    assert first["Content-Type"] == "text/javascript; charset=utf-8"
    assert first["Cache-Control"] == "no-cache"
    assert "Content-Security-Policy" in first  # its own policy: script-src 'self' covers importScripts
    head, code = first.content.decode().split("\n", 1)
    config = json.loads(re.fullmatch(r"self\.RULESITE_WORKER = (.*);", head).group(1))
    assert set(config["offline"]) == {code for code, _name in settings.LANGUAGES}
    assert config["offline"]["pl"] == "/pl/offline/"
    assert config["shell"]["js/offline-store.js"] == config["store"]
    assert re.fullmatch(r"[0-9a-f]{16}", config["version"])
    assert "importScripts(CONFIG.store)" in code
    # Not kept by the response cache (it changes with a deploy, not with content).
    from rulesite.response_cache import PublicResponseCacheMiddleware

    assert not PublicResponseCacheMiddleware.is_public(first)
    assert client.post("/sw.js").status_code == HTTPStatus.METHOD_NOT_ALLOWED


def test_the_worker_version_follows_the_static_files_manifest(monkeypatch):
    code = b"// the worker"
    without = offline.static_version(code)  # no manifest (tests): the shell's files
    assert without == offline.static_version(code)

    class Hashed:
        def __init__(self, text):
            self.text = text

        def read_manifest(self):
            return self.text

    monkeypatch.setattr(offline, "staticfiles_storage", Hashed('{"paths": {"css/site.css": "css/site.1.css"}}'))
    one = offline.static_version(code)
    monkeypatch.setattr(offline, "staticfiles_storage", Hashed('{"paths": {"css/site.css": "css/site.2.css"}}'))
    assert offline.static_version(code) != one != without


@pytest.mark.parametrize(("language", "heading"), [("en", "You are offline"), ("de", "Du bist offline")])
def test_the_offline_page(client, language, heading):
    response = client.get(f"/{language}/offline/")
    assert response.status_code == HTTPStatus.OK
    html = response.content.decode()
    assert f"<h1>{heading}</h1>" in html
    for template in ("offline-entry", "offline-corrected", "offline-results", "offline-contents"):
        assert f'<template id="{template}">' in html
    assert '<meta name="robots" content="noindex">' in html
    assert "js/offline-reader.js" in html


def test_a_games_page_offers_to_save_it(client):
    from tests.factories import make_entry, make_game

    game = make_game(slug="gwiezdna-flota", name="Gwiezdna flota")
    make_entry(game=game, language="pl", title="Zdolności")
    html = client.get("/pl/games/gwiezdna-flota/").content.decode()
    assert 'data-offline-save data-game="gwiezdna-flota" data-language="pl"' in html
    assert 'data-url="/api/v1/bulk/gwiezdna-flota/pl.json"' in html
    assert "Zapisz offline" in html


# --- offline search folds as the server does -----------------------------------------------


def folded_table() -> dict[str, str]:
    source = Path(finders.find("js/offline-store.js")).read_text()
    pairs = re.search(r'\(\s*"(.*?)"\s*\)\s*\.split', source, re.S).group(1)
    text = re.sub(r'"\s*\+\s*"', "", pairs)
    return {pair[0]: pair[2:] for pair in text.split(" ")}


def js_fold(text: str, table: dict[str, str]) -> str:
    """offline-store.js's fold(), step by step."""
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text).lower())
    text = re.sub("[\u0300-\u036f]", "", text)
    return "".join(table.get(ch, ch) if ord(ch) > 127 else ch for ch in text)


def test_offline_search_folds_every_latin_letter_as_the_server_does():
    """rules/search/normalize.py folds with anyascii; the browser has no anyascii, so
    offline-store.js decomposes and keeps a table of the letters that do not decompose."""
    from rules.search.normalize import fold

    table = folded_table()
    differ = []
    for code in range(0xC0, 0x250):
        letter = chr(code)
        if not unicodedata.category(letter).startswith("L"):
            continue
        # Both keep letters and digits only (normalize.fold; offline-store.js's words()).
        if re.sub(r"[^a-z0-9]+", "", js_fold(letter, table)) != fold(letter):
            differ.append(letter)
    assert differ == []
    assert js_fold("Zdolności Łódź Straße Æsir Ørsted", table) == "zdolnosci lodz strasse aesir orsted"
