"""The tricky pieces of structure.py, splitting.py and crossrefs.py, one at a time."""

import time
from html import unescape

import pytest

from rules.importing.cleaning import Line
from rules.importing.crossrefs import match_cross_reference_line, split_labels
from rules.importing.splitting import detect_kind, escape_markdown, split_items
from rules.importing.structure import (
    Evidence,
    build_blocks,
    join_wrapped,
    number_ancestors,
    outline,
    section_kind,
)
from rules.shared.markdown import render_markdown


def blocks_of(text: str, language: str = "en", markdown: bool = False):
    lines = [Line(number, raw) for number, raw in enumerate(text.split("\n"), start=1)]
    return build_blocks(lines, language, markdown=markdown)


def kinds(blocks) -> list[tuple[str, str]]:
    return [(block.type, block.text) for block in blocks]


# -- Cross-reference lines ----------------------------------------------------------------


@pytest.mark.parametrize(
    "line, labels",
    [
        ("Related: Dead pile, Duplicates", "Dead pile, Duplicates"),
        ("See also: Combat", "Combat"),
        ("Siehe auch: Angriff, Schaden", "Angriff, Schaden"),
        ("Zobacz też: Piloci", "Piloci"),
        ("Zobacz także: Piloci", "Piloci"),
        ("Patrz też: Ekwipunek", "Ekwipunek"),
        ("Zie ook: Draken", "Draken"),
        ("Zie ook Draken, Kristallen", "Draken, Kristallen"),
        ("Voir aussi : Combat, Dégâts", "Combat, Dégâts"),
        ("Véase también: Combate", "Combate"),
        ("Ver también: Combate", "Combate"),
        ("**See also:** [[Damage]], [[Exhaust]]", "[[Damage]], [[Exhaust]]"),
        ("*Siehe auch*: Angriff", "Angriff"),
        ("(See also: Combat)", "Combat"),
    ],
)
def test_cross_reference_lines_in_every_language(line, labels):
    assert match_cross_reference_line(line) == labels


@pytest.mark.parametrize(
    "line",
    [
        "Related broadcast",  # an entry titled "Related …" is no cross-reference line
        "Zie ook de regels voor kristallen.",  # a sentence that starts like one
        "See the rules for combat.",
        "Seeing is believing",
        "Siehe Seite 12",
    ],
)
def test_lines_that_are_not_cross_references(line):
    assert match_cross_reference_line(line) is None


@pytest.mark.parametrize(
    "text, labels",
    [
        # English: commas, semicolons, "and" and the Oxford comma before the last label
        (
            "Dead pile, Duplicates, In Play and Out of Play, Marshal",
            ["Dead pile", "Duplicates", "In Play and Out of Play", "Marshal"],
        ),
        ("Interrupts; Nested Ability Sequences", ["Interrupts", "Nested Ability Sequences"]),
        ("Hand, Deck and Discard Pile", ["Hand", "Deck", "Discard Pile"]),
        ("Hand, Deck, and Discard Pile", ["Hand", "Deck", "Discard Pile"]),
        (
            "In Play and Out of Play",
            ["In Play and Out of Play"],
        ),  # one label is never split by itself
        # German
        ("Begegnungsdeck, Spieler und Spielerdeck", ["Begegnungsdeck", "Spieler", "Spielerdeck"]),
        (
            "Klassifizierung, Im Spiel und nicht im Spiel",
            ["Klassifizierung", "Im Spiel und nicht im Spiel"],
        ),
        # Polish: "i" and "oraz"; a lower-case word after "i" is inside a title
        ("Piloci, Ekwipunek i Rezerwy", ["Piloci", "Ekwipunek", "Rezerwy"]),
        ("Piloci, Ekwipunek oraz Rezerwy", ["Piloci", "Ekwipunek", "Rezerwy"]),
        (
            "Piloci, Nieunikalność i odnoszenie się po nazwie",
            ["Piloci", "Nieunikalność i odnoszenie się po nazwie"],
        ),
        # Dutch, French, Spanish
        ("Terugtrekken, Draken en Kristallen", ["Terugtrekken", "Draken", "Kristallen"]),
        ("Combat, Dégâts et Défense", ["Combat", "Dégâts", "Défense"]),
        ("Combate, Daño y Defensa", ["Combate", "Daño", "Defensa"]),
        # Markup and page references go; commas inside brackets do not split
        ("[[Damage]], [[Unit|units]] and [Lanes](#lanes)", ["Damage", "Unit", "Lanes"]),
        ("Combat (page 12), Kampf (S. 4)", ["Combat", "Kampf"]),
        ("Attack (melee, ranged), Defense.", ["Attack (melee, ranged)", "Defense"]),
        ("„Treat this unit as…“, Piloci", ["Treat this unit as…", "Piloci"]),
    ],
)
def test_label_splitting(text, labels):
    assert split_labels(text) == labels


