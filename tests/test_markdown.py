"""One Markdown parser per thread serves every text: nothing of one text reaches the next."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.importing import ImportOptions, ImportRulesError, parse_document
from rules.shared.markdown import _parser, _plain_blocks, render_markdown


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


# -- Plain paragraphs and lists are not parsed, and come out as Python-Markdown makes them --

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
# How a line may start: plain, a list item, or something that starts another block.
LINE_STARTS = [
    "",
    "",
    "",
    "- ",
    "- ",
    "-  ",
    "-",
    "1. ",
    "2) ",
    "# ",
    "> ",
    "  ",
    "    ",
    "+ ",
    "- - ",
    "- 1. ",
    "=",
]
WORDS = [
    "Play",
    "a card,",
    "then draw.",
    "Exhaust it",
    "(once)",
    "€2",
    "–",
    "Spieler-",
    "und",
    "ß",
    "---",
    "*",
]


def parsed(text: str) -> str:
    return _parser().reset().convert(text)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=120))
def test_any_text_the_fast_path_takes_comes_out_as_python_markdown_makes_it(text):
    fast = _plain_blocks(text)
    if fast is not None:
        assert fast == parsed(text)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(LINE_STARTS),
            st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
            st.sampled_from(["\n", "\n", "\n\n", "\n\n\n"]),
        ),
        max_size=12,
    )
)
def test_paragraphs_and_lists_come_out_as_python_markdown_makes_them(lines):
    text = "".join(start + " ".join(words) + end for start, words, end in lines)
    fast = _plain_blocks(text)
    if fast is not None:
        assert fast == parsed(text)


def test_a_paragraph_and_a_list_take_the_fast_path():
    text = "Choose one:\n\n- Draw a card.\n- Exhaust a character.\n\nThen pass."
    assert _plain_blocks(text) == parsed(text)
    assert render_markdown(text) == (
        "<p>Choose one:</p>\n<ul>\n<li>Draw a card.</li>\n<li>Exhaust a character.</li>\n</ul>\n"
        "<p>Then pass.</p>"
    )


def test_the_texts_the_importer_writes_render_the_same_either_way():
    """Every body the importer makes of the test documents, and the paragraphs of the
    documents as written."""
    documents = [
        *(ROOT / "rules" / "demo").glob("*.txt"),
        *(ROOT / "tests" / "importing" / "documents").rglob("*.txt"),
        *(ROOT / "tests" / "importing" / "documents").rglob("*.md"),
    ]
    texts = []
    for path in documents:
        raw = path.read_text(encoding="utf-8")
        language = path.name[:2] if path.name[2:3] == "_" else "en"
        options = ImportOptions(game="g", language=language)
        try:
            items = parse_document(raw, options, markdown=path.suffix == ".md").items
        except ImportRulesError:
            items = []
        texts += [item.body for item in items]
        paragraphs = raw.split("\n\n")
        texts += ["\n\n".join(paragraphs[start : start + 3]) for start in range(len(paragraphs))]
    taken = 0
    for text in texts:
        fast = _plain_blocks(text)
        if fast is not None:
            taken += 1
            assert fast == parsed(text), text
    assert taken > 200  # the fast path serves real texts, not only generated ones


# --- bounded: texts Python-Markdown would take seconds over, or fail on -------------------


def test_thousands_of_brackets_that_never_close_render_fast_and_as_written():
    """Its link parser looked for each "[" 's "]" to the paragraph's end: 4,000 took 2.8 s."""
    import time

    for text, link in (("[ " * 4000, 0), ("[[a " * 2000, 0), ("See [[Term]] and [" + "x [" * 3000, 1)):
        started = time.process_time()
        html = str(render_markdown(text))
        assert time.process_time() - started < 0.5, text[:20]
        assert html.count("[") == text.count("[") - 2 * link  # every bracket shown, none lost to an escape
        assert "\\[" not in html and html.count('class="xref') == link
    # and links that close still link
    linked = str(render_markdown("[[Term]] " + "[ " * 200, resolve=lambda label: "/t/"))
    assert '<a class="xref" href="/t/">Term</a>' in linked


def test_a_text_nested_too_deep_is_shown_as_text_and_the_next_renders_right():
    """A list nested hundreds of levels (or "- " × 25,000 on one line) raised RecursionError
    and left the thread's parser half reset: later texts came out wrong."""
    before = str(render_markdown("Intro.\n\n- [[Zug]]\n- *zwei*", resolve=lambda label: "/zug/"))
    for text in ("".join("  " * level + "- x\n" for level in range(300)), "- " * 25_000 + "x", ">" * 500 + " x"):
        html = str(render_markdown(text))
        assert html.startswith("<p>") and "x" in html
    assert str(render_markdown("Intro.\n\n- [[Zug]]\n- *zwei*", resolve=lambda label: "/zug/")) == before


def test_a_parser_that_fails_is_never_reused(monkeypatch):
    before = str(render_markdown("Intro *one*.\n\n- [[Zug]]", resolve=lambda label: "/zug/"))
    md = _parser()
    monkeypatch.setattr(md, "convert", lambda text: (_ for _ in ()).throw(RecursionError("deep")))
    assert str(render_markdown("Intro *one* <b>.\n\nsecond")) == "<p>Intro *one* &lt;b&gt;.</p>\n<p>second</p>"
    monkeypatch.undo()
    assert _parser() is not md
    assert str(render_markdown("Intro *one*.\n\n- [[Zug]]", resolve=lambda label: "/zug/")) == before
