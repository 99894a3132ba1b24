"""Rows written once for a whole test module, as Django's ``setUpTestData`` writes a class's.

A module whose every test reads the same rows (the API's world, the imported demo) wrote
them in every test: a unit of work or an import per test (every derived step, the stored
JSON, the search index). ``written_once`` writes them once, in a transaction kept open
while the module's tests run (each test in its own, a savepoint rolled back after it) and
rolled back when the module ends.

Only for a module whose every test asks for the rows (no test finds rows it did not ask
for) and none is transactional (a live server, ``transaction=True``: those flush the
database, and commit). In any other module it gives None, and each test writes its own.
"""

import contextlib
from collections.abc import Callable, Iterator

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


def _transactional(item) -> bool:
    marker = item.get_closest_marker("django_db")
    return marker is not None and bool(marker.kwargs.get("transaction"))