def test_the_documents_own_titles_decide_an_and_between_two_labels():
    known = {"tongue wonderful", "anniversary charts"}
    assert split_labels("Tongue wonderful and Anniversary charts", known) == [
        "Tongue wonderful",
        "Anniversary charts",
    ]
    assert split_labels("Tongue wonderful and Anniversary charts") == [
        "Tongue wonderful and Anniversary charts"
    ]
    # a known title with "and" in it stays whole even at the end of a list
    assert split_labels("Marshal, In Play and Out of Play", {"in play and out of play"}) == [
        "Marshal",
        "In Play and Out of Play",
    ]


def test_a_cross_reference_line_wraps_onto_the_next_line():
    blocks = blocks_of(
        "Reactions\nA reaction is an ability.\nRelated: Interrupts, Nested\n"
        "Ability Sequences, Passing and\nPriority\nQualifiers\nA qualifier applies."
    )
    assert [b.labels for b in blocks if b.type == "crossref"] == [
        ["Interrupts", "Nested Ability Sequences", "Passing", "Priority"]
    ]
    assert blocks[-2].type == "heading" and blocks[-2].text == "Qualifiers"


# -- Hyphenation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "left, right, language, joined",
    [
        (
            "eine Begegnungs-",
            "karte aufdecken",
            "de",
            "eine Begegnungskarte aufdecken",
        ),  # lower case: a break
        (
            "Karten mit Marvel-",
            "Helden darauf",
            "de",
            "Karten mit Marvel-Helden darauf",
        ),  # upper case: a compound
        (
            "Spieler-",
            "und Begegnungskarten",
            "de",
            "Spieler- und Begegnungskarten",
        ),  # elided compound
        ("in die Nicht-", "im-Spiel-Zone", "de", "in die Nicht-im-Spiel-Zone"),
        ("a change of con-", "trol", "en", "a change of control"),
        ("a well-", "known exception", "en", "a well-known exception"),
        ("a two-", "player game", "en", "a two-player game"),
        ("the reac-", "tion window", "en", "the reaction window"),
        ("de vuur-", "en waterwaarden", "nl", "de vuur- en waterwaarden"),
        ("een kaart-", "soort", "nl", "een kaartsoort"),
        ("een zee-", "egel", "nl", "een zee-egel"),  # the hyphen keeps "ee" + "e" apart
        ("jednostka jest dołą-", "czona", "pl", "jednostka jest dołączona"),
        ("for 2-", "4 players", "en", "for 2-4 players"),
        ("an ordinary", "line", "en", "an ordinary line"),
        ("a dash -", "like this", "en", "a dash - like this"),
    ],
)
def test_hyphenation(left, right, language, joined):
    assert join_wrapped(left, right, language) == joined


def test_the_documents_own_spelling_beats_the_word_list():
    lines = [Line(1, "Cards placed facedown are discarded. Co-operative games are shared.")]
    evidence = Evidence(lines)
    # the word list keeps "face-down" and joins "cooperative"; the document says otherwise
    assert join_wrapped("placed face-", "down", "en") == "placed face-down"
    assert join_wrapped("placed face-", "down", "en", evidence) == "placed facedown"
    assert join_wrapped("a co-", "operative game", "en") == "a cooperative game"
    assert join_wrapped("a co-", "operative game", "en", evidence) == "a co-operative game"


def test_joining_looks_only_at_the_end_of_a_long_block():
    started = time.perf_counter()
    lines = "\n".join(
        ["Giant entry"]
        + ["The player may draw a card and then dis-", "card one of them and"] * 20000
    )
    blocks = blocks_of(lines)
    assert len(blocks) == 2 and blocks[1].text.count("discard one") == 20000
    assert time.perf_counter() - started < 10  # quadratic joining would take minutes


# -- Headings, list items, page breaks -----------------------------------------------------


def test_short_lines_after_a_colon_are_list_items_not_headings():
    blocks = blocks_of(
        "Errata\nThe only abilities active in the build zone are:\nReserves\nUpkeep\nHidden Cost\n"
        "Pilot\nAll other abilities are inactive there.\nHidden Cost\nPaying a hidden cost is not an action."
    )
    assert kinds(blocks) == [
        ("heading", "Errata"),
        ("paragraph", "The only abilities active in the build zone are:"),
        ("bullet", "Reserves"),
        ("bullet", "Upkeep"),
        ("bullet", "Hidden Cost"),
        ("bullet", "Pilot"),
        ("paragraph", "All other abilities are inactive there."),
        ("heading", "Hidden Cost"),
        ("paragraph", "Paying a hidden cost is not an action."),
    ]


