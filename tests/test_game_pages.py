"""A game's page lists its entries from HTML stored when the game was written
(rules/derived/game_pages.py): the lists follow every write, read in the reader's UI
language, and are what a fresh computation makes."""

import re

import pytest

from faq.models import Question
from rules.content.models import Entry
from rules.content.querysets import Status
from rules.derived import game_pages
from rules.derived.models import GameLanguage
from tests.factories import make_entry, make_erratum, make_game, make_question
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def listed(client, url: str) -> list[str]:
    """The titles the game page lists (glossary and sections), in order."""
    html = client.get(url).content.decode()
    return re.findall(r'<li><a href="/[a-z]{2}/games/[^"]+/rules/[^"]+/">([^<]+)</a>', html)


def build_game():
    game = make_game(slug="nightfall", name="Nightfall")
    make_entry(game=game, title="Wound", body="Take one.")
    make_entry(game=game, title="Ärger", body="Trouble.", language="de")
    return game


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


def test_the_lists_follow_every_write(client, game):
    url = f"/en/games/{game.slug}/"
    assert listed(client, url) == ["Wound"]

    attack = make_entry(game=game, title="Attack", body="Roll.")
    assert listed(client, url) == ["Attack", "Wound"]

    attack.title, attack.aliases = "Assault", ["Strike"]
    attack.save()
    page = client.get(url).content.decode()
    assert listed(client, url) == ["Assault", "Wound"]
    assert '>Assault</a> <span class="aliases">(Strike, Attack)</span>' in page  # the old title kept as alias

    attack.status = Status.DRAFT
    attack.save()
    assert listed(client, url) == ["Wound"]

    Entry.objects.get(title="Wound").delete()  # the last English entry: the German list is shown
    assert listed(client, url) == ["Ärger"]
    Entry.objects.get(title="Ärger").delete()
    assert "No entries in this game yet." in client.get(url).content.decode()


def test_counts_follow_errata_and_questions(client, game):
    url = f"/en/games/{game.slug}/"
    assert "Errata (0)" in client.get(url).content.decode()
    erratum = make_erratum(game=game, title="Fix", corrected_text="Two.")
    question = make_question(game=game, question="May I?", answer="Yes.")
    page = client.get(url).content.decode()
    assert "Errata (1)" in page and "FAQ (1 question)" in page
    # The counts changed, the lists did not: written again without them, they are intact.
    stored = GameLanguage.objects.get(game=game, language="en")
    assert (stored.errata, stored.questions) == (1, 1)
    made = game_pages._lists(game.slug, "en", game_pages._rows(game.pk, "en"))
    assert (stored.glossary_html, stored.sections_html) == made and "Wound" in stored.glossary_html
    erratum.delete()
    Question.objects.filter(pk=question.pk).delete()  # a queryset delete: still journaled by signal
    page = client.get(url).content.decode()
    assert "Errata (0)" in page and "FAQ (0 questions)" in page


def test_sections_keep_their_tree(client):
    game = make_game(slug="tree")
    chapter = make_entry(game=game, title="Setup", number="1", kind=Entry.Kind.SECTION, order=1)
    make_entry(game=game, title="Cards", number="1.1", kind=Entry.Kind.SECTION, parent=chapter, order=2)
    make_entry(game=game, title="Turns", number="2", kind=Entry.Kind.SECTION, order=3)
    html = client.get(f"/en/games/{game.slug}/").content.decode()
    tree = re.search(r'<ol class="sections".*?</ol>\s*</section>', html, re.S).group(0)
    items = re.sub(r' href="[^"]*"', "", tree)
    assert (
        "<li><a>1. Setup</a><ol class=\"subsections\"><li><a>1.1. Cards</a></li></ol></li>\n<li><a>2. Turns</a></li>"
        in items
    ), items


def test_links_and_the_badge_are_in_the_readers_language(client):
    """One stored German list, read by a German and (the game has no Dutch) a Dutch reader:
    each gets links that keep their UI language and the badge in it."""
    game = make_game(slug="nachtfall", name="Nachtfall")
    make_entry(game=game, title="Angriff", body="Würfeln.", language="de", is_fragment=True)
    german = client.get(f"/de/games/{game.slug}/").content.decode()
    dutch = client.get(f"/nl/games/{game.slug}/").content.decode()
    link = '<a href="/{}/games/nachtfall/rules/angriff/">Angriff</a> <span class="badge" lang="{}">{}</span>'
    assert link.format("de", "de", "unvollständig") in german
    assert link.format("nl", "nl", "onvolledig") in dutch
    assert GameLanguage.objects.get(game=game).glossary_html.count("/games/") == 1  # one copy for both


def test_a_language_left_without_content_is_no_longer_offered(client, game):
    assert GameLanguage.objects.filter(game=game).count() == 2
    Entry.objects.get(title="Ärger").delete()
    assert list(GameLanguage.objects.filter(game=game).values_list("language", flat=True)) == ["en"]
    assert 'data-content-language="de"' not in client.get(f"/en/games/{game.slug}/").content.decode()


def test_what_is_stored_is_what_a_fresh_computation_makes(game):
    for n in range(30):
        make_entry(game=game, title=f"Rule {n}", body="Text.", aliases=[f"R{n}"] if n % 3 else [])
    Entry.objects.filter(title="Rule 7").update(title="Rule seven")  # not journaled: the lists lag...
    assert game_pages.refresh(game.pk) == 1  # ...until the next refresh makes the English list again
    stored = GameLanguage.objects.get(game=game, language="en")
    rows = game_pages._rows(game.pk, "en")
    assert (stored.glossary_html, stored.sections_html) == game_pages._lists(game.slug, "en", rows)
    assert "Rule seven" in stored.glossary_html
    assert game_pages.refresh(game.pk) == 0  # and nothing is made twice


def test_a_body_edit_makes_no_list_again(game):
    entry = Entry.objects.get(title="Wound")
    before = GameLanguage.objects.get(game=game, language="en").fingerprint
    entry.body = "Take two."
    entry.save()
    assert GameLanguage.objects.get(game=game, language="en").fingerprint == before
    assert game_pages.refresh(game.pk) == 0
