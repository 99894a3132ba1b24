"""The demo content (``manage.py load_demo``) for the tests that read it."""

import io

import pytest
from django.core.management import call_command

from tests.module_world import written_once


def load_demo() -> str:
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def _demo_of_the_module(request, django_db_setup, django_db_blocker):
    """The demo imported once for the module (``tests.module_world``), not once a test."""
    with written_once(request, django_db_blocker, "demo", load_demo) as output:
        yield output


@pytest.fixture
def demo(db, _demo_of_the_module):
    """What load_demo printed, with its rows in the database."""
    return load_demo() if _demo_of_the_module is None else _demo_of_the_module
