"""Import quality a user notices: "see also" labels that name the right entries, and
words that lost their ligatures given back, without touching clean text.

The documents under documents/quality/ were written for these tests (none of them comes
from the demo data): two glossaries per language, each with a hand-written answer for every
entry's labels, two English texts with dropped ligatures and their clean originals
(en_ligatures_*; the long one made by bench/generate_ligature_text.py), and clean texts
in five languages. The share tests run the same measurement as bench/crossref_quality.py
and bench/ligature_quality.py, through ``manage.py import_rules --dry-run``.
"""

import json
import re
import sys
from pathlib import Path

import pytest

from rules.importing import ImportOptions, parse_document
from rules.importing.cleaning import clean
from rules.importing.crossrefs import (
    document_separator,
    match_cross_reference_line,
    match_redirect_line,
    parse_labels,
    split_labels,
)

QUALITY = Path(__file__).parent / "documents" / "quality"
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import crossref_quality  # noqa: E402
import ligature_quality  # noqa: E402


def items_of(text: str, language: str, **options) -> dict:
    parsed = parse_document(text, ImportOptions(game="q", language=language, kind="glossary"), **options)
    return {item.title: item for item in parsed.items}


def texts(cleaned) -> list[str]:
    return [line.text for line in cleaned.lines]


# -- Cross-reference labels ---------------------------------------------------------------


class TestSeparators:
    def test_the_document_separator_is_inferred(self):
        assert document_separator(["Turno; Lugar, cartas de", "Mazo; Robar", "Agotar, agotado; Turno"]) == ";"
        assert document_separator(["Attack, Defence", "Ready; Draw", "Hand, Deck and Discard Pile"]) == ","
        assert document_separator(["Combat (melee; ranged), Defence"]) == ","  # brackets do not count

    def test_commas_stay_inside_titles_where_semicolons_separate(self):
        assert split_labels("Evento, cartas de; Combate, reglas de; Turno", language="es", separator=";") == [
            "Evento, cartas de",
            "Combate, reglas de",
            "Turno",
        ]

    def test_a_whole_semicolon_glossary_keeps_its_inverted_titles(self):
        text = (
            "Lugar, cartas de\nLas cartas de lugar permanecen en juego.\nVéase también: Evento, cartas de; Turno\n\n"
            "Evento, cartas de\nSe juega y se descarta.\nVéase también: Lugar, cartas de; Pila, robo de\n\n"
            "Turno\nCada turno tiene tres fases.\nVéase también: Evento, cartas de\n"
        )
        items = items_of(text, "es")
        assert items["Lugar, cartas de"].cross_references == ["Evento, cartas de", "Turno"]
        assert items["Evento, cartas de"].cross_references == ["Lugar, cartas de", "Pila, robo de"]  # a wanted page

    def test_titles_with_commas_and_conjunctions_in_a_comma_glossary(self):
        known = {"würfel, keine mehr übrig", "schaden", "erschöpfen", "regeln, ausnahmen und vorrang", "zug"}
        assert split_labels("Schaden, Erschöpfen und Würfel, keine mehr übrig", known, "de") == [
            "Schaden",
            "Erschöpfen",
            "Würfel, keine mehr übrig",
        ]
        assert split_labels("Zug und Regeln, Ausnahmen und Vorrang", known, "de") == [
            "Zug",
            "Regeln, Ausnahmen und Vorrang",
        ]
        known = {"règles, exceptions et priorités", "tour"}
        assert split_labels("Tour, Règles, Exceptions et Priorités", known, "fr") == [
            "Tour",
            "Règles, Exceptions et Priorités",
        ]

    def test_the_reading_with_fewest_labels_names_an_entry_with_aliases(self):
        # "Exhaust" and "Exhausted" are aliases of the entry "Exhaust, Exhausted": one label.
        known = {"exhaust, exhausted", "exhaust", "exhausted", "ready"}
        assert split_labels("Ready, Exhaust, Exhausted", known, "en") == ["Ready", "Exhaust, Exhausted"]

    def test_an_and_between_a_known_title_and_a_wanted_one_splits(self):
        known = {"dobieranie kart"}
        assert split_labels("Dobieranie kart oraz Limit kart na ręce", known, "pl") == [
            "Dobieranie kart",
            "Limit kart na ręce",
        ]

    def test_where_no_reading_names_an_entry_the_label_stays_as_written(self):
        assert split_labels("In Play and Out of Play", {"hand"}, "en") == ["In Play and Out of Play"]
        assert split_labels("Lugar, cartas de", set(), "es", ";") == ["Lugar, cartas de"]

    def test_the_games_stored_entries_count_as_titles(self, db):
        from rules.importing import import_document

        first = "Würfel, keine mehr übrig\nSind keine Würfel mehr da, nimm sie vom Ablagestapel.\n"
        import_document(first, ImportOptions(game="dq", game_name="Dice", language="de", kind="glossary"))
        second = "Schaden\nSchaden wird mit Markern angezeigt.\nSiehe auch: Angriff, Würfel, keine mehr übrig\n"
        report = import_document(second, ImportOptions(game="dq", language="de", kind="glossary", dry_run=True))
        assert report.items[0].cross_references == ["Angriff", "Würfel, keine mehr übrig"]
        # the same line in a game without that entry: two labels as written
        alone = import_document(
            second, ImportOptions(game="dq2", game_name="Other", language="de", kind="glossary", dry_run=True)
        )
        assert alone.items[0].cross_references == ["Angriff", "Würfel", "keine mehr übrig"]


