"""The demo's two community translations: the German AGoT page and the English Marvel
Champions entries, imported by load_demo and linked to their originals, as a reader
meets them on the entry pages (translations, language switcher, side by side)."""

import io

import pytest
from django.core.management import call_command

from rules.content.history import latest_version
from rules.content.journal import Change
from rules.content.models import Entry, Source

AGOT = "a-game-of-thrones-2nd-edition"
MARVEL = "marvel-champions"
# (game, translated language, translated title, original title)
PAIRS = [
    (AGOT, "de", "Ins Spiel bringen", "Put into Play"),
    (AGOT, "de", "Qualifizierer", "Qualifiers"),
    (AGOT, "de", "Reaktionen", "Reactions"),
    (AGOT, "de", "Umleiten (nur Melee-Spiel)", "Redirect (Melee game only)"),
    (AGOT, "de", "Aus dem Spiel entfernt", "Removed from Game"),
    (MARVEL, "en", "Ownership and Control", "Besitz und Kontrolle"),
    (MARVEL, "en", "You/Your", "Du, Dein"),
]


def entry(game: str, language: str, title: str) -> Entry:
    return Entry.objects.get(game__slug=game, language=language, title=title)


@pytest.mark.parametrize(("game", "language", "title", "original_title"), PAIRS, ids=[p[2] for p in PAIRS])
def test_each_translated_entry_is_linked_to_its_original(demo, game, language, title, original_title):
    translation = entry(game, language, title)
    original = Entry.objects.get(game__slug=game, title=original_title)
    assert original.language != language
    assert translation.translation_key == original.translation_key
    assert translation.translation_of == original
    assert translation.translation_base == latest_version(original).history_id
    assert translation.translation_status["up_to_date"] is True
    assert translation.status == "published"


def test_the_translations_are_every_entry_of_two_community_sources(demo):
    for game, language, count in ((AGOT, "de", 5), (MARVEL, "en", 2)):
        source = Source.objects.get(game__slug=game, language=language)
        assert source.kind == Source.Kind.COMMUNITY_TRANSLATION
        assert source.official is False
        assert "community translation" in source.attribution
        assert "written for the rulesite demo" in source.attribution
        entries = Entry.objects.filter(game__slug=game, language=language)
        assert entries.count() == count
        assert not entries.exclude(source=source).exists()
        assert not entries.filter(translation_of__isnull=True).exists()
    assert "agot2-de-referenzhandbuch-s17-community.txt: 5 translations: 5 linked, 0 already linked" in demo
    assert "marvel-champions-en-community-translation.txt: 2 translations: 2 linked, 0 already linked" in demo


def test_the_translations_say_what_the_originals_say(demo):
    reactions = entry(AGOT, "de", "Reaktionen")
    assert "Auslösebedingung" in reactions.body and "Reaktionsfenster" in reactions.body
    assert reactions.see_also == ["Unterbrechungen", "Verschachtelte Fähigkeitsabfolgen"]
    assert entry(AGOT, "de", "Ins Spiel bringen").see_also == [
        "Aufmarschieren", "Duplikate", "Einzigartige Karten", "Im Spiel und nicht im Spiel", "Totenstapel",
    ]  # fmt: skip
    assert entry(AGOT, "de", "Ins Spiel bringen").body.count("\n- ") == 3  # four bullets, as in English
    you = entry(MARVEL, "en", "You/Your")
    assert you.aliases == ["You", "Your"]
    assert len(you.see_also) == len(entry(MARVEL, "de", "Du, Dein").see_also) == 11
    ownership = entry(MARVEL, "en", "Ownership and Control")
    assert len(ownership.see_also) == len(entry(MARVEL, "de", "Besitz und Kontrolle").see_also) == 9
    assert "\n    - If an ability that changes control of a card is no longer in effect" in ownership.body


def test_the_original_page_leads_to_the_translation(demo, client):
    html = client.get(f"/en/games/{AGOT}/rules/reactions/").content.decode()
    # The language switcher's German link opens the German version, not the English page in German.
    assert (
        f'<li><a href="http://testserver/de/games/{AGOT}/rules/reaktionen/" hreflang="de" lang="de">Deutsch</a></li>'
        in html
    )
    # "Other languages" at the foot of the page, with the side-by-side view.
    assert f'<a href="/de/games/{AGOT}/rules/reaktionen/" hreflang="de" lang="de">Reaktionen (Deutsch)</a>' in html
    assert f'href="/en/games/{AGOT}/rules/reactions/compare/de/">side by side' in html
    html = client.get(f"/de/games/{MARVEL}/rules/besitz-und-kontrolle/").content.decode()
    assert (
        f'<a href="/en/games/{MARVEL}/rules/ownership-and-control/" hreflang="en" lang="en">'
        "Ownership and Control (English)</a>"
    ) in html


def test_the_translation_page_names_its_original_and_compares(demo, client):
    html = client.get(f"/de/games/{AGOT}/rules/reaktionen/").content.decode()
    assert "translation-current" in html
    assert f'<a href="/en/games/{AGOT}/rules/reactions/" hreflang="en" lang="en">Reactions</a>' in html
    response = client.get(f"/en/games/{AGOT}/rules/reactions/compare/de/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "A reaction is a triggered ability" in html
    assert "Eine Reaktion ist eine ausgelöste Fähigkeit" in html


def test_a_second_run_writes_and_links_nothing(demo):
    rows = list(Entry.objects.order_by("pk").values())
    versions, changes = Entry.history.count(), Change.objects.count()
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert list(Entry.objects.order_by("pk").values()) == rows
    assert (Entry.history.count(), Change.objects.count()) == (versions, changes)
    assert "5 translations: 0 linked, 5 already linked" in out.getvalue()
    assert "2 translations: 0 linked, 2 already linked" in out.getvalue()