def test_a_heading_needs_body_text_after_it():
    blocks = blocks_of("Combat\nAttack with a ready unit.\nLast words without a full stop")
    assert kinds(blocks)[-1] == ("paragraph", "Last words without a full stop")


def test_a_heading_wrapped_after_a_connector_is_one_heading():
    blocks = blocks_of("Spielzone des\nSchurken\nDie Spielzone des Schurken liegt in der Mitte.")
    assert kinds(blocks)[0] == ("heading", "Spielzone des Schurken")


def test_a_paragraph_cut_mid_sentence_goes_on_after_a_page_break():
    text = (
        "Bypass\nEach character with stealth may choose one character without\n"
        "stealth controlled by the defending player. That character is\n"
        "bypassed and is still affected by any ability that targets the\n"
        "\n"
        "Crown Regent or any other title card.\n"
        "\n"
        "Challenge\nA challenge is an attack by one player against another.\n"
    )
    blocks = blocks_of(text)
    assert kinds(blocks)[1][1].endswith("targets the Crown Regent or any other title card.")
    assert kinds(blocks)[2] == ("heading", "Challenge")


def test_a_finished_sentence_before_a_blank_line_ends_the_paragraph():
    blocks = blocks_of("Draw\nDraw two cards.\n\nThen discard one.")
    assert kinds(blocks)[1:] == [
        ("paragraph", "Draw two cards."),
        ("paragraph", "Then discard one."),
    ]


def test_bullets_of_every_kind_and_their_nesting():
    text = (
        "Setup\nDo the following:\n"
        "• bullet\n– en dash\n▪ square\nx Lost bullet font\n- hyphen\n* star\n"
        "  • nested once\n    • nested twice\n• back out"
    )
    bullets = [(b.level, b.text) for b in blocks_of(text) if b.type == "bullet"]
    assert bullets == [
        (0, "bullet"), (0, "en dash"), (0, "square"), (0, "Lost bullet font"), (0, "hyphen"), (0, "star"),
        (1, "nested once"), (2, "nested twice"), (0, "back out"),
    ]  # fmt: skip


def test_alphabet_dividers_are_dropped():
    assert [
        b.text
        for b in blocks_of("A\n\nAttack\nAttack with a unit.\n\nB\n\nBase\nThe base is a card.")
        if b.type == "heading"
    ] == ["Attack", "Base"]


# -- Numbers ----------------------------------------------------------------------------------


def test_numbered_headings_rules_and_lists():
    text = (
        "7. Combat\n"
        "Combat has three steps:\n"
        "1. Declare\n2. Defend\n3. Damage\n"
        "7.1 Declaring Attackers\n"
        "The active player declares attackers.\n"
        "7.1a A tapped creature cannot attack.\n"
        "7.1b To attack, a creature must have been under its controller's control since the turn began.\n"
    )
    blocks = blocks_of(text)
    assert [(b.type, b.number, b.text[:20]) for b in blocks] == [
        ("heading", "7", "Combat"),
        ("paragraph", "", "Combat has three ste"),
        ("bullet", "1", "Declare"),
        ("bullet", "2", "Defend"),
        ("bullet", "3", "Damage"),
        ("heading", "7.1", "Declaring Attackers"),
        ("paragraph", "", "The active player de"),
        ("numbered", "7.1a", "A tapped creature ca"),
        ("numbered", "7.1b", "To attack, a creatur"),
    ]
    assert all(b.ordered for b in blocks if b.type == "bullet")


def test_a_numbered_line_followed_by_its_sibling_is_no_heading():
    blocks = blocks_of("Rules\n1. Players shuffle\n2. Players draw\n3. The first player starts")
    assert [b.type for b in blocks] == ["heading", "numbered", "numbered", "numbered"]


def test_number_ancestors():
    assert number_ancestors("601.2a") == ["601.2", "601", "6"]
    assert number_ancestors("2.3") == ["2"]
    assert number_ancestors("1.2.3") == ["1.2", "1"]
    assert number_ancestors("7") == []


