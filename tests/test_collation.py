"""Alphabetical order and A–Z letters as each language has them (rules.shared.collation).

Each list below is written in the order a dictionary of that language prints it, and
given to the collation shuffled.
"""

import random

import pytest

from rules.shared.collation import letter_groups, sort_by_title, sort_key

# (language, titles in that language's dictionary order)
ORDERS = {
    # DIN 5007-1: ä, ö, ü are a, o, u with a mark; ß is ss.
    "de": ["Abwerfen", "Aktion", "Angriff", "Ärger", "Öffnen", "Ort", "Straße", "Strategie", "Über", "Uhr", "Zug"],
    # Polish letters ą, ć, ę, ł, ń, ó, ś, ź, ż come after their base letters.
    "pl": [
        "Akcja",
        "Azyl",
        "Ąb",
        "Cel",
        "Czar",
        "Ćma",
        "Lód",
        "Lufa",
        "Łucznik",
        "Ognisko",
        "Ozdoba",
        "Ósemka",
        "Sąd",
        "Szansa",
        "Ściana",
        "Zamek",
        "Ząb",
        "Zwój",
        "Źródło",
        "Żeton",
    ],
    # Van Dale and the CLDR: ij is an i and a j ("IJzer" between "Ijs" and "Inzet").
    "nl": ["Aanval", "Beurt", "Ijs", "IJzer", "Inzet", "Jager", "Yard", "Zet"],
    # ñ is a letter after n; ch and ll are c+h and l+l (RAE, since 1994).
    "es": ["Carta", "Chico", "Dado", "Lanza", "Llama", "Luz", "Nube", "Núcleo", "Ñandú", "Oro"],
    "en": ["Action", "Attack", "Éclair", "Exhaust", "Öl", "Resource", "Zone"],
}


@pytest.mark.parametrize("language", ORDERS)
def test_titles_sort_as_the_language_sorts(language):
    expected = ORDERS[language]
    shuffled = expected[:]
    random.Random(language).shuffle(shuffled)
    assert shuffled != expected
    assert sort_by_title(shuffled, language, title=str) == expected


def groups(titles, language):
    return [(group.letter, group.items) for group in letter_groups(titles, language, title=str)]


def test_german_umlauts_are_filed_under_their_base_letter():
    assert groups(["Zug", "Ärger", "Öffnen", "Angriff", "Über", "Uhr", "Ort"], "de") == [
        ("A", ["Angriff", "Ärger"]),
        ("O", ["Öffnen", "Ort"]),
        ("U", ["Über", "Uhr"]),
        ("Z", ["Zug"]),
    ]


def test_polish_letters_with_marks_are_letters_of_their_own():
    letters = [letter for letter, _items in groups(ORDERS["pl"], "pl")]
    assert letters == ["A", "C", "Ć", "L", "Ł", "O", "Ó", "S", "Ś", "Z", "Ź", "Ż"]
    # Ą never starts a Polish word of its own: Polish indexes file it under A.
    assert groups(["Ąb", "Azyl"], "pl") == [("A", ["Azyl", "Ąb"])]


def test_spanish_enye_is_a_letter_after_n():
    assert groups(["Ñandú", "Oro", "Nube"], "es") == [("N", ["Nube"]), ("Ñ", ["Ñandú"]), ("O", ["Oro"])]


def test_dutch_ij_is_filed_under_i_as_the_collation_has_it():
    assert groups(["IJzer", "Jager", "Inzet"], "nl") == [("I", ["IJzer", "Inzet"]), ("J", ["Jager"])]


def test_english_ignores_accents_for_the_letter():
    assert groups(["Zone", "Éclair", "Exhaust"], "en") == [("E", ["Éclair", "Exhaust"]), ("Z", ["Zone"])]


def test_leading_quotes_and_punctuation_do_not_count():
    assert groups(["„Zauber“", "Angriff", '"Bonus"', "(Optional) Regel"], "de") == [
        ("A", ["Angriff"]),
        ("B", ['"Bonus"']),
        ("O", ["(Optional) Regel"]),
        ("Z", ["„Zauber“"]),
    ]


def test_digits_and_symbols_come_first_and_other_scripts_last():
    result = letter_groups(["Zug", "Жетон", "1. Spielaufbau", "Angriff", "★ Stern"], "de", title=str)
    assert [(g.letter, g.items) for g in result] == [
        ("#", ["★ Stern", "1. Spielaufbau"]),  # symbols sort before digits
        ("A", ["Angriff"]),
        ("Z", ["Zug"]),
        ("…", ["Жетон"]),
    ]
    anchors = [g.anchor for g in result]
    assert anchors[:3] == ["letter-0-9", "letter-A", "letter-Z"]
    assert len(set(anchors)) == len(anchors)


def test_the_same_letters_differ_by_language():
    # "Łza" is under Ł in Polish, under L in German (an L with a stroke there).
    assert groups(["Łza", "Lupe"], "pl") == [("L", ["Lupe"]), ("Ł", ["Łza"])]
    assert groups(["Łza", "Lupe"], "de") == [("L", ["Lupe", "Łza"])]


def test_sort_keys_compare_as_bytes():
    assert sort_key("Łucznik", "pl") > sort_key("Lufa", "pl")
    assert sort_key("Ärger", "de") < sort_key("Arm", "de")


def test_numbers_in_titles_sort_by_their_value():
    titles = ["Phase 10", "Phase 2", "Phase 1", "12 Karten", "3 Karten"]
    assert sort_by_title(titles, "de", title=str) == ["3 Karten", "12 Karten", "Phase 1", "Phase 2", "Phase 10"]
