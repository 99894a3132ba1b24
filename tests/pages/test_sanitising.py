"""No script from content can ever run: real XSS payloads in every field a page renders."""

from html.parser import HTMLParser

import pytest

from tests.factories import make_entry, make_erratum, make_game, make_question

pytestmark = pytest.mark.django_db

PAYLOADS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    "<svg/onload=alert(1)>",
    '<iframe src="https://evil.example"></iframe>',
    "[[x|<script>alert(1)</script>]]",
    '"><script>alert(1)</script>',
    "<style>body{display:none}</style>",
    "[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
]


class _Elements(HTMLParser):
    """Collects what a browser would execute: script/iframe/style tags and risky attributes."""

    def __init__(self):
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in {"script", "iframe", "object", "embed"} and not dict(attrs).get("src", "").startswith("/static/"):
            self.problems.append(f"<{tag}>")
        if tag == "style":
            self.problems.append("<style>")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"{tag} {name}=")
            if name in {"href", "src", "action"} and (value or "").strip().lower().startswith(("javascript:", "data:")):
                self.problems.append(f"{tag} {name}={value}")


def assert_inert(html: str) -> None:
    parser = _Elements()
    parser.feed(html)
    assert parser.problems == []


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_in_content_are_rendered_inert(client, payload):
    game = make_game(name=f"Game {payload}")
    entry = make_entry(game=game, title=f"T {payload}", body=f"Text {payload}", aliases=[payload], see_also=[payload])
    make_erratum(
        game=game, title=f"E {payload}", corrected_text=payload, original_text=payload + " old", affects=[entry]
    )
    make_question(game=game, question=f"Q {payload}?", answer=payload, related_entries=[entry])
    for url in [
        "/en/",
        f"/en/games/{game.slug}/",
        entry.url_in("en"),
        f"/en/games/{game.slug}/errata/",
        f"/en/games/{game.slug}/faq/",
        f"/en/search/?q={entry.title[:20]}",
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert_inert(response.content.decode())
