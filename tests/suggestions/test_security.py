"""The first public write, attacked: the XSS corpus through every field of the form, and a
flood of submissions from one address and at one entry."""

import re
import time
from html.parser import HTMLParser
from http import HTTPStatus

import pytest

from rules.moderation import suggestion_limits
from rules.moderation.models import COMMENT_MAX_LENGTH, Suggestion
from tests.factories import make_entry, make_game
from tests.xss import VECTORS, one_line, packed

from .sending import fields as form_fields
from .sending import later, opened

pytestmark = pytest.mark.django_db

_C0_AND_SPACE = "".join(chr(code) for code in range(0x21))


class LiveMarkup(HTMLParser):
    """What would run in a browser: script and embedding elements, event handlers, and
    script URLs (as the URL standard reads them)."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed", "base", "meta", "style", "link", "form", "svg", "math"):
            self.found.append((tag, tuple(sorted((name, value) for name, value in attrs))))
        for name, value in attrs:
            url = re.sub(r"[\t\n\r]", "", (value or "").strip(_C0_AND_SPACE))
            scheme = url.lower().split(":", 1)[0]
            if (
                name.startswith("on")
                or name == "srcdoc"
                or (
                    name in ("href", "src", "action", "formaction", "data", "xlink:href")
                    and scheme in ("javascript", "vbscript", "data")
                )
            ):
                self.found.append((tag, name, value))


def live(html: str) -> list:
    parser = LiveMarkup()
    parser.feed(re.sub(r"/suggestions/[\w-]{43}/", "/suggestions/TOKEN/", html))
    return parser.found


@pytest.fixture
def entry():
    game = make_game(slug="blue-moon", name="Blue Moon")
    return make_entry(game=game, title="Exhaust", slug="exhaust", body="Turn the card sideways.")


URL = "/en/games/blue-moon/rules/exhaust/suggest/"


@pytest.fixture
def shown(client, entry):
    """The form's hidden fields as a browser got them, and the clock on a few seconds
    (a person's time to fill it) for the rest of the test."""
    hidden = opened(client, URL)
    with later():
        yield hidden


def post(client, shown, address="203.0.113.1", **overrides):
    data = {"kind": "typo", "comment": "A typo.", "proposal": "Turn the card sideways!", **shown, **overrides}
    return client.post(URL, form_fields(**data), REMOTE_ADDR=address)


def test_the_xss_corpus_through_every_field_is_inert_on_the_status_page(client, entry, shown):
    """Every vector in the comment and the proposal, viewed on the status page (and its
    word diff): the markup that could run is exactly that of a harmless suggestion's page,
    and no vector with markup appears unescaped."""
    baseline = client.get(post(client, shown, comment="Harmless.", proposal="Turn it sideways.")["Location"])
    expected = live(baseline.content.decode())
    comments = packed(COMMENT_MAX_LENGTH)
    proposals = ["\n\n".join(VECTORS), *map(one_line, VECTORS[:3])]
    sent = [(comment, "") for comment in comments] + [(comments[0], proposal) for proposal in proposals]
    pages = []
    for number, (comment, proposal) in enumerate(sent):
        response = post(client, shown, address=f"198.51.100.{number + 1}", comment=comment, proposal=proposal)
        assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:3000]
        pages.append(client.get(response["Location"]).content.decode())
    assert Suggestion.objects.filter(comment__in=comments).count() >= len(comments)
    for html in pages:
        assert live(html) == expected
        for vector in VECTORS:
            if "<" in vector:
                assert vector not in html and one_line(vector) not in html
    every = "\n".join(pages)
    assert "&lt;script&gt;__xss.push(1)&lt;/script&gt;" in every  # shown, as text


@pytest.mark.parametrize("field", ["kind", "email", "comment", "proposal", "seen_version", "started"])
def test_the_xss_corpus_in_a_refused_form_is_escaped(client, entry, shown, field):
    """A form sent back with errors shows what was typed, escaped: a vector as the kind or
    the e-mail address (both refused), or in a text with another field wrong."""
    expected = live(post(client, shown, kind="").content.decode())
    for vector in VECTORS:
        fields = {field: vector}
        if field in ("comment", "proposal"):
            fields["kind"] = ""  # an error elsewhere: the form comes back with the vector in it
        response = post(client, shown, **fields)
        assert response.status_code == HTTPStatus.OK
        html = response.content.decode()
        assert live(html) == expected, vector
        if "<" in vector:
            assert vector not in html
    assert not Suggestion.objects.exists()


def test_a_flood_from_one_address_gets_429_and_the_site_still_answers(client, entry, shown):
    statuses = []
    started = time.perf_counter()
    for number in range(200):
        statuses.append(post(client, shown, comment=f"Flood {number}.", proposal=f"Text {number}.").status_code)
    elapsed = time.perf_counter() - started
    limit = suggestion_limits.PER_ADDRESS
    assert statuses[:limit] == [HTTPStatus.FOUND] * limit
    assert set(statuses[limit:]) == {HTTPStatus.TOO_MANY_REQUESTS}
    assert Suggestion.objects.count() == limit
    refused = post(client, shown, comment="One more.")
    html = refused.content.decode()
    assert re.search(r"Too many suggestions from your connection; try again in \d+ minutes?\.", html)
    assert int(refused["Retry-After"]) > 0
    # nothing else slowed: the entry page and another connection's form still answer
    assert client.get(entry.get_absolute_url()).status_code == HTTPStatus.OK
    assert client.get(URL).status_code == HTTPStatus.OK
    assert post(client, shown, address="198.51.100.77", comment="Someone else.").status_code == HTTPStatus.FOUND
    assert elapsed < 60  # about 1 s here (4-5 ms a refused one); only a gross slowdown fails


def test_windows_end(entry):
    now = 1_000_000.0
    for _ in range(suggestion_limits.PER_ADDRESS):
        assert suggestion_limits.take("abc", "entry", entry.pk, now=now) is None
    refusal = suggestion_limits.take("abc", "entry", entry.pk, now=now)
    assert refusal is not None and 1 <= refusal.minutes <= 10
    later = (now // suggestion_limits.ADDRESS_WINDOW + 1) * suggestion_limits.ADDRESS_WINDOW
    assert suggestion_limits.take("abc", "entry", entry.pk + 1, now=later) is None  # another item
    next_hour = (now // suggestion_limits.TARGET_WINDOW + 1) * suggestion_limits.TARGET_WINDOW
    assert suggestion_limits.take("abc", "entry", entry.pk, now=next_hour) is None


def test_the_checker_sees_live_markup():
    assert live('<p><img src=x onerror="__xss.push(1)"></p>') and live("<a href=' javascript:x'>a</a>")
    assert not live("<p>&lt;script&gt;</p>")
