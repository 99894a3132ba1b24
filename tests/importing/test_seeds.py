"""The seven demo documents, imported by load_demo, read as a moderator would check them
(the two community translations and their links: ``test_demo_translations``)."""

import io

from django.core.management import call_command

from faq.models import Question
from rules.content.models import CrossReference, Entry, Erratum, Game


def entry(game: str, title: str) -> Entry:
    return Entry.objects.get(game__slug=game, title=title)


def test_game_slugs_other_tools_rely_on(demo):
    assert set(Game.objects.values_list("slug", flat=True)) == {
        "marvel-champions",
        "a-game-of-thrones-2nd-edition",
        "star-wars-tcg",
        "blue-moon",
    }


def test_load_demo_twice_changes_nothing(demo):
    snapshot = list(Entry.objects.order_by("pk").values_list("pk", "title", "body", "updated_at"))
    history = Entry.history.count()
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert list(Entry.objects.order_by("pk").values_list("pk", "title", "body", "updated_at")) == snapshot
    assert Entry.history.count() == history
    assert " 0 created, 0 updated" in out.getvalue()


class TestMarvelChampionsGerman:
    def test_du_dein_has_both_words_as_aliases(self, demo):
        du = entry("marvel-champions", "Du, Dein")
        assert du.language == "de"
        assert du.aliases == ["Du", "Dein"]
        assert du.slug == "du-dein"

    def test_bullets_and_nested_bullets_are_markdown_lists(self, demo):
        body = entry("marvel-champions", "Besitz und Kontrolle").body
        assert "\n- Karten kommen unter der Kontrolle ihres Besitzers ins Spiel." in body
        assert "\n    - Ein Upgrade, das an eine Karte eines Spielers angehängt ist" in body
        html = entry("marvel-champions", "Besitz und Kontrolle").body_html
        assert html.count("<ul>") == 3  # the list and two nested lists
        assert "•" not in body

    def test_every_siehe_auch_label_is_an_unresolved_reference(self, demo):
        besitz = entry("marvel-champions", "Besitz und Kontrolle")
        labels = list(besitz.cross_references.order_by("order").values_list("label", flat=True))
        assert labels == [
            "Begegnungsdeck",
            "Begegnungskarte",
            "Im Spiel und nicht im Spiel",
            "Klassifizierung",
            "Spieler",
            "Spielerdeck",
            "Spielerkarte",
            "Spielzone des Schurken",
            "Spielzone des Spielers",
        ]
        assert not besitz.cross_references.filter(target__isnull=False).exists()
        assert "Siehe auch" not in besitz.body
        du = entry("marvel-champions", "Du, Dein")
        assert du.cross_references.count() == 11


class TestGameOfThronesEnglish:
    GAME = "a-game-of-thrones-2nd-edition"

    def test_entries_and_the_leading_fragment(self, demo):
        titles = set(Entry.objects.filter(game__slug=self.GAME, language="en").values_list("title", flat=True))
        assert titles == {"Put into Play", "Qualifiers", "Reactions", "Redirect (Melee game only)", "Removed from Game"}
        fragment = entry(self.GAME, "Put into Play")
        assert fragment.is_fragment
        assert not entry(self.GAME, "Reactions").is_fragment

    def test_ligatures_repaired_from_private_use_characters(self, demo):
        bodies = " ".join(Entry.objects.filter(game__slug=self.GAME, language="en").values_list("body", flat=True))
        assert not any(0xE000 <= ord(ch) <= 0xF8FF for ch in bodies)
        assert "The gold cost of the card" in entry(self.GAME, "Put into Play").body
        assert "effect, cards that enter play" in entry(self.GAME, "Put into Play").body
        assert "satisfies the rules of marshaling" in entry(self.GAME, "Put into Play").body
        assert "the qualifier applies to each item" in entry(self.GAME, "Qualifiers").body
        assert "the first player always has the first opportunity" in entry(self.GAME, "Reactions").body
        assert "The Crown Regent title card" in entry(self.GAME, "Redirect (Melee game only)").body

    def test_x_bullets_become_list_items_and_wraps_are_joined(self, demo):
        reactions = entry(self.GAME, "Reactions").body
        item = "\n- It is possible for multiple reactions to be initiated from the same triggering condition."
        assert item in reactions
        assert "\nx " not in reactions
        assert "A reaction is a triggered ability whose text contains the boldface" in reactions

    def test_website_header_page_numbers_and_forum_text_are_gone(self, demo):
        bodies = " ".join(Entry.objects.filter(game__slug=self.GAME, language="en").values_list("body", flat=True))
        for residue in ("Zoom", "Seite", "Rules Reference", "Forenregeln", "Libble", "E-Mail", "1/32", "700996"):
            assert residue not in bodies
        removed = entry(self.GAME, "Removed from Game").body
        assert removed.endswith("is considered removed until the end of the game.")

    def test_related_lines_are_cross_references_split_correctly(self, demo):
        fragment = entry(self.GAME, "Put into Play")
        assert fragment.see_also == ["Dead pile", "Duplicates", "In Play and Out of Play", "Marshal", "Unique Cards"]
        assert entry(self.GAME, "Reactions").see_also == ["Interrupts", "Nested Ability Sequences"]
        assert entry(self.GAME, "Removed from Game").see_also == ["In Play and Out of Play"]
        assert "Related:" not in entry(self.GAME, "Reactions").body


