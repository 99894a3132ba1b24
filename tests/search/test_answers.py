"""Few, confident answers: a question shows the answers likely to be right (a calibrated
cut-off, at most ten), or says "no confident answer" and shows the closest rules; the
count says what is shown; the API gives each hit's score and the cut-off it used. Term
searches keep their behaviour; a stop-word strip is never shown as a correction.

The plumbing runs on the fake embedder (hashed words), whose cosines are not the
model's: the calibrated constants (``rules.search.service.CONFIDENT``, ``BAND``) are
set per test. One test runs the real model."""

import pytest

from rules.search import search, semantic, service
from tests.factories import make_entry, make_game, written_together

pytestmark = pytest.mark.django_db

RULES = {
    "Storms": "When a storm card is drawn, every boat at sea loses one crate.",
    "Harbour": "A boat in the harbour is safe from storms and pirates.",
    "Trading": "Players may trade crates with each other at any time during their turn.",
    "Setup": "Each player takes a boat and three crates. The youngest player starts.",
    "Pirates": "A pirate attack steals one crate from a boat that is not in the harbour.",
    "Fish": "Catching fish gives one coin for each fish caught.",
    "Nets": "A net lets you catch two fish instead of one.",
    "Winning": "The first player with ten coins wins the game.",
    "Hand Limit": "At the end of your turn, discard down to five cards.",
    "Weather Deck": "Shuffle the weather deck at the start of every round.",
    "Coins": "Coins are kept face down behind your screen.",
    "Crew": "Each boat has a crew of two sailors.",
}


@written_together
def build_fleet() -> dict:
    game = make_game(slug="fleet", name="Fleet")
    return {title: make_entry(game=game, language="en", title=title, body=body) for title, body in RULES.items()}


@pytest.fixture
def fleet(fake):
    entries = build_fleet()
    semantic.refresh()
    return entries


QUESTION = "what happens to my boat at sea when a storm card is drawn?"


class TestCutOff:
    def test_only_the_likely_answers_are_shown_and_counted(self, fleet, monkeypatch):
        monkeypatch.setattr(service, "CONFIDENT", 0.0)
        results = search(QUESTION, game="fleet", reader_language="en")
        everything = len(RULES)
        assert results.kind == "question" and results.confident is True
        assert results.hits[0].title == "Storms"
        assert 1 <= results.total < everything and results.total == len(results.hits)
        assert all(hit.score >= results.cutoff for hit in results.hits)
        assert results.cutoff == pytest.approx(max(hit.score for hit in results.hits) - service.BAND, abs=1e-3)

    def test_at_most_ten(self, fleet, monkeypatch):
        monkeypatch.setattr(service, "CONFIDENT", 0.0)
        monkeypatch.setattr(service, "BAND", 2.0)  # every document passes
        results = search(QUESTION, game="fleet", reader_language="en")
        assert results.total == service.MAX_ANSWERS == len(results.hits)

    def test_no_confident_answer_shows_the_closest(self, fleet, monkeypatch):
        monkeypatch.setattr(service, "CONFIDENT", 0.999)
        results = search(QUESTION, game="fleet", reader_language="en")
        assert results.confident is False and results.cutoff == 0.999  # the floor (question and rules in English)
        assert results.total == service.CLOSEST == len(results.hits)
        assert results.hits[0].title == "Storms"  # still the best first

    def test_without_the_semantic_part_the_words_are_held_to_a_share_of_the_best(self, fleet, settings):
        settings.RULESITE_SEMANTIC = "off"
        results = search(QUESTION, game="fleet", reader_language="en")
        assert results.confident is True and results.hits[0].title == "Storms"
        assert all(hit.score >= results.cutoff for hit in results.hits)
        assert results.cutoff == pytest.approx(service.LEXICAL_SHARE * results.hits[0].score, abs=1e-3)

    def test_a_term_search_keeps_its_behaviour(self, fleet):
        results = search("crate", game="fleet", reader_language="en")
        assert results.kind == "term" and results.confident is None and results.cutoff is None
        assert results.total == sum("crate" in body for body in RULES.values())  # every entry holding the word


