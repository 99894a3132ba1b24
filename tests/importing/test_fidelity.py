"""Importer fidelity on forms nobody wrote the code for (issue 21, item 8).

* "See X in section Y" in every language the importer reads: the label is X; the section
  is no label and no entry.
* A one-letter glossary term with its own definition ("X", "A") is an entry; a lone
  letter that divides an alphabetical glossary, with no text of its own, is not.
* A "Related topics" line ("Verwandte Themen", "Powiązane tematy", "Zie ook", "Voir
  aussi", "Temas relacionados" …) standing alone above a list is no entry: the labels
  under it are the cross-references of the entry it closes.
"""

import pytest

from rules.importing import ImportOptions, parse_document
from rules.importing.crossrefs import match_cross_reference_line, split_labels


def items_of(text: str, language: str) -> dict:
    parsed = parse_document(text, ImportOptions(game="f", language=language, kind="glossary"))
    return {item.title: item for item in parsed.items}


def glossary(see_line: str) -> str:
    """Three entries; the first closes with ``see_line`` and names the other two."""
    return (
        "Harvest\nEach farmer takes one sack from every field.\n"
        f"{see_line}\n\n"
        "Field\nA square of the farm board where grain grows.\n\n"
        "Granary\nWhere grain is kept over winter.\n"
    )


# -- "see X in section Y" ------------------------------------------------------------------

SECTION_LINES = [
    ("en", "See also: Field in the Setup section, Granary"),
    ("en", "See also: Field (section Setup), Granary"),
    ("en", "See also: Field in section 4, Granary"),
    ("en", 'See also "Field" in the "Setup" chapter and "Granary".'),
    ("en", "See also: Field, in the Setup section; Granary"),
    ("de", "Siehe auch: Field im Bereich „Aufbau“, Granary"),
    ("de", "Siehe auch: Field im Abschnitt Aufbau und Granary"),
    ("de", "Siehe auch: Field (Kapitel Aufbau), Granary"),
    ("pl", "Zob. też: Field w rozdziale Przygotowanie, Granary"),
    ("pl", "Zobacz także: Field (rozdział Przygotowanie) i Granary"),
    ("pl", "Patrz też: Field w sekcji „Przygotowanie”, Granary"),
    ("nl", "Zie ook: Field in het hoofdstuk Voorbereiding, Granary"),
    ("nl", "Zie ook: Field (hoofdstuk Voorbereiding) en Granary"),
    ("fr", "Voir aussi : Field dans la section Mise en place ; Granary"),
    ("fr", "Voir aussi : Field (chapitre Mise en place), Granary"),
    ("fr", "Voir aussi : Field au chapitre « Mise en place », Granary"),
    ("es", "Véase también: Field en la sección Preparación, Granary"),
    ("es", "Véase también: Field (sección Preparación) y Granary"),
    ("es", "Ver también: Field en el capítulo Preparación, Granary"),
]


@pytest.mark.parametrize("language, line", SECTION_LINES)
def test_a_section_after_a_label_is_no_part_of_it(language, line):
    items = items_of(glossary(line), language)
    assert items["Harvest"].cross_references == ["Field", "Granary"]
    assert set(items) == {"Harvest", "Field", "Granary"}


SEE_LINES = [
    ("en", "See Field in the Setup section."),
    ("en", "see Field (section Setup)"),
    ("en", "See Field in the Setup chapter"),
    ("de", "Siehe „Field“ im Bereich „Aufbau“"),
    ("de", "Siehe Field im Kapitel Aufbau."),
    ("pl", "zob. Field w rozdziale Przygotowanie"),
    ("pl", "Patrz Field w sekcji „Przygotowanie”."),
    ("nl", "zie Field in het hoofdstuk Voorbereiding"),
    ("nl", "Zie Field in de sectie Voorbereiding."),
    ("fr", "voir Field dans la section Mise en place"),
    ("fr", "Voir « Field » au chapitre « Mise en place »."),
    ("es", "véase Field en la sección Preparación"),
    ("es", "Véase «Field» en el capítulo «Preparación»."),
]