class TestConjunctions:
    def test_conjunctions_are_per_language(self):
        # "en" is Dutch for "and", not Spanish; "y" is Spanish, not Polish
        assert split_labels("Mano; En mano y fuera de la mano", language="es", separator=";") == [
            "Mano",
            "En mano y fuera de la mano",
        ]
        assert split_labels("Terugtrekken, Draken en Kristallen", language="nl") == [
            "Terugtrekken",
            "Draken",
            "Kristallen",
        ]
        assert split_labels("Piloci, Tryb y Zasady", language="pl") == ["Piloci", "Tryb y Zasady"]

    def test_a_labels_first_word_is_never_a_separator(self):
        assert split_labels("En mano y fuera de la mano", language="es") == ["En mano y fuera de la mano"]
        assert split_labels("Et cetera, Tour", language="fr") == ["Et cetera", "Tour"]
        assert split_labels("I gracz, Tura", language="pl") == ["I gracz", "Tura"]
        # a conjunction that opens a later part is the Oxford comma's "and"
        assert split_labels("Hand, Deck, and Discard Pile", language="en") == ["Hand", "Deck", "Discard Pile"]


class TestPageReferences:
    @pytest.mark.parametrize(
        "text, language, expected",
        [
            ('Damage, "Upkeep" on page 7', "en", [("Damage", ""), ("Upkeep", "7")]),
            (
                "Obrażenia, „Koszty” na stronie 9, Wyczerpanie",
                "pl",
                [("Obrażenia", ""), ("Koszty", "9"), ("Wyczerpanie", "")],
            ),
            ("Angriff, „Niederlage“ auf Seite 12", "de", [("Angriff", ""), ("Niederlage", "12")]),
            ("Nachziehstapel (S. 6), Hand", "de", [("Nachziehstapel", "6"), ("Hand", "")]),
            ("Dégâts, Défausse, voir page 4", "fr", [("Dégâts", ""), ("Défausse", "4")]),
            ("Dégâts, Épuiser (voir page 4)", "fr", [("Dégâts", ""), ("Épuiser", "4")]),
            ("Combate (pág. 8)", "es", [("Combate", "8")]),
            ("Derrota, en la página 11", "es", [("Derrota", "11")]),
            ("Porażka (str. 12–13)", "pl", [("Porażka", "12–13")]),
        ],
    )
    def test_page_references_are_dropped_from_the_label_and_the_page_kept(self, text, language, expected):
        assert parse_labels(text, language=language) == expected

    def test_the_page_reaches_the_import_report(self):
        text = "Atak\nAby zaatakować, wyczerp postać.\nPatrz także: Obrażenia, „Koszty” na stronie 9\n"
        item = items_of(text, "pl")["Atak"]
        assert item.cross_references == ["Obrażenia", "Koszty"]
        assert item.cross_reference_pages == {"Koszty": "9"}

    def test_a_page_in_the_body_is_no_cross_reference(self):
        text = "Schaden\nSchaden wird mit Markern angezeigt. Siehe Seite 14 für Beispiele.\n"
        item = items_of(text, "de")["Schaden"]
        assert item.cross_references == [] and "Siehe Seite 14" in item.body


