"""Rows written once for a module's tests that ask for them (tests/module_world.py): once,
seen by exactly those tests, and written again by a test that asks after they are gone.

The tests are listed here out of the order they run in: tests/conftest.py runs those
asking for both worlds first, then those asking for "moon" only, then "painted", then
"sun" only, then the rest (``in_world_order``); the counts below say so.
"""

import pytest

from rules.content.models import Game
from tests.factories import make_game
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

WRITTEN = {"moon": 0, "sun": 0}


def build_moon():
    WRITTEN["moon"] += 1
    return make_game(slug="moon", name="Moon")


def build_sun():
    WRITTEN["sun"] += 1
    return make_game(slug="sun", name="Sun")


_moon_of_the_module, moon = fixtures(build_moon, "moon")
_sun_of_the_module, sun = fixtures(build_sun, "sun")


def games() -> set[str]:
    return set(Game.objects.values_list("slug", flat=True))


def test_a_test_asking_for_neither_finds_neither():
    assert games() == set()
    assert WRITTEN == {"moon": 1, "sun": 2}  # it ran last


def test_the_first_test_asking_for_both_writes_both(moon, sun):
    assert games() == {"moon", "sun"}
    assert WRITTEN == {"moon": 1, "sun": 1}
    Game.objects.filter(slug="moon").update(name="Changed")  # rolled back after the test


def test_a_test_asking_for_one_finds_only_that_one(moon):
    assert games() == {"moon"}  # the sun's rows were rolled back before it
    assert WRITTEN == {"moon": 1, "sun": 1}
    assert Game.objects.get(slug="moon").name == "Moon"  # not the last test's change


def test_the_next_test_asking_for_both_finds_them_written_once(moon, sun):
    assert games() == {"moon", "sun"}
    assert WRITTEN == {"moon": 1, "sun": 1}
    moon.name = "Renamed in Python"  # a copy: no other test sees it


def test_each_test_gets_its_own_copy(moon):
    assert moon.name == "Moon"


def test_a_test_asking_after_the_rows_were_rolled_back_writes_its_own(sun):
    assert games() == {"sun"}
    assert WRITTEN == {"moon": 1, "sun": 2}


# Rows that depend on a module-scoped parameter: written once for each of its values.
@pytest.fixture(scope="module", params=["red", "blue"])
def colour(request):
    return request.param


PAINTED = {"red": 0, "blue": 0}


def build_painted(colour):
    PAINTED[colour] += 1
    return make_game(slug=f"painted-{colour}", name=colour.title())


_painted_of_the_module, painted = fixtures(build_painted, "painted", by=("colour",))


@pytest.mark.parametrize("coat", [1, 2, 3])
def test_rows_of_a_parameter_are_written_once_for_each_of_its_values(painted, colour, coat):
    assert games() == {f"painted-{colour}"}
    assert painted.name == colour.title()
    assert PAINTED[colour] == 1
