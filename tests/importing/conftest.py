"""The demo content (``manage.py load_demo``) for the tests that read it."""

import io

from django.core.management import call_command

from tests.module_world import fixtures


def load_demo() -> str:
    """What load_demo printed; its rows are in the database."""
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


# Imported once for a module whose every test reads it (tests.module_world).
_demo_of_the_module, demo = fixtures(load_demo, "demo")
