"""Generate a long numbered rules document (comprehensive-rules style), for the import
benchmark's ``--numbered`` runs, and a next version of it.

    python bench/generate_numbered.py 10000 > /tmp/rules.txt

Chapters "1. Title", sections "100. Title" and rules "100.1. text" / "100.1a text",
twenty rules a section. ``next_version`` inserts a rule at the head of every tenth
section (its siblings shift: renumbered), rewords every hundredth rule a little and
drops every two-hundredth: what a publisher's reissue does. Deterministic.
"""

import random
import sys

from generate_glossary import sentence, titles, vocabulary

PER_SECTION = 20
SECTIONS_PER_CHAPTER = 60  # 3-digit sections (100-959) under chapters 1-9, as real ones are


def rules(count: int, seed: int = 7) -> list[tuple[int, list[str]]]:
    """(section number, its rule texts) for ``count`` rules."""
    rng = random.Random(seed)
    words = vocabulary()
    sections = []
    for index in range((count + PER_SECTION - 1) // PER_SECTION):
        number = 100 * (index // SECTIONS_PER_CHAPTER + 1) + index % SECTIONS_PER_CHAPTER
        size = min(PER_SECTION, count - index * PER_SECTION)
        sections.append((number, [" ".join(sentence(rng, words) for _ in range(2)) for _ in range(size)]))
    return sections


def render(sections: list[tuple[int, list[str]]], seed: int = 7) -> str:
    rng = random.Random(seed + 1)
    names = titles(len(sections) + len(sections) // SECTIONS_PER_CHAPTER + 1, rng, vocabulary())
    lines = ["Generated Comprehensive Rules", ""]
    chapter = None
    for index, (number, texts) in enumerate(sections):
        if number // 100 != chapter:
            chapter = number // 100
            lines += [f"{chapter}. {names[-chapter]}", ""]
        lines += [f"{number}. {names[index]}", ""]
        for position, text in enumerate(texts, 1):
            lines += [f"{number}.{position}. {text}", ""]
    return "\n".join(lines)


def numbered_rules(count: int) -> str:
    return render(rules(count))


def next_version(count: int) -> str:
    sections = rules(count)
    changed = []
    serial = 0
    for index, (number, texts) in enumerate(sections):
        kept = []
        for text in texts:
            serial += 1
            if serial % 200 == 0:
                continue  # dropped
            if serial % 100 == 0:
                text = text.replace(" ", " very ", 1)  # reworded a little
            kept.append(text)
        if index % 10 == 0:
            kept.insert(0, f"Inserted rule {index}: " + kept[0][::-1])  # a new rule shifts its siblings
        changed.append((number, kept))
    return render(changed)


if __name__ == "__main__":
    sys.stdout.write(numbered_rules(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
