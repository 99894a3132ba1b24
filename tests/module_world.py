"""Rows written once for a whole test module, as Django's ``setUpTestData`` writes a class's.

A module whose every test reads the same rows (the API's world, the imported demo) wrote
them in every test: a unit of work or an import per test (every derived step, the stored
JSON, the search index). ``written_once`` writes them once, in a transaction kept open
while the module's tests run (each test in its own, a savepoint rolled back after it) and
rolled back when the module ends.

Only for a module whose every test asks for the rows (no test finds rows it did not ask
for) and none is transactional (a live server, ``transaction=True``: those flush the
database, and commit). In any other module it gives None, and each test writes its own.

``fixtures(write, "world")`` makes the pair a module (or a conftest) declares:
``_world_of_the_module, world = fixtures(build_world, "world")``. Each test gets a deep
copy of what ``write`` returned, so what one test changes in Python (its writes are
rolled back) no other sees.

What differs from rows written per test: on PostgreSQL, ``now()`` in SQL is the time the
outermost transaction began, so a timestamp the database sets (``Now()``) in a test is
the module's start, not the test's.
"""

import contextlib
import copy
import inspect
from collections.abc import Callable, Iterator

import pytest
from django.db import transaction


@contextlib.contextmanager
def written_once(request, django_db_blocker, fixture: str, write: Callable) -> Iterator:
    """``write()``'s result, written once for ``request``'s module (a module-scoped
    fixture's request) if each of its tests asks for ``fixture``; else None."""
    tests = [item for item in request.session.items if item.module is request.module]
    if any(_transactional(item) or fixture not in item.fixturenames for item in tests):
        yield None
        return
    with django_db_blocker.unblock(), transaction.atomic():
        yield write()
        transaction.set_rollback(True)


def fixtures(write: Callable, name: str) -> tuple:
    """(the module-scoped fixture ``_<name>_of_the_module``, the fixture ``name``) for
    ``write``'s rows: written once for a module whose every test asks for ``name``
    (``written_once``), else once per test."""
    module_name = f"_{name}_of_the_module"

    @pytest.fixture(scope="module", name=module_name)
    def of_the_module(request, django_db_setup, django_db_blocker):
        with written_once(request, django_db_blocker, name, write) as rows:
            yield rows

    def each_test(db, **module):
        rows = module[module_name]
        return write() if rows is None else copy.deepcopy(rows)

    # Asks for the module's fixture by its name, so that pytest sets it up before the
    # test's transaction (``db``), as it sets up every wider-scoped fixture a test asks
    # for first: asked from inside (``request.getfixturevalue``), its transaction would
    # be opened inside the first test's.
    keyword = inspect.Parameter.KEYWORD_ONLY
    each_test.__signature__ = inspect.Signature(
        [inspect.Parameter("db", inspect.Parameter.POSITIONAL_OR_KEYWORD), inspect.Parameter(module_name, keyword)]
    )
    return of_the_module, pytest.fixture(name=name)(each_test)


def _transactional(item) -> bool:
    marker = item.get_closest_marker("django_db")
    return marker is not None and bool(marker.kwargs.get("transaction"))
