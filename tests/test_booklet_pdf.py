"""The booklet as a PDF: made in Python (fpdf2), no browser, no network; its text is there,
whatever characters and links the content holds; nothing in it comes from the request."""

import io
import socket
from pathlib import Path

import icu
import pytest
from fontTools.ttLib import TTFont
from pypdf import PdfReader

from rules.builds import booklet as booklets
from rules.builds.booklet_pdf import render_pdf
from rules.content.models import Entry, Source
from tests.builds import content_of, get_built
from tests.factories import make_entry, make_erratum, make_game, make_source, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db

SECTION = Entry.Kind.SECTION
SITE = "https://rules.example.org"
FONTS = Path(__file__).resolve().parents[1] / "rules" / "builds" / "fonts"


def pdf_text(data: bytes) -> tuple[PdfReader, list[str]]:
    reader = PdfReader(io.BytesIO(data))
    return reader, [" ".join(page.extract_text().split()) for page in reader.pages]


def rules_pdf(game, online_path: str = "/pl/games/gra/print/rules/") -> bytes:
    booklet = booklets.build(game, "pl", booklets.RULES)
    return render_pdf(booklet, game_name="Gra", language="pl", site_url=SITE, online_path=online_path)


def links(reader: PdfReader) -> tuple[set[str], dict[str, int]]:
    """The PDF's web links, and its links to named places with the page each is on."""
    uris, places = set(), {}
    for page in reader.pages:
        for annotation in page.get("/Annots") or []:
            annotation = annotation.get_object()
            if "/A" in annotation and "/URI" in annotation["/A"]:
                uris.add(annotation["/A"]["/URI"])
            elif isinstance(annotation.get("/Dest"), str):  # a named destination
                name = annotation["/Dest"]
                places[name] = reader.get_destination_page_number(reader.named_destinations[name])
    return uris, places


def fonts_used(reader: PdfReader) -> set[str]:
    return {
        font.get_object()["/BaseFont"].split("+")[-1]
        for page in reader.pages
        for font in (page["/Resources"].get("/Font") or {}).values()
    }


@written_together
def build_game():
    game = make_game(slug="gra", name="Gra", localized_names={"pl": "Gra planszowa"})
    source = make_source(game=game, language="pl", title="Instrukcja", kind=Source.Kind.RULEBOOK, version="1.2")
    turn = make_entry(
        game=game, language="pl", title="Tura gracza", number="2", kind=SECTION, order=1, source=source,
        body="Gracz wykonuje **dwie akcje**.",
    )  # fmt: skip
    make_entry(
        game=game, language="pl", title="Przygotowanie", number="1", kind=SECTION, order=0, source=source,
        body="Połóż planszę na środku stołu.",
    )  # fmt: skip
    attack = make_entry(
        game=game, language="pl", title="Atak", number="2.1", kind=SECTION, order=2, parent=turn, source=source,
        body="**2.1a** Rzuć kośćmi.\n\n- pierwsza\n- druga\n\n| Kość | Wynik |\n|---|---|\n| 6 | trafienie |",
    )  # fmt: skip
    make_erratum(
        game=game, language="pl", title="Poprawka ataku", original_text="Rzuć kośćmi.",
        corrected_text="Rzuć dwiema kośćmi.", affects=[attack],
    )  # fmt: skip
    return game


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


def test_the_pdf_holds_title_page_contents_entries_and_footnotes(client, game):
    response = get_built(client, "/pl/games/gra/print/rules.pdf")
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert 'filename="gra-rules-pl.pdf"' in response["Content-Disposition"]
    reader, pages = pdf_text(content_of(response))
    assert "Gra planszowa" in pages[0] and "Instrukcja" in pages[0] and "1.2" in pages[0]
    assert "3 wpisy" in pages[0] and "1 erratum" in pages[0]
    assert pages[1].startswith("2 Spis treści")  # the page number, then the heading
    for title in ["1. Przygotowanie", "2. Tura gracza", "2.1. Atak"]:
        assert title in pages[1]
    body = " ".join(pages[2:])
    # in document order, Polish letters intact, the erratum applied (its mark a number, no title)
    texts = ["Połóż planszę na środku stołu.", "Gracz wykonuje dwie akcje.", "2.1a Rzuć dwiema kośćmi.1"]
    order = [body.index(text) for text in texts]
    assert order == sorted(order)
    assert "pierwsza" in body and "trafienie" in body
    assert "Poprawka ataku" in body and "Rzuć dwiema kośćmi." in body
    outline = [item.title for item in reader.outline if not isinstance(item, list)]
    assert outline == ["1. Przygotowanie", "2. Tura gracza"]
    # the corrected passage's mark links to its footnote
    assert set(links(reader)[1]) == {"fn-1"} and "Poprawka ataku" in pages[links(reader)[1]["fn-1"]]
    assert reader.metadata.title == "Instrukcja · Gra planszowa"