class TestMissedLines:
    def entry(self, text: str, language: str, title: str):
        return items_of(text, language)[title]

    def test_an_indented_see_also_line(self):
        item = self.entry("Damage\nDamage is placed as tokens.\n See also: Attack, Defeat\n", "en", "Damage")
        assert item.cross_references == ["Attack", "Defeat"] and "See also" not in item.body

    @pytest.mark.parametrize(
        "line, language, labels",
        [
            ('Siehe auch "Bereit machen"', "de", ["Bereit machen"]),
            ("Voir aussi Action et Tour.", "fr", ["Action", "Tour"]),
            ("Patrz także „Koszty”", "pl", ["Koszty"]),
            ("Véase también Daño y Pila de descartes", "es", ["Daño", "Pila de descartes"]),
        ],
    )
    def test_a_see_also_line_without_its_colon(self, line, language, labels):
        others = "".join(f"\n{label}\nTreść wpisu {number}.\n" for number, label in enumerate(labels))
        item = self.entry(f"Karta\nTo jest treść wpisu.\n{line}\n{others}", language, "Karta")
        assert item.cross_references == labels and item.body == "To jest treść wpisu."

    def test_a_see_also_at_the_end_of_a_bullet(self):
        text = (
            "Discard Pile\nEach player has one.\n- Cards are discarded face up.\n"
            "- The order can be changed at any time. See also: Deck.\n"
        )
        item = self.entry(text, "en", "Discard Pile")
        assert item.cross_references == ["Deck"]
        assert item.body.endswith("- The order can be changed at any time.")

    def test_a_see_also_inside_a_numbered_step_of_a_long_entry(self):
        text = (
            "Spielaufbau\nVor der ersten Partie geht ihr so vor:\n1. Jeder Spieler mischt sein Deck.\n"
            "2. Jeder Spieler zieht fünf Karten.\n   Siehe auch: Karten ziehen, Hand\n"
            "3. Der jüngste Spieler beginnt. Siehe auch: Zug\n"
        )
        item = self.entry(text, "de", "Spielaufbau")
        assert item.cross_references == ["Karten ziehen", "Hand", "Zug"]
        assert "Siehe" not in item.body and "3. Der jüngste Spieler beginnt." in item.body

    def test_a_see_also_mid_paragraph_stays_text(self):
        text = "Draak\nWie wint, trekt de draak. Zie ook de regels voor kristallen. Een draak telt dubbel.\n"
        item = self.entry(text, "nl", "Draak")
        assert item.cross_references == [] and "Zie ook de regels" in item.body


