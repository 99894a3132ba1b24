"""Rows written once for a module, rolled back in the order their transactions nest
(tests/module_world.py): the first test asking for both worlds opens the lamp's first
(its first argument), so the kite's transaction is inside the lamp's; the tests asking
for the kite only run next (``in_world_order``: by name), and rolling the lamp's rows
back before them must not leave the lamp's rows, nor lose the kite's."""

import pytest

from rules.content.models import Game
from tests.factories import make_game
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

WRITTEN = {"kite": 0, "lamp": 0}


def build_kite():
    WRITTEN["kite"] += 1
    return make_game(slug="kite", name="Kite")


def build_lamp():
    WRITTEN["lamp"] += 1
    return make_game(slug="lamp", name="Lamp")


_kite_of_the_module, kite = fixtures(build_kite, "kite")
_lamp_of_the_module, lamp = fixtures(build_lamp, "lamp")


def games() -> set[str]:
    return set(Game.objects.values_list("slug", flat=True))


def test_the_first_test_asking_for_both_opens_the_lamp_first(lamp, kite):
    assert games() == {"kite", "lamp"}
    assert WRITTEN == {"kite": 1, "lamp": 1}


def test_a_test_asking_for_the_kite_only_finds_the_kite_only(kite):
    assert games() == {"kite"}
    assert WRITTEN == {"kite": 2, "lamp": 1}  # written again: its rows were inside the lamp's


def test_a_test_asking_for_neither_finds_neither():
    assert games() == set()
