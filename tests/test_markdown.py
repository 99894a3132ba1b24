"""One Markdown parser per thread serves every text: nothing of one text reaches the next."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.markdown import _paragraphs_only, _parser, render_markdown


def test_a_reference_definition_in_one_text_does_not_link_the_next():
    assert 'href="https://example.org/a"' in render_markdown(
        "[rules][a]\n\n[a]: https://example.org/a"
    )
    html = render_markdown("[rules][a]")
    assert "href" not in html and "[rules][a]" in html


def test_each_text_links_with_its_own_resolver():
    linked = render_markdown("See [[Combat]].", lambda label: "/en/games/g/combat/")
    assert 'href="/en/games/g/combat/"' in linked
    wanted = render_markdown("See [[Combat]].")
    assert "href" not in wanted and "xref-wanted" in wanted
    other = render_markdown("See [[Combat]].", lambda label: "/en/games/h/combat/")
    assert 'href="/en/games/h/combat/"' in other


def test_raw_html_set_aside_in_one_text_does_not_come_back_in_the_next():
    first = render_markdown("A <sup>1</sup> and <del>old</del>.")
    assert "<sup>1</sup>" in first
    second = render_markdown("Plain text.")
    assert second == "<p>Plain text.</p>"


# -- Plain paragraphs are not parsed, and come out exactly as Python-Markdown makes them --

ROOT = Path(__file__).resolve().parents[1]
# Letters of the content languages, punctuation, digits, spaces and line breaks, and every
# character Markdown or HTML gives a meaning to, so that both sides of the fast path are
# tried.
ALPHABET = (
    "aeiouxyzAEZäöüßąęłńśżéèçñíó"
    + "0123456789"
    + " \n\n\n"
    + ".,;:!?'\"()/%€-–—•…"
    + "\\`*_[]<>&|#=+~^{}\t\xa0"
)


def parsed(text: str) -> str:
    return _parser().reset().convert(text)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=120))
def test_plain_paragraphs_come_out_as_python_markdown_makes_them(text):
    fast = _paragraphs_only(text)
    if fast is not None:
        assert fast == parsed(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["Play", "a card,", "then draw.", "Exhaust it", "(once)", "€2", "–", "\n", "\n\n"]
        ),
        max_size=40,
    )
)
def test_plain_sentences_take_the_fast_path_and_match(words):
    text = " ".join(words).replace(" \n", "\n").replace("\n ", "\n").strip(" ")
    fast = _paragraphs_only(text)
    assert fast is not None
    assert fast == parsed(text)


def test_the_paragraphs_of_real_rules_texts_render_the_same_either_way():
    documents = [
        *(ROOT / "rules" / "demo").glob("*.txt"),
        *(ROOT / "tests" / "importing" / "documents").rglob("*.txt"),
    ]
    taken = 0
    for path in documents:
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")
        for start in range(len(paragraphs)):
            text = "\n\n".join(paragraphs[start : start + 3])
            fast = _paragraphs_only(text)
            if fast is not None:
                taken += 1
                assert fast == parsed(text), (path.name, text)
    assert taken > 100  # the fast path is taken by real texts, not only by generated ones
