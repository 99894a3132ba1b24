"""What entries store about other items equals a fresh computation (tests' shared check)."""

from rules.content.models import Entry, Game


def assert_stored_as_computed(module, field: str) -> None:
    """Every entry's stored ``field`` equals what ``module.compute`` gives now for its game
    (``rules.derived.corrections``, ``rules.derived.translation_status``: ``pk: (value, fingerprint)``),
    and is ``{}`` where the computation has nothing for it."""
    for game_id in Game.objects.values_list("pk", flat=True):
        computed = module.compute(game_id)
        stored = dict(Entry.objects.filter(game_id=game_id).values_list("pk", field))
        assert set(computed) <= set(stored), field
        for pk, value in stored.items():
            assert value == computed.get(pk, ({}, ""))[0], (field, Entry.objects.get(pk=pk).title)
