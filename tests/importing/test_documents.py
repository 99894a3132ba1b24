"""Whole documents the importer has not seen before, read as a moderator would check them.

The documents under documents/ are written to look like real rules texts: a German
glossary page with hard wraps, hyphenation and a page break; an English comprehensive
rulebook with 601.2a-style rules and a table of contents; a Dutch rulebook with "1.",
"1.1" and unnumbered headings; Polish, English and German FAQs with questions, rulings,
errata and clarifications; an English Markdown rules page with [[links]]; a Dutch
glossary; an English PDF-like glossary page.
"""

from pathlib import Path

import pytest

from rules.importing import ImportOptions, parse_document

DOCUMENTS = Path(__file__).parent / "documents"


def parse(name: str, language: str, kind: str = "auto", **options):
    text = (DOCUMENTS / name).read_text(encoding="utf-8")
    parsed = parse_document(
        text,
        ImportOptions(game="test", language=language, kind=kind, **options),
        markdown=name.endswith(".md"),
    )
    return parsed


def by_title(parsed) -> dict:
    items = {item.title: item for item in parsed.items}
    assert len(items) == len(parsed.items), "titles repeat"
    return items


@pytest.mark.parametrize(
    "name, language, kind",
    [
        ("de_glossary_page.txt", "de", "glossary"),
        ("nl_glossary.txt", "nl", "glossary"),
        ("en_glossary_pdf.txt", "en", "glossary"),
        ("en_rules_page.md", "en", "glossary"),
        ("en_comprehensive_rules.txt", "en", "rulebook"),
        ("nl_rulebook.txt", "nl", "rulebook"),
        ("pl_faq_errata.txt", "pl", "faq"),
        ("en_faq.txt", "en", "faq"),
        ("de_faq.txt", "de", "faq"),
    ],
)
def test_auto_detects_the_kind(name, language, kind):
    assert parse(name, language).detected_kind == kind


class TestGermanGlossaryPage:
    def items(self):
        return by_title(parse("de_glossary_page.txt", "de"))

    def test_entries(self):
        items = self.items()
        assert list(items) == ["Angriff", "Begegnungskarte", "Bereit machen"]
        assert all(
            item.type == "entry" and item.entry_kind == "glossary" and item.parent is None
            for item in items.values()
        )

    def test_hard_wraps_and_hyphenation(self):
        body = self.items()["Begegnungskarte"].body
        assert "Wird eine Begegnungskarte aufgedeckt" in body  # "Begegnungs-" + "karte"
        assert "Spieler- und Begegnungskarten werden nie gemischt" in body
        assert (
            "Karten mit Marvel-Helden auf der Rückseite" in body
        )  # a real compound keeps its hyphen
        assert "in die Nicht-im-Spiel-Zone eines Spielers" in body
        assert "Eine aufgedeckte Begegnungskarte mit dem Schlüsselwort „Wucht“" in body
        assert "während der Spielerphase aufgedeckt" in body
        assert "-\n" not in body and "  " not in body

    def test_an_entry_goes_on_after_the_page_break(self):
        items = self.items()
        body = items["Begegnungskarte"].body
        assert "der aktive Spieler sie nicht kontrolliert. Diese Regel hat Vorrang" in body
        assert "17" not in body
        assert "\n" not in body  # one paragraph, not two

    def test_bullets_nested_by_indentation(self):
        body = self.items()["Angriff"].body
        assert body.endswith(
            "es sei denn, eine Karte sagt etwas anderes:\n\n"
            "- Verbündete können angreifen, solange sie nicht betäubt sind.\n"
            "- Helden können angreifen, wenn sie sich in ihrer Heldengestalt befinden.\n"
            "    - Ein Held in Alter-Ego-Gestalt kann nicht angreifen."
        )

    def test_siehe_auch_lines_are_cross_references(self):
        items = self.items()
        assert items["Angriff"].cross_references == [
            "Betäubt",
            "Erschöpfen",
            "Schaden",
            "Verteidigung",
        ]
        # wrapped over two lines, "und" inside a label and before the last one
        assert items["Begegnungskarte"].cross_references == [
            "Begegnungsdeck",
            "Besitz und Kontrolle",
            "Im Spiel und nicht im Spiel",
            "Spielzone des Schurken",
            "Wucht",
        ]
        assert "Siehe auch" not in items["Begegnungskarte"].body


