"""Search quality over the demo content: each query finds its expected item in the top 3.

One test case per line of ``demo-queries.tsv`` (the shared set, copied verbatim from
/work/shared/search/ so a fresh clone has it) and ``more-queries.tsv`` (players'
spellings: typos, missing diacritics, other inflections, body-only words, errata and the
FAQ question). The format is in ``tests/search/__init__.py``. The expectations are read
off the demo documents in ``rules/demo/``; a failing case means the ranking is wrong, not
the line: don't loosen a line to make it pass.

The demo content is imported once for the module, inside a transaction rolled back at
the end, so other modules still start from an empty database. The index is whatever
``load_demo`` leaves behind (imports keep it current); nothing rebuilds it here.
"""

import io

import pytest
from django.core.management import call_command
from django.db import transaction

from rules.search import search

from . import QueryCase, all_queries

TOP = 3
CASES = all_queries()


@pytest.fixture(scope="module")
def demo_content(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        with transaction.atomic():
            call_command("load_demo", stdout=io.StringIO())
            yield
            transaction.set_rollback(True)


def test_the_query_sets_are_not_empty():
    languages = {case.language for case in CASES if case.file == "more-queries.tsv"}
    assert {"de", "en", "pl", "nl"} <= languages
    assert {case.file for case in CASES} == {"demo-queries.tsv", "more-queries.tsv"}


@pytest.mark.parametrize("case", CASES, ids=[case.query for case in CASES])
def test_expected_item_in_top_3(case: QueryCase, demo_content, db):
    results = search(case.query, game=case.game or None, language=case.language or None)
    top = results.hits[:TOP]
    rank = case.rank(top)
    shown = [f"{hit.type}: {hit.title}" + (f" [{hit.number}]" if hit.number else "") for hit in results.hits[:5]]
    assert rank is not None, (
        f"{case.file}:{case.line} {case.language}/{case.game} {case.query!r}: "
        f"expected {case.expectation} in the top {TOP}; got {shown or 'nothing'} "
        f"(total {results.total}, suggestion {results.suggestion!r})"
    )