class TestRedirects:
    @pytest.mark.parametrize(
        "language, target, redirect",
        [
            ("en", "Exhaust, Exhausted", 'Tapped\nSee "Exhaust, Exhausted".'),
            ("de", "Erschöpfen", 'Erschöpft\nSiehe "Erschöpfen".'),
            ("pl", "Stos kart odrzuconych", "Odrzucone karty\nPatrz „Stos kart odrzuconych”."),
            ("fr", "Épuiser", "Épuisé\nvoir Épuiser"),
            ("es", "Pila de descartes", "Descartes\nVéase Pila de descartes."),
        ],
    )
    def test_a_redirect_only_entry_becomes_an_alias_of_its_target(self, language, target, redirect):
        text = f"{target}\nDer Text des Eintrags steht hier.\n\n{redirect}\n\nZug\nEin Zug hat drei Phasen.\n"
        items = items_of(text, language)
        name = redirect.split("\n")[0]
        assert name not in items
        assert name in items[target].aliases
        assert list(items) == [target, "Zug"]

    def test_a_redirect_to_an_entry_elsewhere_stays_a_redirect_without_a_body(self):
        items = items_of('Tapped\nSee "Exhaust".\n\nTurn\nA turn has three phases.\n', "en")
        assert items["Tapped"].body == "" and items["Tapped"].cross_references == ["Exhaust"]

    def test_a_sentence_is_no_redirect(self):
        assert match_redirect_line("See the rules for combat.") is None
        assert match_redirect_line("Siehe Seite 12") is None
        assert match_redirect_line('See "Exhaust".') == '"Exhaust".'
        items = items_of("Combat\nSee the rules for combat on the board.\n", "en")
        assert items["Combat"].body == "See the rules for combat on the board."

    def test_see_also_lines_are_still_recognised(self):
        assert match_cross_reference_line("See also: Attack") == "Attack"


@pytest.mark.django_db
@pytest.mark.parametrize("language", crossref_quality.LANGUAGES)
def test_share_of_entries_with_exactly_right_cross_references(language):
    right, total, problems = crossref_quality.measure(language)
    assert right / total >= 0.95, problems


@pytest.mark.django_db
def test_the_dry_run_report_names_the_pages_it_dropped_from_labels():
    report = crossref_quality.import_dry_run(QUALITY / "de_glossary.txt", "de")
    expected = json.loads((QUALITY / "de_glossary.expected.json").read_text(encoding="utf-8"))
    pages = {item["title"]: item["cross_reference_pages"] for item in report["items"] if item["cross_reference_pages"]}
    assert pages == expected["pages"]


# -- Dropped ligatures --------------------------------------------------------------------


class TestDroppedLigatureForms:
    def repaired(self, text: str, language: str = "en") -> list[str]:
        return texts(clean(text, language))

    def test_th_before_a_capitalised_name_in_mid_sentence(self):
        lines = self.repaired(
            "Travel\ne scouts move from e Old Harbour and e Grey Marsh to the eld. Some eects apply.\n"
        )
        assert lines[1] == "The scouts move from The Old Harbour and The Grey Marsh to the field. Some effects apply."

    def test_th_at_the_start_of_list_items_and_headings(self):
        lines = self.repaired(
            "e First Round\ne rst player draws.\n- e others draw four cards.\n"
            "- ose who cannot draw pass.\n1. ese cards are secret.\n"
        )
        assert lines == [
            "The First Round",
            "The first player draws.",
            "- The others draw four cards.",
            "- Those who cannot draw pass.",
            "1. These cards are secret.",
        ]

    def test_there_their_these_those_at_a_sentence_start(self):
        lines = self.repaired("Rules\nere is no limit. eir eects last. ese rst cards stay. ose eects end.\n")
        assert lines[1] == "There is no limit. Their effects last. These first cards stay. Those effects end."

    def test_a_common_word_in_mid_line_is_no_opener(self):
        # "is" stands 24 characters before the end of a long line: still mid-sentence
        text = "Passing\ne rst player passes. Some eects end.\nA player who passes now is out of the round now.\n"
        assert self.repaired(text)[2] == "A player who passes now is out of the round now."

    def test_a_plain_dictionary_word_however_rare(self):
        lines = self.repaired("Missions\ne classied missions are unfullled. Some clarications eect the rst turn.\n")
        assert lines[1] == "The classified missions are unfulfilled. Some clarifications effect the first turn."

    def test_word_fragments_where_every_ligature_is_gone_but_not_next_to_an_apostrophe(self):
        lines = self.repaired(
            "Setup\ne rst player places ve tokens. Take the gure o the eld and ip it. I've seen a dicult case.\n"
            "Shue the deck. Eects are ocial.\n"
        )
        assert lines[1:] == [
            "The first player places five tokens. Take the figure off the field and flip it. "
            "I've seen a difficult case.",
            "Shuffle the deck. Effects are official.",
        ]

    def test_fragments_stay_where_the_document_keeps_its_ligatures(self):
        # "first" and "effect" are intact: "ve" and "o" here are no damage
        text = "Setup\nThe first effect: ve tokens o the eld. Some eects and a dierent rst step.\n"
        assert "ve tokens o the" in self.repaired(text)[1]

    def test_a_second_text_written_apart_is_restored_too(self):
        damaged = (QUALITY / "en_ligatures_second_damaged.txt").read_text(encoding="utf-8")
        original = (QUALITY / "en_ligatures_second_clean.txt").read_text(encoding="utf-8")
        assert texts(clean(damaged, "en")) == texts(clean(original, "en"))


