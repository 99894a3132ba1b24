"""Property-based: no input crashes the importer or leaves a partial import.

Documents are drawn from the pieces real rules texts are made of (titles, wrapped prose,
bullets, numbered rules, questions, cross-reference lines in every language, page
breaks, private-use ligature glyphs, stray brackets, hyphens) plus arbitrary text and
arbitrary bytes. Whatever comes in, the importer either reports what it did or raises
ImportRulesError with a message, and after an error the database is as it was.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faq.models import Question
from rules.content.models import CrossReference, Entry, Erratum, Game, Source
from rules.importing import ImportOptions, ImportRulesError, import_document

WORDS = st.sampled_from(
    [
        "Angriff", "Karte", "player", "card", "gracz", "karta", "speler", "kaart", "Schaden", "żeton",
        "effect", "e\ue01dect", "\ue01fe", "eect", "rst", "Zug", "beurt", "tura", "ability", "Fähigkeit",
        "well-known", "Begegnungs-", "karte", "(", ")", "[[Angriff]]", "[[", "]]", "*", "_", "#", "<b>",
        "601.2a", "7.", "2.3", "x", "•", "–", "?", ":", ";", ",", "and", "und", "i", "en",
    ]
)
LINE_KINDS = st.one_of(
    st.lists(WORDS, min_size=1, max_size=14).map(" ".join),
    st.lists(WORDS, min_size=1, max_size=4).map(lambda ws: " ".join(ws).capitalize()),  # a title
    st.lists(WORDS, min_size=1, max_size=8).map(lambda ws: "• " + " ".join(ws)),
    st.lists(WORDS, min_size=1, max_size=8).map(lambda ws: "  – " + " ".join(ws)),
    st.tuples(st.sampled_from(["1.", "2.3", "601.2a", "7)", "10.1.4"]), st.lists(WORDS, min_size=1, max_size=8)).map(
        lambda t: f"{t[0]} " + " ".join(t[1])
    ),
    st.lists(WORDS, min_size=1, max_size=8).map(lambda ws: " ".join(ws) + "?"),
    st.tuples(
        st.sampled_from(
            ["See also:", "Related:", "Siehe auch:", "Zobacz też:", "Zie ook", "Voir aussi :", "Véase también:"]
        ),
        st.lists(WORDS, min_size=1, max_size=6),
    ).map(lambda t: t[0] + " " + ", ".join(t[1])),
    st.sampled_from(
        ["", "", "\f", "17", "Rules Reference", "[", "]", "Q: Can I?", "A: Yes.", "Errata", "# Heading", "## Sub"]
    ),
    st.text(max_size=60),
)
DOCUMENTS = st.lists(LINE_KINDS, max_size=40).map("\n".join)


def counts() -> tuple[int, ...]:
    return (
        Game.objects.count(),
        Source.objects.count(),
        Entry.objects.count(),
        Entry.history.count(),
        Erratum.objects.count(),
        Question.objects.count(),
        CrossReference.objects.count(),
    )


def import_or_refuse(data, kind: str, language: str) -> None:
    options = ImportOptions(game="prop", game_name="Property Game", language=language, kind=kind)
    before = counts()
    try:
        report = import_document(data, options)
    except ImportRulesError as error:
        assert str(error).strip()
        assert counts() == before, "a refused document left rows behind"
        return
    assert len(report.outcomes) == len(report.items)
    assert {outcome.action for outcome in report.outcomes} <= {"created", "updated", "unchanged"}
    # Importing the same document again is a no-op.
    again = import_document(data, options)
    assert again.created == [] and again.updated == []


PROPERTY_SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.django_db
@PROPERTY_SETTINGS
@given(
    text=DOCUMENTS,
    kind=st.sampled_from(["auto", "glossary", "rulebook", "faq"]),
    language=st.sampled_from(["en", "de", "pl", "nl"]),
)
def test_documents_made_of_rules_text_pieces_import_or_are_refused(text, kind, language):
    import_or_refuse(text, kind, language)


@pytest.mark.django_db
@PROPERTY_SETTINGS
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes_import_or_are_refused(data):
    import_or_refuse(data, "auto", "en")


@pytest.mark.django_db
@PROPERTY_SETTINGS
@given(text=st.text(max_size=400))
def test_arbitrary_text_imports_or_is_refused(text):
    import_or_refuse(text, "auto", "de")