@pytest.mark.parametrize("language, line", SEE_LINES)
def test_a_see_line_with_a_section_after_body_text(language, line):
    """ "See X in section Y" on a line of its own after the definition: a cross-reference,
    not body text, and never an entry of its own."""
    items = items_of(glossary(line), language)
    assert items["Harvest"].cross_references == ["Field"]
    assert items["Harvest"].body == "Each farmer takes one sack from every field."
    assert set(items) == {"Harvest", "Field", "Granary"}


@pytest.mark.parametrize("language, line", SEE_LINES)
def test_a_redirect_with_a_section_is_an_alias_of_its_target(language, line):
    text = "Field\nA square of the farm board where grain grows.\n\nAcre\n" + line + "\n"
    items = items_of(text, language)
    assert set(items) == {"Field"}
    assert "Acre" in items["Field"].aliases


def test_the_german_redirect_that_once_made_an_empty_entry():
    text = (
        "A\nDie Vorderseite des Plans, für die ersten Partien.\n\n"
        "B\nDie Rückseite des Plans.\nSiehe „A“ im Bereich „Aufbau“\n\n"
        "Kornspeicher\nSiehe „Vorrat“ im Bereich „Gebäude“.\n\n"
        "Vorrat\nWas nicht auf dem Plan liegt.\n"
    )
    items = items_of(text, "de")
    assert set(items) == {"A", "B", "Vorrat"}
    assert items["B"].cross_references == ["A"]
    assert items["Vorrat"].aliases == ["Kornspeicher"]


def test_a_section_qualifier_alone_is_no_label():
    assert split_labels("Field, in the Setup section", language="en") == ["Field"]
    assert split_labels("Tour, Rempart, dans la section Siège", language="fr") == ["Tour", "Rempart"]
    assert split_labels("Cañones, en el apartado Combate", language="es") == ["Cañones"]


def test_titles_that_only_look_like_sections_stay_whole():
    # no section word: "in" is part of the title
    assert split_labels("Cards in Play, Discard", language="en") == ["Cards in Play", "Discard"]
    assert split_labels("Im Spiel und nicht im Spiel", {"im spiel und nicht im spiel"}, "de") == [
        "Im Spiel und nicht im Spiel"
    ]
    assert split_labels("Section Control, Sectors", language="en") == ["Section Control", "Sectors"]


def test_a_sentence_after_see_is_still_text():
    items = items_of("Combat\nRoll the dice.\nSee the rules for combat in the Setup section.\n", "en")
    assert items["Combat"].cross_references == []
    items = items_of("Combat\nRoll the dice.\nSee Figure 3 for an example of a full round.\n", "en")
    assert items["Combat"].cross_references == []


# -- One-letter terms --------------------------------------------------------------------


@pytest.mark.parametrize(
    "language, text",
    [
        ("en", "X\nThe current tide, from 1 to 6. A card that says X uses the tide.\n"),
        ("de", "A\nDie Vorderseite des Hofplans, für die ersten Partien.\n"),
        ("pl", "X\nLiczba pól, o które przesuwa się kometa w tej rundzie.\n"),
        ("nl", "S\nHet startvak in de haven. Alle boten beginnen hier.\n"),
        ("fr", "A\nL'attaque d'une unité, imprimée dans le bouclier rouge.\n"),
        ("es", "X\nLa fuerza del viento en esta ronda, de 1 a 4.\n"),
    ],
)
def test_a_one_letter_term_with_its_definition_is_an_entry(language, text):
    text = "Board\nThe map the game is played on.\n\n" + text + "\nZone\nA part of the board.\n"
    items = items_of(text, language)
    letter = text.split("\n\n")[1][0]
    assert letter in items
    assert items[letter].body
    assert items["Board"].body == "The map the game is played on."


def test_index_letters_still_divide_the_glossary():
    text = (
        "A\n\nAttack\nRoll two dice.\n\nArmour\nStops one hit.\n\n"
        "B\nBoard\nThe map.\n\n"
        "D\n\nD\nA six-sided die.\n\nDefence\nRoll one die.\n"
    )
    items = items_of(text, "en")
    assert list(items) == ["Attack", "Armour", "Board", "D", "Defence"]
    assert items["D"].body == "A six-sided die."
    assert items["Armour"].body == "Stops one hit."