@pytest.mark.django_db
def test_ligature_quality_on_a_long_damaged_text():
    result, mismatches = ligature_quality.measure()
    assert result["words"] >= 3000 and result["damaged"] >= 500
    assert result["restored"] / result["damaged"] >= 0.98, result["broken_examples"]
    assert result["invented"] <= 2, result["invented_examples"]
    assert mismatches == []


@pytest.mark.django_db
def test_every_reported_repair_is_in_the_imported_text_as_often_as_reported():
    """The report and the output agree: each "X → Y, N×" repair was made N times, and no
    damaged word the report claims to have repaired is left in titles, bodies or labels."""
    path = QUALITY / "en_ligatures_damaged.txt"
    report = crossref_quality.import_dry_run(path, "en", game="lig")
    damaged = ligature_quality.words(path.read_text(encoding="utf-8"))
    output = ligature_quality.output_words(report)
    assert ligature_quality.report_mismatches(report, damaged, output) == []
    repaired = {r["original"] for r in report["repairs"] if r["note"].startswith("dropped ligature")}
    assert repaired >= {"e", "eect", "ese", "ose", "eir", "ere", "rst"}
    clean_words = set(ligature_quality.words((QUALITY / "en_ligatures_clean.txt").read_text(encoding="utf-8")))
    left = [word for word in output if word in repaired and word not in clean_words]  # "is" is a word too
    assert left == []
    assert "e" not in output  # a lone "e" is never an English word


def test_report_and_output_agree_on_titles_list_items_and_labels():
    text = (
        "e Final Round\ne rst player draws.\n- e others draw four cards.\nSee also: e Red Tower, Eects\n\n"
        "e Red Tower\ne tower blocks the eld.\n\nEects\nAn eect lasts one round.\n"
    )
    parsed = parse_document(text, ImportOptions(game="q", language="en", kind="glossary"))
    items = {item.title: item for item in parsed.items}
    assert list(items) == ["The Final Round", "The Red Tower", "Effects"]
    assert items["The Final Round"].cross_references == ["The Red Tower", "Effects"]
    assert items["The Final Round"].body == "The first player draws.\n\n- The others draw four cards."
    reported = {
        (r.original, r.replacement): int(re.match(r"dropped ligature, (\d+)×", r.note).group(1)) for r in parsed.repairs
    }
    assert reported[("e", "The")] == 6  # two titles, a body line, a list item, a label, a body
    assert reported[("eect", "effect")] == 1 and reported[("Eects", "Effects")] == 2


# -- Clean texts are never touched ----------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "de", "pl", "es", "fr"])
def test_a_clean_text_imports_unchanged(language):
    path = QUALITY / f"clean_{language}.txt"
    report = crossref_quality.import_dry_run(path, language, game=f"clean-{language}")
    assert report["repairs"] == []
    imported = " ".join(f"{item['title']} {item['body']}" for item in report["items"]).replace("\\", "")
    assert " ".join(imported.split()) == " ".join(path.read_text(encoding="utf-8").split())