class TestStarWarsPolish:
    GAME = "star-wars-tcg"

    def test_duplicated_text_is_imported_once(self, demo):
        assert Entry.objects.filter(game__slug=self.GAME, title="Piloci").count() == 1
        piloci = entry(self.GAME, "Piloci").body
        assert piloci.count("Jednostka może mieć dołączonego tylko jednego pilota.") == 1

    def test_build_zone_and_mulligan_are_errata(self, demo):
        errata = set(Erratum.objects.filter(game__slug=self.GAME).values_list("title", flat=True))
        assert errata == {"Zdolności aktywne w strefie budowy", "Mulligan"}
        assert not Entry.objects.filter(game__slug=self.GAME, title="Mulligan").exists()

    def test_one_word_lines_after_a_colon_are_a_list(self, demo):
        build_zone = Erratum.objects.get(game__slug=self.GAME, title="Zdolności aktywne w strefie budowy")
        assert "w strefie budowy:\n\n- Reserves\n- Upkeep\n- Hidden Cost\n- Pilot" in build_zone.corrected_text
        assert not Entry.objects.filter(game__slug=self.GAME, title__in=["Reserves", "Upkeep", "Pilot"]).exists()

    def test_question_heading_becomes_a_faq_question(self, demo):
        question = Question.objects.get(game__slug=self.GAME)
        assert question.question == "Kiedy można zagrywać zdolnościami aktywowanymi?"
        assert question.answer.count("\n- ") == 5

    def test_stray_bracket_in_a_heading_is_repaired(self, demo):
        assert entry(self.GAME, "Zdolności powiązane z punktami budowy")
        assert not Entry.objects.filter(
            title__endswith=")", game__slug=self.GAME, title__startswith="Zdolności"
        ).exists()

    def test_rulings_are_entries_with_polish_slugs(self, demo):
        titles = set(Entry.objects.filter(game__slug=self.GAME).values_list("title", flat=True))
        assert {"Piloci", "Ekwipunek", "Hidden Cost", "Efekty wyzwalane w etapie ciągnięcia"} <= titles
        slug = entry(self.GAME, "Nieunikalność i odnoszenie się po nazwie").slug
        assert slug == "nieunikalnosc-i-odnoszenie-sie-po-nazwie"


class TestBlueMoonDutch:
    GAME = "blue-moon"

    def test_introduction_and_eleven_numbered_rules_under_a_parent(self, demo):
        parent = entry(self.GAME, "Speciale Regels")
        assert parent.body.startswith("Speciale krachten op de kaarten hebben altijd voorrang")
        rules = Entry.objects.filter(game__slug=self.GAME, parent=parent).order_by("order")
        assert [r.number for r in rules] == [str(n) for n in range(1, 12)]

    def test_continuation_lines_are_joined(self, demo):
        seven = Entry.objects.get(game__slug=self.GAME, number="7")
        assert "worden eerst alle speciale krachten toegepast die de waarden verhogen" in seven.body
        ten = Entry.objects.get(game__slug=self.GAME, number="10")
        assert "open naast het speelbord. Kaarten uit de decks" in ten.body
        assert Entry.objects.filter(game__slug=self.GAME).count() == 12


def test_cross_references_resolve_when_the_target_appears(demo):
    marvel = Game.objects.get(slug="marvel-champions")
    label = CrossReference.objects.get(entry__title="Besitz und Kontrolle", label="Spielzone des Schurken")
    assert label.target is None
    villain = Entry.objects.create(game=marvel, language="de", title="Spielzone des Schurken", status="published")
    label.refresh_from_db()
    assert label.target == villain
