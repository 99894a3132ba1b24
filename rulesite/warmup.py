"""What a server process loads before its first request, so that no reader waits for it.

Django loads much of a site lazily, on the first request that needs it: the URLconf
(and with it Django REST Framework, drf-spectacular and what they import, about 190 ms
on this machine), the reverse-URL tables of each language, and each language's
translation catalogues. In a gunicorn worker that is the first reader's wait, after
every start and every restart; ``rulesite.wsgi`` calls ``warm_up()`` when a worker (or,
with ``--preload``, the master) imports it, so that work is done before the worker
accepts a connection. Measured by ``bench/serve.py`` ("first misspelt search in a
fresh worker").

Semantic search's model and each process's copy of the vectors
(``rules.search.semantic.warm_up``) are loaded too when semantic search is on, and the
German and Dutch vocabularies that compound parts are looked up in
(``rules.search.compounds``): a first question would otherwise wait 100-400 ms for
them; a database not yet migrated or not reachable leaves them to the first question,
with a warning.

The digest of the code, templates and translations the stored pages are checked
against (``rules.pages.stored.deployed``, 25 ms) is made here too.

Not loaded here: the search vocabulary (``rules.search.vocabulary``), which is read
from the database on the first misspelt search and is part of that figure, and
templates, which are compiled by the first page that uses each one.
"""

import logging

from django.conf import settings
from django.db import DatabaseError
from django.urls import get_resolver
from django.utils import translation

logger = logging.getLogger(__name__)


def warm_up() -> None:
    resolver = get_resolver()
    for code, _name in settings.LANGUAGES:
        with translation.override(code):  # loads that language's catalogues
            resolver.reverse_dict  # noqa: B018 -- imports the URLconf, builds this language's table
    from rules.pages import stored
    from rules.search import compounds, semantic

    stored.deployed()  # what the stored pages are checked against: 25 ms of reading files
    try:
        compounds.warm_up()
        semantic.warm_up()
    except DatabaseError as error:  # not migrated yet, or not reachable: the first question loads them
        logger.warning("semantic search not warmed up: %s", error)
