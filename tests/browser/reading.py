"""A game with every kind of thing a page can show, for the accessibility and reading
tests (axe, dark theme, focus, jump links, previews when shared).

English and German content; the Polish and Dutch pages show it with the "not in your
language yet" notice. Built with the factories, not the demo.
"""

from dataclasses import dataclass

from tests.factories import make_entry, make_erratum, make_game, make_question, make_source, written_together

GAME = "reading-game"
# Enough results that the search page has a second page (20 a page).
CARD_TERMS = 23


@dataclass
class Reading:
    game: object
    ownership: object
    besitz: object

    def pages(self, language: str) -> dict[str, tuple[str, int]]:
        """Every kind of public page: name → (path, status)."""
        game = f"/{language}/games/{GAME}"
        return {
            "home": (f"/{language}/", 200),
            "game": (f"{game}/", 200),
            "entry": (f"{game}/rules/{self.ownership.slug}/", 200),
            "section": (f"{game}/rules/setup/", 200),
            "contents": (f"{game}/rules/?at=deal-the-cards", 200),
            "booklet-rules": (f"{game}/print/rules/", 200),
            "booklet-glossary": (f"{game}/print/glossary/", 200),
            "errata": (f"{game}/errata/", 200),
            "faq": (f"{game}/faq/", 200),
            "search": (f"/{language}/search/?q=card", 200),
            "search-page-2": (f"/{language}/search/?q=card&page=2", 200),
            "search-empty": (f"/{language}/search/", 200),
            "search-nothing": (f"/{language}/search/?q=zzzzqqq", 200),
            "search-typo": (f"/{language}/search/?q=ownrship", 200),
            "404": (f"{game}/rules/no-such-rule/", 404),
        }


@written_together
def build_reading_game() -> Reading:
    game = make_game(
        slug=GAME,
        name="Reading Game",
        localized_names={"de": "Lesespiel"},
        publisher="Test Publisher",
        year=2024,
    )
    source = make_source(game=game, language="en", title="Reading Game Rules Reference", version="1.2")
    make_source(game=game, language="de", title="Lesespiel Regelreferenz", official=False, attribution="Fans")

    setup = make_entry(
        game=game,
        kind="section",
        number="1",
        title="Setup",
        body="Shuffle the deck.\n\n1. Deal five cards.\n2. Choose a first player.",
        order=1,
    )
    for n, title in enumerate(["Deal the cards", "First player"], start=1):
        make_entry(game=game, kind="section", number=f"1.{n}", title=title, parent=setup, order=1 + n)

    ownership = make_entry(
        game=game,
        title="Ownership and Control",
        aliases=["Owner", "Controller"],
        body=(
            "The **owner** of a card is the player who started the game with it. "
            "See [[Exhaust]] and [[Zone|the zones]].\n\n"
            "- A card enters play under its owner's control.\n"
            "    - An *attachment* may change control.\n"
            "- Control ends when the card leaves play.\n\n"
            "> Cards never change owner."
        ),
        see_also=["Exhaust", "Zone", "Trading cards"],
        source=source,
        page="12",
        order=10,
    )
    make_entry(game=game, title="Exhaust", body="Turn the card sideways.", see_also=["Ownership and Control"], order=11)
    make_entry(game=game, title="Zone", body="A place cards can be.", see_also=["Ownership and Control"], order=12)
    make_entry(game=game, title="“Quoted” card", body="A card with a quoted name.", order=13)
    make_entry(game=game, title="Éclair", body="A card named after a pastry.", order=14)
    make_entry(game=game, title="4 players", body="The four-player game.", order=15)
    make_entry(game=game, title="Reaction", body="Starts mid-sentence in the source.", is_fragment=True, order=16)
    for n in range(CARD_TERMS):
        make_entry(game=game, title=f"Card type {n + 1}", body=f"A card of type {n + 1}.", order=100 + n)

    besitz = make_entry(
        game=game,
        language="de",
        title="Besitz und Kontrolle",
        body="Der **Besitzer** einer Karte. Siehe [[Erschöpfen]].",
        translation_key=ownership.translation_key,
        see_also=["Erschöpfen"],
    )
    make_entry(
        game=game, language="de", title="Erschöpfen", body="Die Karte quer drehen.", see_also=["Besitz und Kontrolle"]
    )
    make_entry(game=game, language="de", title="Ärger", body="Ein Ärgernis.")

    make_erratum(
        game=game,
        title="Control timing",
        original_text="Control ends at the end of the round.",
        corrected_text="Control ends when the card leaves play.",
        kind="correction",
        source=source,
        page="3",
        affects=[ownership],
    )
    make_erratum(
        game=game,
        title="Exhausted cards",
        corrected_text="An exhausted card **cannot** react.",
        kind="clarification",
        affects=[ownership],
    )
    make_question(
        game=game,
        question="Can I take control of a card I do not own?",
        answer="Yes, *until* it leaves play. See [[Ownership and Control]].",
        related_entries=[ownership],
    )
    make_question(game=game, question="Who owns a token?", answer="The player who made it.")
    make_erratum(
        game=game,
        language="de",
        title="Zeitpunkt der Kontrolle",
        original_text="Am Ende der Runde.",
        corrected_text="Wenn die Karte das Spiel verlässt.",
        affects=[besitz],
    )
    return Reading(game=game, ownership=ownership, besitz=besitz)