def test_a_one_letter_term_in_a_cross_reference_is_a_label():
    text = "A\nThe front of the board.\nSee also: B\n\nB\nThe back of the board.\nSee also: A\n"
    items = items_of(text, "en")
    assert items["A"].cross_references == ["B"]
    assert items["B"].cross_references == ["A"]


# -- "Related topics" above a list -------------------------------------------------------

RELATED = [
    ("en", "Related topics\n- Field\n- Granary"),
    ("en", "Related Topics:\nField\nGranary"),
    ("en", "RELATED TOPICS\nField, Granary"),
    ("en", "See also:\n  * Field\n  * Granary"),
    ("de", "Verwandte Themen\n– Field\n– Granary"),
    ("de", "Siehe auch\nField\nGranary"),
    ("pl", "Powiązane tematy\nField\nGranary"),
    ("pl", "Zobacz też:\n• Field\n• Granary"),
    ("nl", "Zie ook\n• Field\n• Granary"),
    ("nl", "Gerelateerde onderwerpen:\nField, Granary"),
    ("fr", "Voir aussi\n- Field\n- Granary"),
    ("fr", "Sujets connexes :\nField ; Granary"),
    ("es", "Temas relacionados\n* Field\n* Granary"),
    ("es", "Véase también:\nField\nGranary"),
]


@pytest.mark.parametrize("language, lines", RELATED)
def test_a_related_topics_line_above_a_list_names_the_entrys_cross_references(language, lines):
    items = items_of(glossary(lines), language)
    assert set(items) == {"Harvest", "Field", "Granary"}
    assert items["Harvest"].cross_references == ["Field", "Granary"]
    assert items["Harvest"].body == "Each farmer takes one sack from every field."


def test_the_list_under_related_topics_ends_where_the_next_entry_begins():
    text = (
        "Harvest\nEach farmer takes one sack from every field.\nRelated topics\nField\nGranary\n"
        "Mill\nGrinds grain into flour.\n\nField\nA square.\n\nGranary\nA store.\n"
    )
    items = items_of(text, "en")
    assert items["Harvest"].cross_references == ["Field", "Granary"]
    assert items["Mill"].body == "Grinds grain into flour."


def test_related_topics_in_markdown():
    text = (
        "## Harvest\n\nEach farmer takes one sack from every field.\n\n**Related topics**\n\n"
        "- [Field](#field)\n- [Granary](#granary)\n\n## Field\n\nA square.\n\n## Granary\n\nA store.\n"
    )
    parsed = parse_document(text, ImportOptions(game="f", language="en", kind="glossary"), markdown=True)
    items = {item.title: item for item in parsed.items}
    assert set(items) == {"Harvest", "Field", "Granary"}
    assert items["Harvest"].cross_references == ["Field", "Granary"]


def test_related_topics_with_labels_on_the_same_line():
    assert match_cross_reference_line("Related topics: Field, Granary") == "Field, Granary"
    assert match_cross_reference_line("Verwandte Themen: Acker und Ernte") == "Acker und Ernte"
    assert match_cross_reference_line("Temas relacionados: Bodega; Puerto") == "Bodega; Puerto"


# -- A document's title on two lines -------------------------------------------------------


def test_a_subtitle_under_the_documents_title_is_no_entry():
    text = (
        "LES REMPARTS DE VALBRUNE\nLexique des règles\n\n"
        "Assaut\nUne unité adjacente à un rempart peut lancer un assaut.\n\n"
        "Tour\nUne tour protège deux sections de rempart.\n"
    )
    items = items_of(text, "fr")
    assert set(items) == {"Assaut", "Tour"}
    assert items["Assaut"].parent is None


def test_a_first_group_among_others_stays_a_parent():
    text = (
        "Harbour Watch\nGuards\n\nAlarm\nEvery guard becomes alert.\n\nPatrol\nThe path a guard walks.\n\n"
        "Thieves\n\nClimb\nMove one level up.\n"
    )
    items = items_of(text, "en")
    assert {"Guards", "Thieves"} <= set(items)
    assert items["Alarm"].parent == "Guards"