class TestEnglishComprehensiveRules:
    def items(self, **options):
        return by_title(parse("en_comprehensive_rules.txt", "en", **options))

    def test_the_table_of_contents_and_the_document_title_are_not_entries(self):
        items = self.items()
        assert not any(
            "Contents" in title or "...." in title or "Comprehensive" in title for title in items
        )

    def test_numbered_headings_are_sections_titled_by_their_text(self):
        items = self.items()
        assert [(t, i.number, i.parent) for t, i in items.items() if not i.body] == [
            ("Game Concepts", "1", None),
            ("General", "100", "Game Concepts"),
            ("Spells and Abilities", "6", None),
            ("Casting Spells", "601", "Spells and Abilities"),
            ("Activating Abilities", "602", "Spells and Abilities"),
            ("Additional Rules", "7", None),
        ]
        assert all(item.type == "entry" and item.entry_kind == "section" for item in items.values())

    def test_numbered_rules_hang_under_the_rule_their_number_extends(self):
        items = self.items()
        numbers = {item.number: item for item in items.values()}
        assert numbers["601.2a"].title == "Casting Spells 601.2a"
        assert numbers["601.2a"].parent == "Casting Spells 601.2"
        assert numbers["601.2"].parent == "Casting Spells"
        assert numbers["601.3"].parent == "Casting Spells"
        assert numbers["100.1b"].parent == "General 100.1"
        assert numbers["602.1a"].parent == "Activating Abilities 602.1"
        assert [n for n in numbers if n.startswith("601.")] == [
            "601.1",
            "601.2",
            "601.2a",
            "601.2b",
            "601.2c",
            "601.3",
        ]

    def test_rule_text_is_joined_and_not_cut_at_colons(self):
        numbers = {item.number: item for item in self.items().values()}
        assert numbers["601.2a"].body == (
            "To propose the casting of a spell, a player first moves that card from where it is to the stack. "
            "It becomes the topmost object on the stack."
        )
        assert numbers["601.2"].body.endswith("Casting a spell follows the steps below, in order:")
        assert numbers["100.1b"].body.endswith(
            "See section 8 for the additional rules that apply to multiplayer games."
        )
        assert (
            numbers["602.1"].body
            == 'Activated abilities have a cost and an effect. They are written as "[Cost]: [Effect.]"'
        )

    def test_unnumbered_headings_under_a_numbered_chapter(self):
        items = self.items()
        assert items["Timing"].parent == "Additional Rules"
        assert items["Tokens"].parent == "Additional Rules"
        assert items["Tokens"].body.endswith(
            "A token is not a card:\n\n"
            "- It has the characteristics given by the effect that created it.\n"
            "- It ceases to exist when it leaves the battlefield."
        )

    def test_a_title_template(self):
        numbers = {
            item.number: item.title for item in self.items(numbered_title="Rule {number}").values()
        }
        assert numbers["601.2a"] == "Rule 601.2a"
        assert numbers["601"] == "Casting Spells"


class TestDutchRulebook:
    def items(self):
        return by_title(parse("nl_rulebook.txt", "nl"))

    def test_sections_and_their_parents(self):
        items = self.items()
        assert [(title, item.number, item.parent) for title, item in items.items()] == [
            ("Inleiding", "", None),
            ("Spelmateriaal", "1", None),
            ("De kaarten", "1.1", "Spelmateriaal"),
            ("Het speelbord", "1.2", "Spelmateriaal"),
            ("Spelmateriaal 1.3", "1.3", "Spelmateriaal"),
            ("Voorbereiding", "2", None),
            ("Voorbereiding 2.1", "2.1", "Voorbereiding"),
            ("Voorbereiding 2.2", "2.2", "Voorbereiding"),
            ("Het spel", "3", None),
            ("Trekken", "3.1", "Het spel"),
            ("Gevecht", "3.2", "Het spel"),
            ("Gevecht 3.2.1", "3.2.1", "Gevecht"),
            ("Gevecht 3.2.2", "3.2.2", "Gevecht"),
            ("Varianten", "", None),
            ("Spel met drie spelers", "", "Varianten"),
            ("Snel spel", "", "Varianten"),
        ]

    def test_bodies(self):
        items = self.items()
        assert (
            items["Spelmateriaal"].body
            == "Het spel bevat:\n\n- 60 volkskaarten\n- 12 drakenkaarten\n- 1 speelbord"
        )
        assert items["De kaarten"].body.endswith("Elke kaart heeft een vuur- en een waterwaarde.")
        assert (
            items["Gevecht 3.2.1"].body
            == "De actieve speler legt een karakterkaart open en kiest vuur of water."
        )
        assert items["Varianten"].body == ""

    def test_zie_ook_with_and_without_colon(self):
        items = self.items()
        assert items["Voorbereiding 2.2"].cross_references == ["Trekstapel", "Karakterkaarten"]
        assert items["Gevecht 3.2.2"].cross_references == ["Terugtrekken", "Draken", "Kristallen"]


