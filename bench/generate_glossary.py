"""Generate a long glossary that looks like a PDF's text layer, for the import benchmark.

    python bench/generate_glossary.py 10000 > /tmp/glossary.txt

Entries are in alphabetical order, bodies are hard-wrapped at 78 columns with words
hyphenated across lines, every page has a running header and a page number, and each
entry closes with a "Related:" line naming other entries. Deterministic for a given
count and seed.
"""

import random
import sys
import textwrap

from wordfreq import top_n_list

WIDTH = 78
LINES_PER_PAGE = 55


# Common words a rules text would not use; kept out so the output reads as neutral text.
EXCLUDED = {"bitch", "shit", "fuck", "fucking", "bullshit", "goddamn", "damn", "sex", "porn", "dick", "ass"}


def vocabulary() -> list[str]:
    words = top_n_list("en", 20000)
    return [w for w in words if w.isalpha() and w.isascii() and len(w) >= 3 and w not in EXCLUDED]


def titles(count: int, rng: random.Random, words: list[str]) -> list[str]:
    nouns = words[200:6000]
    seen: set[str] = set()
    while len(seen) < count:
        size = rng.choice((1, 2, 2, 2, 3))
        seen.add(" ".join(rng.choice(nouns) for _ in range(size)).capitalize())
    return sorted(seen, key=str.casefold)


def sentence(rng: random.Random, words: list[str]) -> str:
    picked = [rng.choice(words[:8000]) for _ in range(rng.randint(8, 22))]
    return " ".join(picked).capitalize() + "."


def hard_wrap(paragraph: str, rng: random.Random) -> list[str]:
    lines = textwrap.wrap(paragraph, WIDTH, break_long_words=False)
    out = []
    for index, line in enumerate(lines):
        last_word = line.rsplit(" ", 1)[-1]
        if (
            index + 1 < len(lines)
            and rng.random() < 0.15
            and last_word.isalpha()
            and len(last_word) >= 8
            and " " in line
        ):
            cut = len(last_word) // 2
            out.append(line[: len(line) - len(last_word) + cut] + "-")
            lines[index + 1] = last_word[cut:] + " " + lines[index + 1]
        else:
            out.append(line)
    return out


def glossary(count: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    words = vocabulary()
    names = titles(count, rng, words)
    body: list[str] = []
    for title in names:
        body.append(title)
        for _ in range(rng.randint(1, 2)):
            body.extend(hard_wrap(" ".join(sentence(rng, words) for _ in range(rng.randint(1, 4))), rng))
        if rng.random() < 0.3:
            body[-1] = body[-1].rstrip(".") + ":"
            body.extend(f"• {sentence(rng, words)}" for _ in range(rng.randint(2, 4)))
        related = rng.sample(names, rng.randint(1, 4))
        body.append("Related: " + (", ".join(related[:-1]) + " and " + related[-1] if len(related) > 1 else related[0]))
        body.append("")
    pages, page = [], 1
    for start in range(0, len(body), LINES_PER_PAGE):
        pages.append("\n".join(["Rules Reference", "", *body[start : start + LINES_PER_PAGE], "", str(page)]))
        page += 1
    return "\n\f".join(pages) + "\n"


if __name__ == "__main__":
    sys.stdout.write(glossary(int(sys.argv[1]) if len(sys.argv) > 1 else 10000))
