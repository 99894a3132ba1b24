"""Errata applied, translation status and the side-by-side page cost no query of their
own: the entry page stays at two (the content version and the entry), the side-by-side
page at two (the content version and both versions), however many entries, errata and
translations there are."""

import pytest
from django.contrib.auth import get_user_model

from rules.content.models import Entry
from rules.moderation.translations import start_translation
from tests.factories import make_entry, make_erratum, make_game, written_together

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _uncached(settings):
    """The rendering path is measured: the whole-response cache is off."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


def build(n: int):
    """A game whose hub entry has ``n`` errata applied (and one not found), ``n`` other
    entries each with an erratum, and a German translation of each, half of them out of date."""
    game, hub = write(n)
    return game, Entry.objects.select_related("game").get(pk=hub.pk)  # as derived when the unit ended


@written_together
def write(n: int):
    user = get_user_model().objects.create_user(f"translator-{n}")
    game = make_game()
    hub = make_entry(game=game, title="Hub", body="\n\n".join(f"Rule {i}: draw {i} cards." for i in range(n)))
    for i in range(n):
        make_erratum(game=game, title=f"Fix {i}", original_text=f"draw {i} cards", corrected_text=f"take {i} cards",
                     affects=[hub])  # fmt: skip
        other = make_entry(game=game, title=f"Term {i}", body=f"Gain {i} gold. See [[Hub]].")
        make_erratum(game=game, title=f"Gold {i}", original_text=f"Gain {i} gold", corrected_text=f"Gain {i + 2} gold",
                     affects=[other])  # fmt: skip
        german = start_translation(other, "de", user)
        german.title = f"Begriff {i}"
        german.save()
        german.status = "published"
        german.save()
        if i % 2:
            other.body = f"Gain {i} gold, then rest. See [[Hub]]."
            other.save()
    make_erratum(game=game, title="Ghost", original_text="not in any text", corrected_text="x", affects=[hub])
    hub_de = start_translation(hub, "de", user)
    hub_de.title = "Knoten"
    hub_de.save()
    hub_de.status = "published"
    hub_de.save()
    hub.body += "\n\nOne more rule."
    hub.save()
    return game, hub


def count(client, url: str):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries), response.content.decode()


def test_the_hub_is_as_built(client):
    game, hub = build(3)
    assert [e["places"] for e in hub.corrections["errata"]] == [1, 1, 1, 0]  # undated: in the errata list's order
    german = Entry.objects.get(game=game, language="de", title="Knoten")
    assert german.translation_status["up_to_date"] is False


@pytest.mark.parametrize("page", ["entry", "translation", "compare"])
def test_query_count_does_not_grow(client, page, django_assert_num_queries):
    urls = {
        "entry": lambda game, hub: hub.url_in("en"),
        "translation": lambda game, hub: f"/de/games/{game.slug}/rules/knoten/",
        "compare": lambda game, hub: f"/en/games/{game.slug}/rules/hub/compare/de/",
    }[page]
    small_game, small_hub = build(2)
    big_game, big_hub = build(20)
    small_url, big_url = urls(small_game, small_hub), urls(big_game, big_hub)
    small, html = count(client, small_url)
    # The version and the page's rows (an entry page's with its stored page).
    assert small == 2
    assert "erratum-change" in html or "translation-outdated" in html
    with django_assert_num_queries(small):
        response = client.get(big_url)
    html = response.content.decode()
    if page in ("entry", "compare"):
        assert html.count('<ins class="erratum-change"') >= 20
    if page in ("translation", "compare"):
        assert "translation-outdated" in html
