"""Rows written once for the tests of a module that read them, as Django's
``setUpTestData`` writes a class's.

A module whose tests read the same rows (the API's world, the imported demo) wrote them
in every test: a unit of work or an import per test (every derived step, the stored
JSON, the search index). ``written_once`` writes them once, in a transaction kept open
while the module's tests that ask for them run (each test in its own, a savepoint rolled
back after it), and rolled back before the first test of the module that does not ask
for them, or when the module ends.

- **No test sees rows it did not ask for.** Before each test, ``close_unasked`` rolls
  back every open module transaction the test does not ask for (tests/conftest.py's
  ``pytest_runtest_setup``), and ``in_world_order`` (its ``pytest_collection_modifyitems``)
  puts the tests of each module that ask for its rows first, in their order, then the
  others in theirs, so the rows are written once. A test that asks for them after they
  were rolled back writes its own, as every test did before.
- **Not when any test asking for them is transactional** (a live server,
  ``transaction=True``): those flush the database, and commit. Each test then writes
  its own.

``fixtures(write, "world")`` makes the pair a module (or a conftest) declares:
``_world_of_the_module, world = fixtures(build_world, "world")``. Each test gets a deep
copy of what ``write`` returned, so what one test changes in Python (its writes are
rolled back) no other sees. With ``by=("kind", "status")`` the rows depend on those
module-scoped fixtures (parametrized: ``write(kind=…, status=…)``), and are written once
for each of their combinations: pytest runs a module's tests grouped by such parameters,
and makes the module's fixture again, its rows rolled back first, for each group.

What differs from rows written per test: on PostgreSQL, ``now()`` in SQL is the time the
outermost transaction began, so a timestamp the database sets (``Now()``) in a test is
the module's start, not the test's; and a test's ids come after the module's rows'.
"""

import contextlib
import copy
import inspect
from collections.abc import Callable, Iterator

import pytest
from django.db import transaction


class Written:
    """Rows written once, in a transaction open until ``close``."""

    def __init__(self, rows, stack: contextlib.ExitStack):
        self.rows, self._stack, self.closed = rows, stack, False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._stack.close()


# (module name, fixture name) → its rows while their transaction is open, in the order
# they were opened (each transaction inside the ones before it)
_open: dict[tuple[str, str], Written] = {}


@contextlib.contextmanager
def written_once(request, django_db_blocker, fixture: str, write: Callable) -> Iterator[Written | None]:
    """``write()``'s rows, written once for ``request``'s module (a module-scoped
    fixture's request) unless a test of it asking for ``fixture`` is transactional
    (then None)."""
    asking = [item for item in request.session.items if item.module is request.module and fixture in item.fixturenames]
    if any(_transactional(item) for item in asking):
        yield None
        return
    stack = contextlib.ExitStack()
    stack.enter_context(django_db_blocker.unblock())
    stack.enter_context(transaction.atomic())
    stack.callback(transaction.set_rollback, True)  # run first when the stack closes
    try:
        written = Written(write(), stack)
    except BaseException:
        stack.close()
        raise
    key = (request.module.__name__, fixture)
    _open[key] = written
    try:
        yield written
    finally:
        written.close()
        _open.pop(key, None)


def close_unasked(item) -> None:
    """Roll back the rows written once in ``item``'s module that ``item`` does not ask for.
    Their transactions nest in the order they were opened (``_open``'s), so those opened
    after an unasked one are rolled back first, even if asked for (a test asking for them
    then writes its own): closed out of order, the outer transaction would roll back to
    the inner one's savepoint and keep its own rows."""
    opened = [key for key in _open if key[0] == item.module.__name__]
    unasked = [n for n, (_module, fixture) in enumerate(opened) if fixture not in item.fixturenames]
    if unasked:
        for key in reversed(opened[unasked[0]:]):
            _open.pop(key).close()


def in_world_order(items: list) -> None:
    """In each run of consecutive tests of one module, those asking for rows written once
    first (``fixtures``), in their order, then the others in theirs."""
    start = 0
    while start < len(items):
        end = start
        while end < len(items) and getattr(items[end], "module", None) is getattr(items[start], "module", None):
            end += 1
        run = items[start:end]
        asked = [_worlds(item) for item in run]
        names = sorted(set().union(*asked))
        if names:
            order = sorted(range(len(run)), key=lambda n: tuple(name not in asked[n] for name in names))
            items[start:end] = [run[n] for n in order]
        start = end


def _worlds(item) -> set[str]:
    """The fixtures made by ``fixtures`` that ``item`` asks for."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    return {
        name
        for name, definitions in info.name2fixturedefs.items()
        if definitions and getattr(definitions[-1].func, "written_once_as", None) == name
    }


def fixtures(write: Callable, name: str, by: tuple[str, ...] = ()) -> tuple:
    """(the module-scoped fixture ``_<name>_of_the_module``, the fixture ``name``) for
    ``write``'s rows: written once for the module's tests that ask for ``name``
    (``written_once``), for each combination of the module-scoped fixtures ``by``,
    else once per test."""
    module_name = f"_{name}_of_the_module"
    keyword = inspect.Parameter.KEYWORD_ONLY

    def of_the_module(request, django_db_setup, django_db_blocker, **values):
        with written_once(request, django_db_blocker, name, lambda: write(**values)) as written:
            yield written

    def each_test(db, **asked):
        written = asked.pop(module_name)
        return write(**asked) if written is None or written.closed else copy.deepcopy(written.rows)

    # Each asks for what it needs by name (pytest reads the signature). The test's asks
    # for the module's fixture, so that pytest sets it up before the test's transaction
    # (``db``), as it sets up every wider-scoped fixture a test asks for first: asked from
    # inside (``request.getfixturevalue``), its transaction would be opened inside the
    # first test's.
    given = [inspect.Parameter(value, keyword) for value in by]
    of_the_module.__signature__ = inspect.Signature(
        [inspect.Parameter(arg, keyword) for arg in ("request", "django_db_setup", "django_db_blocker")] + given
    )
    each_test.__signature__ = inspect.Signature(
        [inspect.Parameter("db", inspect.Parameter.POSITIONAL_OR_KEYWORD), inspect.Parameter(module_name, keyword)]
        + given
    )
    each_test.written_once_as = name
    return pytest.fixture(scope="module", name=module_name)(of_the_module), pytest.fixture(name=name)(each_test)


def _transactional(item) -> bool:
    marker = item.get_closest_marker("django_db")
    return marker is not None and bool(marker.kwargs.get("transaction"))