def test_the_glossary_pdf(client, game):
    for title in ["Łucznik", "Lasso", "Zasięg"]:
        make_entry(game=game, language="pl", title=title, body=f"O haśle {title}.")
    _reader, pages = pdf_text(content_of(get_built(client, "/pl/games/gra/print/glossary.pdf")))
    body = " ".join(pages[2:])
    assert body.index("O haśle Lasso.") < body.index("O haśle Łucznik.") < body.index("O haśle Zasięg.")


def test_made_without_the_network(game, monkeypatch):
    booklet = booklets.build(game, "pl", booklets.RULES)

    def no_network(*args, **kwargs):
        raise AssertionError("the PDF tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    data = render_pdf(booklet, game_name="Gra", language="pl", site_url=SITE, online_path="/pl/games/gra/print/rules/")
    assert "Połóż planszę na środku stołu." in " ".join(pdf_text(data)[1])


def test_a_text_the_pdf_cannot_lay_out_is_written_as_text(client, game):
    make_entry(game=game, language="pl", title="Zagnieżdżona tabela", kind=SECTION, order=5,
               body="<table><tr><td><table><tr><td>wewnątrz</td></tr></table></td></tr></table>")  # fmt: skip
    make_entry(game=game, language="pl", title="Koniec gry", kind=SECTION, order=6,
               body="Gra kończy się po dziesięciu rundach.")  # fmt: skip
    response = get_built(client, "/pl/games/gra/print/rules.pdf")
    assert response.status_code == 200
    body = " ".join(pdf_text(content_of(response))[1])
    assert "wewnątrz" in body and "Gra kończy się po dziesięciu rundach." in body


def test_the_same_content_gives_the_same_bytes(client, game):
    first = content_of(get_built(client, "/pl/games/gra/print/rules.pdf"))
    make_entry(game=make_game(), title="Another game's entry")  # a write elsewhere
    assert content_of(get_built(client, "/pl/games/gra/print/rules.pdf")) == first


@pytest.mark.parametrize(
    "path",
    ["/pl/games/gra/print/faq.pdf", "/pl/games/gra/print/rules.pdf?source=9999", "/pl/games/nope/print/rules.pdf"],
)
def test_no_pdf_of_what_is_not_there(client, game, path):
    assert client.get(path).status_code == 404


def test_nothing_to_print_is_404(client, game):
    assert client.get("/pl/games/gra/print/glossary.pdf").status_code == 404


def test_the_booklet_page_links_its_pdf(client, game):
    html = content_of(get_built(client, "/pl/games/gra/print/rules/")).decode()
    assert 'href="/pl/games/gra/print/rules.pdf" type="application/pdf">Pobierz jako PDF</a>' in html


# -- every character of the content languages, in every style, code included


def content_language_characters() -> set[str]:
    """Every letter of the content languages (ICU's exemplars: the alphabet, the letters
    of borrowed words, the index), upper and lower case, and typographic punctuation."""
    kinds = icu.ULocaleDataExemplarSetType
    characters = set("„“”‚‘’«»‹›–—…·•′″‰€§°±×÷¶†‡\u00a0\u2009\u202f\u2011\u2026")
    for language in ["en", "de", "pl", "nl", "fr", "es", "it"]:
        data = icu.LocaleData(language)
        for kind in (kinds.ES_STANDARD, kinds.ES_AUXILIARY, kinds.ES_INDEX):
            for item in data.getExemplarSet(0, kind):
                characters.update(item, item.upper())
    return characters


@pytest.mark.parametrize("font", sorted(path.name for path in FONTS.glob("*.ttf")))
def test_every_font_style_has_every_character_of_the_content_languages(font):
    assert len(list(FONTS.glob("*.ttf"))) == 8  # DejaVu Sans and Sans Mono, four styles each
    glyphs = TTFont(FONTS / font).getBestCmap()
    missing = sorted(char for char in content_language_characters() if ord(char) not in glyphs)
    assert not missing, f"{font} lacks {missing}"
    assert 0xFFFD in glyphs  # the replacement character, for what no font has


def test_code_in_polish_german_and_french_and_characters_no_font_has(game):
    make_entry(
        game=game, language="pl", title="Kod ★", kind=SECTION, order=5,
        body=(
            "Wpisz `łódź`, `Straße` i `élève`; symbole `★ ①` i ♠.\n\n"
            "    zażółć gęślą jaźń\n    Größe — « déjà vu »\n\n"
            "Kostka 🎲 i 漢字 w tekście, `🎲 w kodzie`, \u2066żaden\u2069 znak nie ginie."
        ),
    )  # fmt: skip
    reader, pages = pdf_text(rules_pdf(game))
    body = " ".join(pages[2:])
    for text in ["Wpisz łódź, Straße i élève; symbole ★ ① i ♠.", "zażółć gęślą jaźń", "Größe — « déjà vu »"]:
        assert text in body
    # what no font has is the replacement character, in its place; invisible marks (isolates) are dropped
    assert "Kostka \ufffd i \ufffd\ufffd w tekście, \ufffd w kodzie, żaden znak nie ginie." in body
    assert "Kod ★" in pages[1] and "🎲" not in body
    fonts = fonts_used(reader)  # "DejaVuSansBook", "DejaVuSansMonoBook" ...
    assert any(font.startswith("DejaVuSansMono") for font in fonts)  # the code's
    assert all(font.startswith("DejaVuSans") for font in fonts), fonts  # no Courier


# -- every link the sanitiser lets through


ALL_LINKS = """Bez adresu: <a>kotwica bez href</a>, <a title="a>b" class="x">z tytułem</a>,
[ftp](ftp://example.org/plik), [telefon](tel:+48123456789), [pusty](), [krzyżyk](#).

Zobacz [regułę 2.1](#2.1), [regułę 2.1a](#2.1a), [erratę](#fn-1), [brak](#9.9), [koniec](#entry-koniec-gry).

[Strona gry](/pl/games/gra/), [względny](zasady/strona), [numer](1), [pytanie](?strona=2),
[list](mailto:ktoś@example.org), [**pogrubiony** _odnośnik_](https://example.org/a?b=1&c=2),
<https://example.org/auto>, [Łódź](https://pl.wikipedia.org/wiki/Łódź).

- [w liście](https://example.org/lista) i [numer w liście](2)

| Kość | Wynik |
|---|---|
| [w tabeli](https://example.org/tabela) | **6** trafienie |

## [W nagłówku](https://example.org/naglowek)
"""


def test_every_link_shape_renders_and_goes_where_it_says(game):
    make_entry(game=game, language="pl", title="Koniec gry", kind=SECTION, order=6, body="Po dziesięciu rundach.")
    make_entry(game=game, language="pl", title="Odnośniki", kind=SECTION, order=7, body=ALL_LINKS)
    reader, pages = pdf_text(rules_pdf(game))
    body = " ".join(pages[2:])
    for text in [
        "Bez adresu: kotwica bez href, z tytułem, ftp, telefon, pusty, krzyżyk.",
        "Zobacz regułę 2.1, regułę 2.1a, erratę, brak, koniec.",
        "Strona gry, względny, numer, pytanie, list, pogrubiony odnośnik, https://example.org/auto, Łódź.",
        "w liście i numer w liście", "w tabeli 6 trafienie", "W nagłówku",
    ]:  # fmt: skip
        assert text in body
    uris, places = links(reader)
    online = f"{SITE}/pl/games/gra/print/rules/"
    assert uris == {
        online,  # "Read online"
        f"{SITE}/pl/games/gra/",  # site links and relative ones: absolute, as the HTML booklet resolves them
        f"{online}zasady/strona", f"{online}1", f"{online}2", f"{online}?strona=2",
        "mailto:kto%C5%9B@example.org",  # a PDF's URI is ASCII
        "https://example.org/a?b=1&c=2", "https://example.org/auto", "https://pl.wikipedia.org/wiki/%C5%81%C3%B3d%C5%BA",
        "https://example.org/lista", "https://example.org/naglowek",
    }  # fmt: skip
    # a fragment links to its place in the PDF when the booklet has it (#9.9: plain text)
    assert set(places) == {"2.1", "2.1a", "fn-1", "entry-koniec-gry"}
    assert "2.1. Atak" in pages[places["2.1"]] and "2.1a Rzuć dwiema kośćmi." in pages[places["2.1a"]]
    assert "Poprawka ataku" in pages[places["fn-1"]] and "Koniec gry" in pages[places["entry-koniec-gry"]]


@pytest.mark.parametrize(
    "body",
    [
        "<a>bez adresu</a>", "[ftp](ftp://example.org/x)", "[pusty]()", "[reguła](#1.1)", "[reguła](1)",
        "[zero](0)", "[dużo](99999)", "`ł` [w `kodzie` ł](https://example.org)", "<ol start=\"-3\"><li>minus</li></ol>",
    ],
)  # fmt: skip
def test_each_shape_alone_renders(client, game, body):
    make_entry(game=game, language="pl", title="Jedna", kind=SECTION, order=7, body=body)
    assert get_built(client, "/pl/games/gra/print/rules.pdf").status_code == 200


# -- nothing from the request


def test_read_online_is_the_site_and_the_booklets_path(game):
    reader, pages = pdf_text(rules_pdf(game, online_path="/pl/games/gra/print/rules/?source=3"))
    assert f"{SITE}/pl/games/gra/print/rules/?source=3" in pages[0]
    assert f"{SITE}/pl/games/gra/print/rules/?source=3" in links(reader)[0]


def test_the_request_s_query_string_is_not_in_the_pdf(client, game):
    source = Source.objects.get(title="Instrukcja")
    plain = get_built(client, f"/pl/games/gra/print/rules.pdf?source={source.pk}")
    junk = get_built(client, f"/pl/games/gra/print/rules.pdf?source={source.pk}&utm_source=evil&content=pl&x=%3Cb%3E")
    junk_bytes = content_of(junk)
    assert junk_bytes == content_of(plain)
    first_page = pdf_text(junk_bytes)[1][0]
    assert f"http://testserver/pl/games/gra/print/rules/?source={source.pk}" in first_page
    assert "evil" not in first_page and "utm" not in first_page