# -- FAQ markers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question, answer, language",
    [
        ("Q: Can I pass?", "A: Yes.", "en"),
        ("F: Darf ich passen?", "A: Ja.", "de"),
        ("Frage: Darf ich passen?", "Antwort: Ja.", "de"),
        ("P: Czy mogę spasować?", "O: Tak.", "pl"),
        ("Pytanie: Czy mogę spasować?", "Odpowiedź: Tak.", "pl"),
        ("V: Mag ik passen?", "A: Ja.", "nl"),
        ("Vraag: Mag ik passen?", "Antwoord: Ja.", "nl"),
        ("**Q:** Can I pass?", "**A:** Yes.", "en"),
    ],
)
def test_question_and_answer_prefixes(question, answer, language):
    blocks = blocks_of(f"{question}\n{answer}", language)
    assert blocks[0].type == "heading" and blocks[0].question
    assert ":" not in blocks[0].text and blocks[0].text.endswith("?")
    assert blocks[1].answer and ":" not in blocks[1].text


def test_a_prefixed_question_runs_on_until_its_question_mark():
    blocks = blocks_of(
        "Q: Can I respond to my own event\nwith a reaction?\nYes, you can.\nQ: Can I pass?\nNo."
    )
    assert kinds(blocks) == [
        ("heading", "Can I respond to my own event with a reaction?"),
        ("paragraph", "Yes, you can."),
        ("heading", "Can I pass?"),
        ("paragraph", "No."),
    ]


def test_an_answer_prefix_is_only_stripped_after_a_question():
    assert (
        blocks_of("Options\nChoose one of these.\nA: draw two cards")[-1].text
        == "A: draw two cards"
    )


@pytest.mark.parametrize(
    "title, kind",
    [
        ("Errata", "errata"),
        ("Erratum", "errata"),
        ("Korekty", "errata"),
        ("Errata i korekty", "errata"),
        ("Correcties", "errata"),
        ("Corrections", "errata"),
        ("Card Errata", "errata"),
        ("Errata & Clarifications", "errata"),
        ("Clarifications", "clarifications"),
        ("Klarstellungen", "clarifications"),
        ("Wyjaśnienia", "clarifications"),
        ("Verduidelijkingen", "clarifications"),
        ("Häufig gestellte Fragen", "questions"),
        ("FAQ", "questions"),
        ("Mulligan", ""),
        ("Is there errata for this card?", ""),
    ],
)
def test_section_headings(title, kind):
    assert section_kind(title) == kind


# -- Outline, kinds, Markdown ------------------------------------------------------------------------


def test_a_heading_directly_followed_by_a_heading_is_their_parent():
    blocks = blocks_of(
        "Setup\nComponents\nThe game has 60 cards.\nBoard\nPlace the board.\n"
        "Playing\nDraw Phase\nDraw a card.\nAction Phase\nPlay a card."
    )
    parents = outline(blocks)
    named = {
        blocks[i].text: (blocks[p].text if p is not None else None) for i, p in parents.items()
    }
    assert named == {
        "Setup": None, "Components": "Setup", "Board": "Setup",
        "Playing": None, "Draw Phase": "Playing", "Action Phase": "Playing",
    }  # fmt: skip


def test_detect_kind():
    assert (
        detect_kind(blocks_of("Attack\nAttack with a unit.\nBase\nThe base is a card."))
        == "glossary"
    )
    assert (
        detect_kind(blocks_of("Rules\n1. One rule.\n2. Another rule.\n3. A third rule."))
        == "rulebook"
    )
    assert detect_kind(blocks_of("Can I pass?\nYes.\nBase\nThe base is a card.")) == "faq"
    assert detect_kind(blocks_of("Errata\nMulligan\nThe text should read: draw seven.")) == "faq"
    # one question among many glossary entries does not make a FAQ
    entries = "\n".join(f"Entry {chr(65 + i)}\nSome text {i}." for i in range(25))
    assert (
        detect_kind(blocks_of(entries + "\nWhat is a round?\nA round is a turn of each player."))
        == "glossary"
    )


def test_wiki_links_survive_escaping_and_other_markup_does_not():
    assert (
        escape_markdown("See [[Combat]] and [[Unit|units]] * 2_x")
        == "See [[Combat]] and [[Unit|units]] \\* 2\\_x"
    )
    assert escape_markdown("[[broken link and *stars*") == "\\[[broken link and \\*stars\\*"
    assert escape_markdown("# not a heading") == "\\# not a heading"


@pytest.mark.parametrize(
    "text",
    [
        "If power < 3, play <b>Boost</b> at once.",
        "Write <script>alert(1)</script> on the card.",
        "&lt;tag&gt; and &#60; are text, and so is &amp;.",
        "<<b>> and </i> and <!-- a comment -->",
    ],
)
def test_plain_text_that_looks_like_html_is_shown_as_written(text):
    """Plain text with angle brackets or entities reads exactly as written once rendered:
    nothing dropped by the sanitiser, no stray backslash, no entity decoded."""
    html = str(render_markdown(escape_markdown(text)))
    assert html.startswith("<p>") and html.endswith("</p>")
    assert unescape(html.removeprefix("<p>").removesuffix("</p>")) == text


