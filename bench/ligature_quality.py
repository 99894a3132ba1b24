"""Dropped-ligature quality: words restored, still broken and invented on a damaged text.

    python bench/ligature_quality.py [--verbose] [--database-url URL]

Imports tests/importing/documents/quality/en_ligatures_damaged.txt (made by
bench/generate_ligature_text.py: a clean rules text of about 3,500 words with every
"ffi", "ffl", "ff", "fi", "fl" and capital "Th" dropped) with ``manage.py import_rules
--kind glossary --dry-run --format json`` and lines the words of the imported titles and
bodies up with the clean text (en_ligatures_clean.txt), word for word:

* damaged: words the damage changed (clean word ≠ damaged word);
* restored: damaged words the import gives back exactly;
* still broken: damaged words the import does not give back;
* invented: words the damage left alone that the import changed (words that went
  missing altogether, which would be another step's doing, are counted apart as lost).

Also checks the repair report against the output: every repair it lists ("e" → "The",
N×) must have been made N times (``report_mismatches``).
"""

import argparse
import difflib
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ROOT / "tests" / "importing" / "documents" / "quality"
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
WORD = re.compile(r"[^\W\d_]+")


def words(text: str) -> list[str]:
    return WORD.findall(text.replace("\\", ""))


def output_words(report: dict) -> list[str]:
    out: list[str] = []
    for item in report["items"]:
        out += words(item["title"]) + words(item["body"])
        for label in item["cross_references"]:
            out += words(label)
    return out


def compare(clean: list[str], damaged: list[str], output: list[str]) -> dict:
    """Counts of damaged / restored / still broken / invented words, and examples."""
    assert len(clean) == len(damaged), "the damage only changes words, it never adds or removes one"
    result = {"words": len(clean), "damaged": 0, "restored": 0, "broken": 0, "invented": 0, "lost": 0}
    broken, invented = Counter(), Counter()
    matcher = difflib.SequenceMatcher(None, clean, output, autojunk=False)
    aligned: dict[int, str | None] = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for offset in range(i2 - i1):
                aligned[i1 + offset] = output[j1 + offset]
        else:
            for offset in range(i2 - i1):
                aligned[i1 + offset] = None  # lost or split: counts against the import
    for index, (want, was) in enumerate(zip(clean, damaged, strict=True)):
        got = aligned.get(index)
        if want != was:
            result["damaged"] += 1
            if got == want:
                result["restored"] += 1
            else:
                result["broken"] += 1
                broken[f"{was} → {got} (want {want})"] += 1
        elif got is None:
            result["lost"] += 1
        elif got != want:
            result["invented"] += 1
            invented[f"{was} → {got}"] += 1
    result["broken_examples"] = broken.most_common(20)
    result["invented_examples"] = invented.most_common(20)
    return result


def report_mismatches(report: dict, damaged: list[str], output: list[str]) -> list[str]:
    """Dropped-ligature repairs the report lists but the output does not show as listed.

    A repair "X → Y, N×" is right when, lining the damaged words up with the output, X
    became Y exactly N times (no more, no fewer)."""
    applied = Counter()
    matcher = difflib.SequenceMatcher(None, damaged, output, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            for offset in range(i2 - i1):
                applied[(damaged[i1 + offset], output[j1 + offset])] += 1
    problems = []
    for repair in report["repairs"]:
        note = repair.get("note", "")
        match = re.match(r"dropped ligature, (\d+)×", note)
        if not match:
            continue
        listed = int(match.group(1))
        done = applied.get((repair["original"], repair["replacement"]), 0)
        if done != listed:
            problems.append(f"{repair['original']!r} → {repair['replacement']!r}: reported {listed}×, applied {done}×")
    return problems


def measure() -> tuple[dict, list[str]]:
    from crossref_quality import import_dry_run

    clean = words((DOCUMENTS / "en_ligatures_clean.txt").read_text(encoding="utf-8"))
    damaged = words((DOCUMENTS / "en_ligatures_damaged.txt").read_text(encoding="utf-8"))
    report = import_dry_run(DOCUMENTS / "en_ligatures_damaged.txt", "en", game="ligatures")
    output = output_words(report)
    return compare(clean, damaged, output), report_mismatches(report, damaged, output)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--database-url")
    args = parser.parse_args()

    from benchdb import setup_django

    setup_django(args.database_url)
    result, mismatches = measure()
    damaged = result["damaged"]
    print(
        f"{result['words']} words, {damaged} damaged: {result['restored']} restored "
        f"({result['restored'] / damaged:.2f}), {result['broken']} still broken, "
        f"{result['invented']} invented ({result['lost']} clean words lost by other cleaning steps); "
        f"{len(mismatches)} repairs reported but not applied as reported"
    )
    if args.verbose:
        for example, count in result["broken_examples"]:
            print(f"    broken {count}×: {example}")
        for example, count in result["invented_examples"]:
            print(f"    invented {count}×: {example}")
        for problem in mismatches:
            print(f"    report: {problem}")


if __name__ == "__main__":
    main()
