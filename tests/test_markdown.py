"""One Markdown parser per thread serves every text: nothing of one text reaches the next."""

from rules.markdown import render_markdown


def test_a_reference_definition_in_one_text_does_not_link_the_next():
    assert 'href="https://example.org/a"' in render_markdown("[rules][a]\n\n[a]: https://example.org/a")
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
