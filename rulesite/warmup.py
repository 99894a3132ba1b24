"""What a server process loads before its first request, so that no reader waits for it.

Django loads much of a site lazily, on the first request that needs it: the URLconf
(and with it Django REST Framework, drf-spectacular and what they import, about 190 ms
on this machine), the reverse-URL tables of each language, and each language's
translation catalogues. In a gunicorn worker that is the first reader's wait, after
every start and every restart; ``rulesite.wsgi`` calls ``warm_up()`` when a worker (or,
with ``--preload``, the master) imports it, so that work is done before the worker
accepts a connection. Measured by ``bench/serve.py`` ("first misspelt search in a
fresh worker").

Not loaded here: the search vocabulary (``rules.search.vocabulary``), which is read
from the database on the first misspelt search and is part of that figure, and
templates, which are compiled by the first page that uses each one.
"""

from django.conf import settings
from django.urls import get_resolver
from django.utils import translation


def warm_up() -> None:
    resolver = get_resolver()
    for code, _name in settings.LANGUAGES:
        with translation.override(code):  # loads that language's catalogues
            resolver.reverse_dict  # noqa: B018 -- imports the URLconf, builds this language's table
