"""The hard question sets are what they claim: players' words, not the rule's.

Their questions were written from a one-line situation, by someone who never saw the
rules (bench/questions/hard-dev/, and a part kept aside until the end). This check holds
them to it: no question shares a content word, after stemming, with a title it expects
(function and question words aside: "what", "can", "the"), in the question's language
or the title's. A question that names its rule's title measures nothing a title search
does not."""

import tomllib
from pathlib import Path

import pytest

from rules.search.normalize import fold, term, words
from rules.search.questions import lists
from tests.search import read_queries

ROOT = Path(__file__).resolve().parents[2]
HARD_SETS = sorted((ROOT / "bench" / "questions").glob("hard-*"))


def document_languages(folder: Path) -> dict[str, str]:
    """game slug → the language of its document (the manifest's)."""
    manifest = tomllib.loads((folder / "manifest.toml").read_text(encoding="utf-8"))
    return {document["game"]: document["language"] for document in manifest.get("document", [])}


def content_terms(text: str, language: str) -> set[str]:
    """A text's content words as stems (and as folded words: a stem in one language may
    be another's word), function and question words left out."""
    listed = lists().get(language)
    kept = [word for word in words(text) if listed is None or not listed.drops(word)]
    return {form for word in kept for form in (term(word, language), fold(word)) if len(form) > 1}


def shared_with_titles(case, title_language: str) -> set[str]:
    shared = set()
    for kind, expected in case.answers:
        if kind != "title":
            continue
        title = set()
        for language in {title_language, case.language}:
            title |= content_terms(expected, language)
        for language in {case.language, title_language}:
            shared |= content_terms(case.query, language) & title
    return shared


def test_there_are_hard_sets():
    assert HARD_SETS, "bench/questions/hard-* is missing"


@pytest.mark.parametrize("folder", HARD_SETS, ids=[folder.name for folder in HARD_SETS])
def test_no_question_shares_a_content_word_with_its_answers_title(folder):
    languages = document_languages(folder)
    offending = []
    for case in read_queries(folder / "questions.tsv"):
        shared = shared_with_titles(case, languages[case.game])
        if shared:
            offending.append(f"{case.file}:{case.line}: {case.query!r} shares {sorted(shared)} with its title")
    assert not offending, "\n".join(offending)


def test_the_check_catches_a_question_that_names_its_title():
    from tests.search import QueryCase

    case = QueryCase("x.tsv", 1, "en", "g", "what does the hand limit do?", "title", "Hand Limit",
                     (("title", "Hand Limit"),))  # fmt: skip
    assert shared_with_titles(case, "en") >= {"hand", "limit"}
    german = QueryCase("x.tsv", 2, "de", "g", "wie viele Karten auf der Hand?", "title", "Handkartenlimit",
                       (("title", "Handkartenlimit"),))  # fmt: skip
    assert not shared_with_titles(german, "de")  # a compound's part is not its word