class TestPageAndApi:
    def test_the_page_counts_the_likely_answers(self, client, fleet, monkeypatch):
        monkeypatch.setattr(service, "CONFIDENT", 0.0)
        results = search(QUESTION, game="fleet", reader_language="en")
        page = client.get("/en/search/", {"q": QUESTION, "game": "fleet"}).content.decode()
        word = "answer" if results.total == 1 else "answers"
        assert f"{results.total} likely {word}" in page
        assert page.count('class="result result-') == results.total
        assert "No confident answer" not in page

    def test_the_page_says_when_no_answer_is_confident(self, client, fleet, monkeypatch):
        monkeypatch.setattr(service, "CONFIDENT", 0.999)
        page = client.get("/en/search/", {"q": QUESTION, "game": "fleet"}).content.decode()
        assert "No confident answer." in page and "Here are the 3 closest rules." in page
        assert page.count('class="result result-') == 3

    def test_the_api_gives_scores_and_the_cut_off(self, client, fleet, monkeypatch):
        monkeypatch.setattr(service, "CONFIDENT", 0.0)
        body = client.get("/api/v1/search/", {"q": QUESTION, "game": "fleet"}).json()
        assert body["read_as"] == "question" and body["confident"] is True
        assert body["count"] == len(body["results"]) <= 10
        assert all(hit["score"] >= body["cutoff"] for hit in body["results"])
        monkeypatch.setattr(service, "CONFIDENT", 0.999)
        body = client.get("/api/v1/search/", {"q": QUESTION + " ", "game": "fleet", "language": "en"}).json()
        assert body["confident"] is False and body["cutoff"] == 0.999 and body["count"] == 3

    def test_a_term_has_no_cut_off_in_the_api(self, client, fleet):
        body = client.get("/api/v1/search/", {"q": "crate", "game": "fleet"}).json()
        assert body["read_as"] == "term" and body["confident"] is None and body["cutoff"] is None


class TestSaidPlainly:
    def test_a_stop_word_strip_is_no_correction(self, client, fleet):
        """The question's function words are left out of the search, which the page
        never presents as "Showing results for …" or "Did you mean …"."""
        for question in ("what happens to my boat when there is a storm?", "can I trade crates with the others?"):
            results = search(question, game="fleet", reader_language="en")
            assert results.kind == "question" and results.suggestion is None and not results.corrected
            page = client.get("/en/search/", {"q": question, "game": "fleet"}).content.decode()
            assert "Showing results for" not in page and "Did you mean" not in page


def test_the_real_model_is_confident_about_a_real_answer(real):
    game = make_game(slug="fleet-real")
    for title, body in RULES.items():
        make_entry(game=game, language="en", title=title, body=body)
    semantic.refresh()
    results = search("my ship got caught in bad weather out on the water, now what?", game="fleet-real",
                      reader_language="en")  # fmt: skip
    assert results.confident is True and results.cutoff >= service.CONFIDENT - service.BAND
    assert "Storms" in [hit.title for hit in results.hits[:3]]
    assert results.total < len(RULES)


def test_a_faq_question_is_a_way_into_the_rule_it_is_linked_to(fake, monkeypatch):
    """A player's words close to a FAQ question lead to the entry the question is
    linked to, even when the entry's own words are far from them."""
    from tests.factories import make_question

    monkeypatch.setattr(service, "CONFIDENT", 0.0)
    game = make_game(slug="linked")
    for title, body in RULES.items():
        make_entry(game=game, language="en", title=title, body=body)
    barter = make_entry(game=game, language="en", title="Barter", body="Goods change hands only by mutual consent.")
    question = "may I swap goods with someone while it is not my turn?"
    faq = make_question(game=game, language="en", question="Can I swap goods when it is not my turn?",
                        answer="Yes.")  # fmt: skip
    semantic.refresh()
    unlinked = [hit.title for hit in search(question, game="linked", reader_language="en").hits]
    faq.related_entries.set([barter])
    linked = [hit.title for hit in search(question, game="linked", reader_language="en").hits]
    before = unlinked.index("Barter") if "Barter" in unlinked else len(unlinked)
    assert "Barter" in linked[:3] and linked.index("Barter") < before
