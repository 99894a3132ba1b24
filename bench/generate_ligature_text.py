"""Write the ligature test text: a clean English rules text and the same text as a PDF's
text layer gives it when the ligature glyphs are dropped without a trace.

    python bench/generate_ligature_text.py

Writes tests/importing/documents/quality/en_ligatures_clean.txt (the expected answer)
and en_ligatures_damaged.txt (every "ffi", "ffl", "ff", "fi", "fl" and capital "Th"
removed). The text is assembled from hand-written sentences with a fixed random seed,
so it is the same on every run; it has headings, paragraphs, bulleted and numbered
lists, and place names after "The" in mid-sentence ("… and The Red Tower"), about
3,500 words. Both files are committed; run this only to change them.
"""

import random
import re
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "importing" / "documents" / "quality"
PLACES = [
    "The Red Tower", "The Old Harbour", "The Broken Bridge", "The Sunken Abbey", "The Grey Marsh", "The Iron Gate",
]

SENTENCES = [
    "The first player takes the first turn and places a marker on {place}.",
    "There is no limit to the number of effects a card may have.",
    "Their effects are resolved in the order the active player chooses.",
    "These effects last until the end of the round unless a card says otherwise.",
    "Those cards are shuffled back into the deck after the final round.",
    "This is a difficult choice, and the official rules offer no shortcut.",
    "That player must discard a card at random before the battle begins.",
    "They may move to {place} only if the path is not blocked.",
    "The effect of a card is applied in full, even when the result is unfavourable.",
    "When a fighter suffers damage, flip its card face down and place it in the field.",
    "Each officer offers a benefit that differs from the others.",
    "If two effects conflict, the specific effect takes precedence over the general one.",
    "A classified mission card is kept face down until it is fulfilled.",
    "Shuffle the deck thoroughly before the game and after each final scoring.",
    "The fleet travels from {place} to {place} in a single move.",
    "Players may not look at the figures that are off the board.",
    "A difficult test is one whose difficulty is five or higher.",
    "Flip the top card of the deck to find the weather for the round.",
    "The official clarification confirms that the effect ends at once.",
    "A player who cannot afford the cost may not play the card.",
    "The flag bearer reflects the first attack made against the army.",
    "If a figure is lifted off the board, it returns to its owner's supply.",
    "The five fields of the map are identified by their colours.",
    "A modified roll is the final result after every bonus is applied.",
    "Sufficient supplies must be kept in the office to feed the staff.",
    "Efficient players plan the final turns of the game carefully.",
    "The fire spreads to a neighbouring field at the end of each round.",
    "Inflict one wound on each figure that is still on the flooded field.",
    "The influence track shows which faction controls {place}.",
    "A flight of birds offers a free move to the first figure that flies.",
    "The deck of conflict cards is shuffled at the start of each chapter.",
    "Specific abilities are defined on the back of each profile card.",
    "A beneficial effect is optional, but a harmful effect must be resolved.",
    "The floor of {place} is difficult terrain for every figure.",
    "Unless specified otherwise, each effect affects only the active player.",
    "An artificial barrier blocks the flow of the river for one round.",
    "Fifteen tokens are placed on the field during setup.",
    "The fifth round is the final round of a short game.",
    "A qualified scout finds hidden paths through {place}.",
    "The sacrifice of a figure grants a bonus to every ally in the field.",
    "Fleeing figures move off the board and may not return.",
    "The effort needed to defend {place} is shown on its tile.",
    "Offline play uses the same rules as the official tournament format.",
    "The fluid rules of the campaign allow players to define new goals.",
    "Afflicted figures suffer one wound at the start of each turn.",
    "The justified ruling was added to the official list of clarifications.",
    "A shuffled deck is placed face down in the middle of the table.",
    "The first effect that would take a figure off the board is ignored.",
    "Define the final goal of the campaign before the first chapter begins.",
    "The traffic of caravans through {place} provides a steady profit.",
]
LIST_ITEMS = [
    "The first player draws five cards.",
    "The others draw four cards each.",
    "These cards are kept secret from the other players.",
    "Those who cannot draw shuffle their discard pile first.",
    "There is no limit to the size of a hand.",
    "Their figures are placed on the starting field.",
    "Flip the first event card and resolve its effect.",
    "Find the flag token and place it on {place}.",
    "Each player suffers one wound for every unfulfilled order.",
    "The official score sheet records the final result.",
    "Offer one supply card to the player on your left.",
    "Fill the market with five cards from the supply deck.",
]
HEADINGS = [
    "Effects and Conditions", "The First Round", "Flipping Cards", "Difficult Terrain",
    "The Final Round", "Conflicts", "Official Clarifications", "Fleets and Flags",
    "Influence", "Sacrifice and Benefit", "Classified Missions", "Shuffling the Deck",
    "Fire and Flood", "Fighters and Officers", "The Field", "Profiles",
    "Modified Rolls", "Scouting", "Supplies", "The Campaign",
]


def clean_text(seed: int = 7) -> str:
    rng = random.Random(seed)

    def fill(sentence: str) -> str:
        while "{place}" in sentence:
            sentence = sentence.replace("{place}", rng.choice(PLACES), 1)
        return sentence

    def items(count: int) -> list[str]:
        # No two items in a row that came in a row before: the importer rightly drops a
        # repeated block of lines as duplicated extraction.
        while True:
            chosen = rng.sample(LIST_ITEMS, count)
            pairs = set(zip(chosen, chosen[1:], strict=False))
            if not pairs & seen:
                seen.update(pairs)
                return chosen

    seen: set[tuple[str, str]] = set()
    sections = []
    for number, heading in enumerate(HEADINGS):
        parts = [heading]
        for _ in range(3):
            parts.append(" ".join(fill(s) for s in rng.sample(SENTENCES, rng.randint(3, 5))))
        if number % 3 == 0:
            parts.append("\n".join(f"- {fill(item)}" for item in items(4)))
        elif number % 3 == 1:
            parts.append("\n".join(f"{i}. {fill(item)}" for i, item in enumerate(items(3), start=1)))
        sections.append("\n".join(parts))
    return "\n\n".join(sections) + "\n"


def damage(text: str) -> str:
    """Drop the ligatures a PDF's text layer loses: no replacement character is left."""
    return re.sub(r"ffi|ffl|ff|fi|fl|Th", "", text)


def main() -> None:
    text = clean_text()
    (OUT / "en_ligatures_clean.txt").write_text(text, encoding="utf-8")
    (OUT / "en_ligatures_damaged.txt").write_text(damage(text), encoding="utf-8")
    words = len(re.findall(r"[^\W\d_]+", text))
    print(f"{words} words written to {OUT}")


if __name__ == "__main__":
    main()