def test_markdown_headings_lists_and_inline_markup():
    text = (
        "# Rules\n\n## Combat\n\nAttack with **one** [[Unit|unit]].\n\n"
        "### Damage\n\n- one\n  - two\n\n1. first\n2. second"
    )
    blocks = blocks_of(text, markdown=True)
    assert [(b.type, b.level, b.text) for b in blocks] == [
        ("heading", 1, "Rules"),
        ("heading", 2, "Combat"),
        ("paragraph", 0, "Attack with **one** [[Unit|unit]]."),
        ("heading", 3, "Damage"),
        ("bullet", 0, "one"),
        ("bullet", 1, "two"),
        ("bullet", 0, "first"),  # after a list: an ordered list, not rules
        ("bullet", 0, "second"),
    ]
    assert [b.ordered for b in blocks[-4:]] == [False, False, True, True]
    items = split_items(blocks, "glossary")
    assert [(i.title, i.parent) for i in items] == [("Combat", None), ("Damage", "Combat")]
    assert items[0].body == "Attack with **one** [[Unit|unit]]."
    assert items[1].body == "- one\n    - two\n\n1. first\n2. second"


def test_a_markdown_rulebook_with_numbered_headings_and_rules():
    text = (
        "# Comprehensive Rules\n\n## 6. Spells\n\n### 601. Casting Spells\n\n"
        "601.1. Casting a spell puts it on the stack.\n\n"
        "601.1a Move the card to the *stack*.\nSee [[Stack]].\n\n## 7. Additional Rules\n\nSome text."
    )
    items = split_items(blocks_of(text, markdown=True), "rulebook", numbered_title="Rule {number}")
    assert [(i.title, i.number, i.parent) for i in items] == [
        ("Spells", "6", None),
        ("Casting Spells", "601", "Spells"),
        ("Rule 601.1", "601.1", "Casting Spells"),
        ("Rule 601.1a", "601.1a", "Rule 601.1"),
        ("Additional Rules", "7", None),
    ]
    assert items[3].body == "Move the card to the *stack*. See [[Stack]]."


def test_spanish_questions_open_with_an_inverted_question_mark():
    text = (
        "¿Puedo mover un barco dos veces en el mismo turno?\nNo, salvo que una carta lo permita.\n\n"
        "¿Qué pasa si se acaba el mazo de tormentas?\nBaraja la pila de descarte y forma un mazo nuevo.\n"
    )
    blocks = blocks_of(text, language="es")
    assert detect_kind(blocks) == "faq"
    assert [(i.type, i.title) for i in split_items(blocks, "faq")] == [
        ("question", "¿Puedo mover un barco dos veces en el mismo turno?"),
        ("question", "¿Qué pasa si se acaba el mazo de tormentas?"),
    ]


def test_a_markdown_faq_groups_questions_by_topic():
    text = (
        "# Starfall FAQ\n\n## Combat\n\n**Q: Can I attack twice?**\n**A:** No.\n\n"
        "### Can a unit retreat?\n\nYes, if it has *Mobile*.\n\n## Errata\n\n### Orbital Strike\n\n"
        'Should read "Deal 2 damage".'
    )
    items = split_items(blocks_of(text, markdown=True), "faq")
    assert [(i.type, i.title, i.topic, i.body) for i in items] == [
        ("question", "Can I attack twice?", "Combat", "No."),
        ("question", "Can a unit retreat?", "Combat", "Yes, if it has *Mobile*."),
        ("erratum", "Orbital Strike", "Errata", 'Should read "Deal 2 damage".'),
    ]


def test_heading_styles_tell_the_levels_apart():
    text = (
        "SETUP\nComponents\nThe game has 60 cards.\nBoard\nPlace the board.\n"
        "PLAYING THE GAME\nEach round has two phases.\nDraw Phase\nDraw a card.\nAction Phase\nPlay a card."
    )
    items = split_items(blocks_of(text), "rulebook")
    assert [(i.title, i.parent) for i in items] == [
        ("SETUP", None),
        ("Components", "SETUP"),
        ("Board", "SETUP"),
        ("PLAYING THE GAME", None),
        ("Draw Phase", "PLAYING THE GAME"),
        ("Action Phase", "PLAYING THE GAME"),
    ]