class TestPolishFaq:
    def items(self):
        return by_title(parse("pl_faq_errata.txt", "pl"))

    def test_the_title_and_introduction_are_kept_as_a_fragment(self):
        first = parse("pl_faq_errata.txt", "pl").items[0]
        assert first.is_fragment and first.type == "entry"
        assert first.body.startswith("Ten dokument zbiera odpowiedzi")

    def test_questions_with_their_topics(self):
        questions = [(t, i.topic) for t, i in self.items().items() if i.type == "question"]
        assert questions == [
            ("Czy mogę zagrać kartę wydarzenia podczas tury przeciwnika?", "Pytania ogólne"),
            ("Co się dzieje, gdy w talii gracza skończą się karty?", "Pytania ogólne"),
            (
                "Czy jednostka z Osłoną może zostać zaatakowana przez dwie jednostki w tej samej turze?",
                "Walka",
            ),
        ]

    def test_answers(self):
        items = self.items()
        assert items["Co się dzieje, gdy w talii gracza skończą się karty?"].body.startswith(
            "Gracz tasuje"
        )
        assert items[
            "Czy jednostka z Osłoną może zostać zaatakowana przez dwie jednostki w tej samej turze?"
        ].body == (
            "Nie. Osłona chroni jednostkę przed drugim atakiem:\n\n"
            "- w tej samej turze,\n- nawet jeśli atakuje inny gracz."
        )

    def test_grouping_headings_are_not_items(self):
        items = self.items()
        for heading in ("Pytania ogólne", "Walka", "Errata", "Wyjaśnienia"):
            assert heading not in items

    def test_rulings_errata_and_clarifications(self):
        items = self.items()
        assert (items["Kolejność efektów"].type, items["Kolejność efektów"].entry_kind) == (
            "entry",
            "ruling",
        )
        errata = {t: (i.erratum_kind, i.topic) for t, i in items.items() if i.type == "erratum"}
        assert errata == {
            "Mulligan": ("correction", "Errata"),
            "Karta „Pilot myśliwca” (nr 42)": ("correction", "Errata"),
            "Ukryty koszt": ("clarification", "Wyjaśnienia"),
        }
        assert items["Ukryty koszt"].cross_references == ["Pilot", "Ekwipunek", "Rezerwy"]


class TestEnglishFaq:
    def items(self):
        return by_title(parse("en_faq.txt", "en"))

    def test_q_and_a_prefixes_are_dropped(self):
        items = self.items()
        questions = {t: i.body for t, i in items.items() if i.type == "question"}
        assert questions == {
            "Can I respond to my own event with a reaction?": (
                "Yes. Each reaction opens its own window, "
                "so you may trigger a reaction to an event you played yourself."
            ),
            "If a unit with Stealth is exhausted, can it still be attacked?": (
                "No. Stealth works whether the unit is ready or exhausted."
            ),
            'What happens when two "at the start of the round" effects trigger at the same time?': (
                "The first player decides their order."
            ),
        }

    def test_errata_and_clarifications(self):
        items = self.items()
        errata = {t: i.erratum_kind for t, i in items.items() if i.type == "erratum"}
        assert errata == {
            "Errata": "correction",  # its introduction
            "Setup, page 4": "correction",
            "Core Set #17, Orbital Strike": "correction",
            "Discard Pile": "clarification",
        }
        assert items["Discard Pile"].cross_references == ["Hand", "Deck", "Out of Play"]
        assert not [i for i in items.values() if i.type == "entry"]


class TestGermanFaq:
    def test_frage_antwort_klarstellungen_korrekturen(self):
        items = by_title(parse("de_faq.txt", "de"))
        assert [
            (t, i.type, i.erratum_kind if i.type == "erratum" else "") for t, i in items.items()
        ] == [
            ("Darf ich mehrere Upgrades an denselben Verbündeten anhängen?", "question", ""),
            ("Zählt ein betäubter Charakter als spielbereit?", "question", ""),
            ("Wucht", "erratum", "clarification"),
            ("Regelheft, Seite 12", "erratum", "correction"),
        ]
        assert items["Darf ich mehrere Upgrades an denselben Verbündeten anhängen?"].body == (
            "Ja, solange jedes Upgrade einen anderen Titel hat."
        )
        assert items["Wucht"].cross_references == ["Angriff", "Schaden", "Schergen"]
        assert "Häufig gestellte Fragen" not in items


