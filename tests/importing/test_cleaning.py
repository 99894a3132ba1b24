"""Cleaning: page furniture goes, damaged words are repaired and every repair is reported."""

from rules.importing.cleaning import clean


def texts(cleaned) -> list[str]:
    return [line.text for line in cleaned.lines]


def page(header: str, body: list[str], number: int) -> str:
    return "\n".join([header, "", *body, "", f"Seite {number} von 3"])


GLOSSARY_PAGES = "\n\f\n".join(
    [
        page(
            "Regelreferenz – Helden des Nordens",
            ["Angriff", "Ein Charakter greift an und fügt dem Gegner Schaden zu,", "der seinem Angriffswert"],
            1,
        ),
        page(
            "Regelreferenz – Helden des Nordens",
            ["entspricht. Wenn der Gegner besiegt wird, verfällt der", "übrige Schaden.", "Siehe auch: Schaden"],
            2,
        ),
        page(
            "Regelreferenz – Helden des Nordens",
            ["Schaden", "Schaden wird mit Markern festgehalten.", "Siehe auch: Angriff"],
            3,
        ),
    ]
)


class TestRunningHeadersAndFooters:
    def test_headers_and_page_footers_repeated_on_every_page_are_dropped(self):
        cleaned = clean(GLOSSARY_PAGES, "de")
        assert not any("Regelreferenz" in line or "Seite" in line for line in texts(cleaned))
        assert any("running header/footer" in warning.message for warning in cleaned.warnings)

    def test_a_sentence_running_over_a_page_break_is_joined(self):
        lines = texts(clean(GLOSSARY_PAGES, "de"))
        at = lines.index("der seinem Angriffswert")
        assert lines[at + 1] == "entspricht. Wenn der Gegner besiegt wird, verfällt der"

    def test_an_entry_starting_on_a_new_page_stays_apart(self):
        lines = texts(clean(GLOSSARY_PAGES, "de"))
        at = lines.index("Schaden")
        assert lines[at - 1] == ""

    def test_page_numbers_alone_delimit_pages_when_there_are_no_form_feeds(self):
        text = "\n".join(
            f"Rules Reference\nEntry {n}\nThe rules text of entry number {n} explains it.\n{n}" for n in range(1, 5)
        )
        lines = texts(clean(text, "en"))
        assert "Rules Reference" not in lines
        assert "Entry 3" in lines

    def test_a_single_page_keeps_its_first_line(self):
        lines = texts(clean("Rules Reference\nAttack\nA character attacks.", "en"))
        assert lines[0] == "Rules Reference"


class TestDroppedLigatures:
    DAMAGED = (
        "Put into Play\n"
        "e gold cost of a card is paid when it is played. Some eects cost more.\n"
        "At the rst step, each player may use a dierent eect.\n"
        "The well-known rule applies, e.g. here.\n"
    )

    def test_words_that_lost_their_ligatures_are_repaired(self):
        lines = texts(clean(self.DAMAGED, "en"))
        assert lines[1] == "The gold cost of a card is paid when it is played. Some effects cost more."
        assert lines[2] == "At the first step, each player may use a different effect."
        assert lines[3] == "The well-known rule applies, e.g. here."

    def test_each_repair_is_reported_with_its_line(self):
        repairs = {(r.original, r.replacement): r for r in clean(self.DAMAGED, "en").repairs}
        assert set(repairs) >= {("e", "The"), ("eects", "effects"), ("rst", "first"), ("dierent", "different")}
        assert repairs[("rst", "first")].line == 3

    def test_a_clean_document_is_left_alone(self):
        text = "Rst\nThe RST step is named after its designer.\ne.g. nd is an abbreviation.\n"
        cleaned = clean(text, "en")
        assert cleaned.repairs == []
        assert texts(cleaned) == text.strip().split("\n")

    def test_german_dropped_ligatures(self):
        text = "Eekt\nDer Eekt einer Karte tritt sofort ein. Ein Angri kostet Ressourcen.\n"
        repairs = {(r.original, r.replacement) for r in clean(text, "de").repairs}
        assert ("Eekt", "Effekt") in repairs
        assert ("Angri", "Angriff") in repairs

    def test_halves_of_a_word_hyphenated_across_lines_are_not_ligature_damage(self):
        text = self.DAMAGED + "The rule was written by a natio-\nnalist who was thr-\nilled to play.\n"
        lines = texts(clean(text, "en"))
        assert lines[-2:] == ["nalist who was thr-", "illed to play."]
        assert lines[1].startswith("The gold cost")  # the real damage is still repaired


def test_two_entries_may_share_a_long_cross_reference_line():
    shared = "See also: Initiative, Reactions, Triggered Abilities"
    text = (
        f"Interrupts\nAn interrupt cancels an effect.\n{shared}\n\n"
        f"Responses\nA response follows an effect.\n{shared}\n"
    )
    lines = texts(clean(text, "en"))
    assert lines.count(shared) == 2


def test_one_wrapped_line_that_happens_to_repeat_is_kept():
    line = "Erholungsphase macht jeder Spieler alle seine Karten bereit."
    text = f"Bereit\nIn der\n{line}\n\nZug\nNach der\n{line}\n"
    assert texts(clean(text, "de")).count(line) == 2


def test_a_duplicated_block_of_lines_is_dropped_once_and_reported():
    block = (
        "Ein Angriff fügt dem Gegner Schaden zu, der seinem Angriffswert\n"
        "entspricht, sofern der Gegner nicht verteidigt."
    )
    cleaned = clean(f"Angriff\n{block}\n{block}\n\nSchaden\nSchaden bleibt liegen.\n", "de")
    assert texts(cleaned).count("entspricht, sofern der Gegner nicht verteidigt.") == 1
    assert any("they repeat lines 2–3" in warning.message for warning in cleaned.warnings)
