"""A text that mentions a tag shows it as text, and nothing after it is lost.

"Use <style> carefully." used to take every following line with it (nh3 drops a style's
or script's content), and "<title>" or "<textarea>" turned the rest into literal
"&lt;/p&gt;". Each case is read as a reader sees it: the visible text of the public page.
"""

from html.parser import HTMLParser

import pytest
from django.core.management import call_command

from rules.content.models import Entry
from rules.derived import rendering
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.pages.test_sanitising import assert_inert

pytestmark = pytest.mark.django_db

TAGS = [
    "style", "script", "template", "title", "textarea", "iframe", "noscript", "xmp",
    "plaintext", "noembed", "noframes", "svg", "math", "select", "object", "div",
]


def texts(tag: str) -> dict[str, str]:
    """Texts that mention the tag: unclosed mid-line, closed, at a line's start, and
    one rule written in Markdown after it (which must still be formatted)."""
    return {
        "unclosed": f"Rule one.\n\nUse <{tag}> carefully.\n\nRule two.",
        "closed": f"Rule one.\n\nWrite <{tag}>x</{tag}> never.\n\nRule two.",
        "line start": f"Rule one.\n\n<{tag}>\nstill text\n\nRule **two**.",
        "one paragraph": f"Rule one.\nUse <{tag}> carefully.\nRule two.",
    }


def expected_lines(text: str) -> list[str]:
    return [line.replace("**", "") for line in text.splitlines() if line.strip()]


class _VisibleText(HTMLParser):
    """The text a reader sees: everything but the page's own scripts, styles and head."""

    HIDDEN = {"script", "style", "template", "title", "head", "textarea", "noscript"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hidden, self.parts = 0, []

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in self.HIDDEN

    def handle_endtag(self, tag):
        self.hidden -= tag in self.HIDDEN and self.hidden > 0

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def visible(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    return " ".join("".join(parser.parts).split())


def assert_shows_every_line(html: str, text: str) -> None:
    shown = visible(html)
    for line in expected_lines(text):
        assert line in shown, f"{line!r} missing from {shown[:2000]!r}"
    assert "&lt;" not in shown and "</p>" not in shown  # no markup shown as text by mistake


@written_together
def one_text_three_times(text: str):
    """A game whose entry, erratum and FAQ answer all hold ``text``."""
    game = make_game(slug="karten", name="Karten")
    entry = make_entry(game=game, title="Tags", body=text)
    make_erratum(game=game, title="Fix", corrected_text=text, affects=[entry])
    make_question(game=game, question="Tags?", answer=text, related_entries=[entry])
    return game, entry


@pytest.mark.parametrize("tag", TAGS)
@pytest.mark.parametrize("case", ["unclosed", "closed", "line start", "one paragraph"])
def test_entry_erratum_and_answer_show_every_line(client, tag, case):
    text = texts(tag)[case]
    game, entry = one_text_three_times(text)

    for url in (entry.url_in("en"), f"/en/games/{game.slug}/errata/", f"/en/games/{game.slug}/faq/"):
        response = client.get(url)
        assert response.status_code == 200, url
        page = response.content.decode()
        assert_shows_every_line(page, text)
        assert_inert(page)
    # The entry page shows the body, the erratum and the answer: three times the tag.
    assert visible(client.get(entry.url_in("en")).content.decode()).count(f"<{tag}>") == 3


def test_markdown_after_a_tag_at_a_line_start_is_still_formatted(client):
    entry = make_entry(body="<script>\nalert(1)\n\nRule **two** and *three*.")
    assert "<strong>two</strong>" in entry.body_html and "<em>three</em>" in entry.body_html
    assert "&lt;script&gt;" in entry.body_html


def test_allowed_tags_autolinks_and_code_are_unchanged():
    entry = make_entry(body="x<sup>2</sup> <del>old</del> <https://example.org>\n\n`<style>` and\n\n    <script>")
    html = entry.body_html
    assert "x<sup>2</sup> <del>old</del>" in html
    assert '<a href="https://example.org">https://example.org</a>' in html
    assert "<code>&lt;style&gt;</code>" in html
    assert "<pre><code>&lt;script&gt;" in html


def test_stored_html_from_the_old_renderer_is_rendered_again(monkeypatch):
    entry = make_entry(body="Rule one.\n\nUse <style> carefully.\n\nRule two.")
    # As the previous renderer stored it: the text after <style> gone.
    monkeypatch.setattr(rendering, "RENDERER_VERSION", "1")
    old_fingerprint = rendering.fingerprint({"body": entry.body}, {})
    monkeypatch.undo()
    Entry.objects.filter(pk=entry.pk).update(
        body_html="<p>Rule one.</p>\n<p>Use </p>", html_fingerprint=old_fingerprint
    )

    call_command("render_html", verbosity=0)

    html = Entry.objects.get(pk=entry.pk).body_html
    assert "Use &lt;style&gt; carefully." in html and "Rule two." in html
