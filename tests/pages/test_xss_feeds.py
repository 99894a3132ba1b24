"""Feeds are XML: the XSS corpus (tests/xss.py) in every field they carry is escaped
once, parses, and their HTML holds nothing that could run in a feed reader."""

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from rules.content.models import Entry, Erratum
from tests.xss import MARK, import_corpus, make_corpus_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus(tmp_path):
    world = make_corpus_game()
    world["text_game"], world["json_game"] = import_corpus(tmp_path)
    return world


_C0_AND_SPACE = "".join(chr(code) for code in range(0x21))


class LiveMarkup(HTMLParser):
    """What an HTML summary would run in a feed reader: script, handlers, script URLs."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed", "base", "meta"):
            self.found.append(tag)
        for name, value in attrs:
            # As the URL standard reads it: C0 controls and spaces stripped at both ends,
            # tabs and line breaks removed everywhere ("jav\tascript:" is javascript:,
            # "jav    ascript:" is a relative address).
            url = re.sub(r"[\t\n\r]", "", (value or "").strip(_C0_AND_SPACE))
            scheme = url.lower().split(":", 1)[0]
            if name.startswith("on") or (
                name in ("href", "src", "action", "formaction")
                and scheme in ("javascript", "vbscript", "data")
            ):
                self.found.append(f"{tag} {name}={value}")


def test_feeds_escape_the_corpus(client, corpus):
    """Feeds are XML: they parse, titles come back exactly as written (escaped once),
    and their HTML summaries hold no script, event handler or script URL."""
    atom = "{http://www.w3.org/2005/Atom}"
    titles = set()
    for path in [
        "/en/feeds/changes/",
        f"/en/games/{corpus['game'].slug}/feeds/changes/",
        f"/en/games/{corpus['game'].slug}/feeds/errata/",
        f"/en/games/{corpus['json_game'].slug}/feeds/changes/",
        f"/en/games/{corpus['json_game'].slug}/feeds/errata/",
    ]:
        response = client.get(path)
        assert response.status_code == 200, path
        feed = ET.fromstring(response.content)  # a stray "<" or "&" would not parse
        entries = feed.findall(f"{atom}entry")
        assert entries, path
        for entry in entries:
            titles.add(entry.findtext(f"{atom}title"))
            for summary in (entry.findtext(f"{atom}summary"), entry.findtext(f"{atom}content")):
                markup = LiveMarkup()
                markup.feed(summary or "")
                assert markup.found == [], (path, markup.found)
    written = {
        *Entry.objects.values_list("title", flat=True),
        *Erratum.objects.values_list("title", flat=True),
    }
    corpus_titles = {title for title in titles if title and title.startswith(MARK)}
    assert corpus_titles, "the corpus titles are in the feeds"
    assert corpus_titles <= written, "each exactly as written: not escaped twice, not stripped"