class TestEnglishMarkdownPage:
    def items(self):
        return by_title(parse("en_rules_page.md", "en"))

    def test_heading_levels_give_parents(self):
        items = self.items()
        assert [(t, i.parent) for t, i in items.items()] == [
            ("Combat", None),
            ("Attacking", "Combat"),
            ("Defending", "Combat"),
            ("Damage", None),
        ]

    def test_markup_and_links_are_kept(self):
        items = self.items()
        assert items["Combat"].body == (
            "Combat happens during the **action phase**. See [[Action Phase]] for timing, "
            "and the [official FAQ](https://example.com/faq) for rulings."
        )
        assert items["Attacking"].body == (
            "To attack, exhaust a ready [[Unit|unit]] you control and choose a target:\n\n"
            "- an enemy unit in the same lane;\n"
            "- the enemy base, if the lane is empty.\n"
            "    - Bases cannot be attacked on the first turn."
        )
        assert (
            items["Defending"].body
            == "1. The defender may exert one [[Guardian]].\n2. Damage is dealt _simultaneously_."
        )
        assert "| Tokens | Meaning |\n|--------|---------|" in items["Damage"].body

    def test_cross_reference_lines_in_markdown(self):
        items = self.items()
        assert items["Defending"].cross_references == ["Damage", "Exhaust", "Lanes"]
        assert items["Damage"].cross_references == ["Combat", "Destroy"]


class TestDutchGlossary:
    def items(self):
        return by_title(parse("nl_glossary.txt", "nl"))

    def test_entries_hyphenation_and_zie_ook(self):
        items = self.items()
        assert list(items) == ["Aanvallen", "Draak", "Zee-egel"]
        aanvallen = items["Aanvallen"]
        assert "Een aanval met een kaartsoort die" in aanvallen.body
        assert "De vuur- en waterwaarden van boosters" in aanvallen.body
        assert aanvallen.cross_references == ["Terugtrekken", "Vuurwaarde", "Waterwaarde"]
        assert (
            items["Zee-egel"].body
            == "De zee-egel is een leiderschapskaart. Een zee-egel mag niet worden afgelegd."
        )

    def test_zie_ook_inside_a_sentence_is_text_and_numbered_steps_are_a_list(self):
        draak = self.items()["Draak"]
        assert "trekken. Zie ook de regels voor kristallen." in draak.body
        assert draak.body.endswith(
            "gaat zo:\n\n1. Kies een draak op het speelbord.\n2. Schuif hem één stap naar je eigen kant.\n"
            "3. Staat hij naast je, dan krijg je een kristal."
        )
        assert draak.cross_references == ["Kristallen"]


class TestEnglishPdfGlossary:
    def items(self):
        return by_title(parse("en_glossary_pdf.txt", "en"))

    def test_entries_without_alphabet_dividers_and_page_furniture(self):
        items = self.items()
        assert list(items) == ["Attachments", "Bypass", "Challenge"]
        assert not any("Rules Reference" in i.body or "12" in i.body for i in items.values())

    def test_hyphenation_by_the_documents_own_spelling_and_the_word_list(self):
        body = self.items()["Attachments"].body
        assert "A well-known exception" in body
        assert "because of a control change" in body
        assert (
            "An attachment placed facedown by a card ability" in body
        )  # the document writes "facedown"
        assert "A Banner is a two-player attachment." in body
        assert (
            "A co-operative attachment cannot be moved." in body
        )  # the document writes "co-operative"

    def test_an_entry_continues_across_the_page_break(self):
        bypass = self.items()["Bypass"]
        assert bypass.body.endswith(
            "cannot be declared as a defender. A bypassed character still counts as a character "
            "controlled by the defending player and is still affected by any ability that targets "
            "each character in play."
        )
        assert bypass.cross_references == ["Stealth"]

    def test_a_wrapped_related_line_with_an_oxford_comma(self):
        assert self.items()["Attachments"].cross_references == [
            "Banner",
            "Facedown Cards",
            "In Play and Out of Play",
            "Leaving Play",
        ]


def test_a_numbered_rulebook_read_as_a_glossary_keeps_numbers_in_the_body():
    items = by_title(parse("nl_rulebook.txt", "nl", kind="glossary"))
    assert "Voorbereiding 2.1" not in items
    assert items["Voorbereiding"].body == (
        "**2.1** Elke speler schudt zijn volkskaarten en legt ze gedekt als trekstapel klaar.\n\n"
        "**2.2** Elke speler trekt zes kaarten. Wie geen karakterkaart heeft, mag zijn hand eenmaal opnieuw trekken."
    )
    assert items["Voorbereiding"].cross_references == ["Trekstapel", "Karakterkaarten"]
