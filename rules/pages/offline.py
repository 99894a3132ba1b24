"""At the table without a signal: the web app manifest, the service worker and the
offline page (the manual, "At the table without a signal").

- ``/<lang>/manifest.webmanifest``: the installable app in the reader's UI language
  (name, short name, ``start_url`` its home page), one ``id`` for every language so a
  reader who switches language keeps one installed app. Icons are PNGs drawn from the
  one SVG by ``scripts/make_icons.py`` and committed (static files, nothing rendered
  here).
- ``/sw.js``: the service worker, at the root so its scope is the whole site. Its
  source is ``static/js/service-worker.js`` with a first line of settings: the version
  (the static files' manifest hash, so a deploy that changes any static file installs a
  new worker, which drops the old shell), the shell's URLs as the storage names them
  (hashed in production) and each UI language's offline page. ``Cache-Control:
  no-cache``: browsers revalidate it on every check, and the response cache does not
  keep it (``rulesite.response_cache``), because it changes with a deploy, not with
  content.
- ``/<lang>/offline/``: the "You are offline" page, which the worker keeps and shows
  for a page it has no copy of; the same page renders a saved game's entries, its
  search results and its contents from the browser's copy (``static/js/offline-reader.js``),
  inside the site's own page.
"""

import hashlib
import json
from functools import cache

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext, pgettext

from .http import public_page

# The light and dark themes' header colours (--header-bg in static/css/site.css) and the
# light page colour (--paper): the manifest takes one theme colour, base.html's
# <meta name="theme-color"> both.
THEME_LIGHT = "#1f4e79"
THEME_DARK = "#16324f"
BACKGROUND = "#fbfaf7"

WORKER_SOURCE = "js/service-worker.js"
# What the worker keeps when it installs: every page's styles and scripts, the entry
# page's, the offline reader and the icons (about 100 KB); pages are kept as they are opened.
SHELL = (
    "css/site.css",
    "css/rulebook.css",
    "js/search.js",
    "js/previews.js",
    "js/rule-links.js",
    "js/offline-store.js",
    "js/offline.js",
    "js/offline-reader.js",
    "img/favicon.svg",
    "img/icons/icon-192.png",
    "img/icons/icon-512.png",
    "img/icons/maskable-192.png",
    "img/icons/maskable-512.png",
)
ICONS = (
    ("img/icons/icon-192.png", "192x192", "any"),
    ("img/icons/icon-512.png", "512x512", "any"),
    ("img/icons/maskable-192.png", "192x192", "maskable"),
    ("img/icons/maskable-512.png", "512x512", "maskable"),
)


@public_page()
def manifest(request):
    """The web app manifest in the UI language of its address."""
    language = translation.get_language()
    document = {
        "id": "/",
        "name": gettext("rulesite: rules, errata and FAQ at the table"),
        "short_name": pgettext("installed app's name under its icon", "Rules"),
        "description": gettext(
            "Look up a rule in your language: glossary entries, numbered rules, errata and FAQ rulings."
        ),
        "lang": language,
        "dir": "ltr",
        "start_url": reverse("rules:home"),
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_LIGHT,
        "background_color": BACKGROUND,
        "icons": [
            {"src": static(name), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for name, sizes, purpose in ICONS
        ],
    }
    return JsonResponse(document, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False})


@public_page()
def offline_page(request):
    return render(request, "rules/offline.html")


@public_page()  # reads no parameter; not kept by the response cache all the same: it says no-cache
def service_worker(request):
    """The service worker (see the module's docstring)."""
    response = HttpResponse(worker_script(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


def worker_script() -> bytes:
    """The worker's source with its settings; made once per process (a deploy restarts
    the processes), every time with DEBUG (a developer edits the files)."""
    return _worker_script() if not settings.DEBUG else _worker_script.__wrapped__()


@cache
def _worker_script() -> bytes:
    with open(finders.find(WORKER_SOURCE), "rb") as source:
        code = source.read()
    offline = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            offline[language] = reverse("rules:offline")
    config = {
        "version": static_version(code),
        "shell": {name: static(name) for name in SHELL},
        "offline": offline,
        "store": static("js/offline-store.js"),
        "static_url": settings.STATIC_URL,
    }
    head = f"self.RULESITE_WORKER = {json.dumps(config, sort_keys=True)};\n"
    return head.encode() + code


def static_version(worker_code: bytes) -> str:
    """The static files' manifest hash (the storage's manifest names every file by its
    content hash); without a manifest (development, tests), a hash of the shell's files
    and the worker's own code."""
    digest = hashlib.sha256(worker_code)
    manifest_text = None
    if hasattr(staticfiles_storage, "read_manifest"):
        manifest_text = staticfiles_storage.read_manifest()
    if manifest_text:
        digest.update(manifest_text.encode())
    else:
        for name in SHELL:
            path = finders.find(name)
            if path:
                with open(path, "rb") as file:
                    digest.update(file.read())
    return digest.hexdigest()[:16]
