"""Errata applied to an entry's text (rules.derived.corrections): what is replaced, where, and
how it is marked; stored when written and shown on the entry page."""

import re
from datetime import date
from http import HTTPStatus

import pytest

from rules.content.models import Entry, Erratum
from rules.content.querysets import Status
from rules.derived import corrections
from rules.derived.corrections import ErratumText, apply_errata, correct
from rules.shared.markdown import render_markdown
from tests.factories import make_entry, make_erratum, make_game
from tests.module_world import fixtures
from tests.stored import assert_stored_as_computed


def erratum(pk: int, original: str, corrected: str, title: str = "", published_on: str | None = None) -> ErratumText:
    return ErratumText(pk, f"e{pk}", title or f"Erratum {pk}", published_on, original, corrected)


def corrected_text(body: str, *errata: ErratumText) -> str:
    applied = apply_errata(body, list(errata))
    return "".join(piece.text for piece in applied.pieces)


def render(text: str):
    return render_markdown(text, lambda label: f"/en/games/g/rules/{label.lower()}/")


def visible(html: str) -> str:
    """The text a reader sees (tags and the hidden names of the erratum links dropped)."""
    html = re.sub(r'<span class="visually-hidden">.*?</span>', "", html)
    html = re.sub(r"<sup>\d+</sup>", "", html)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()


# --- what is replaced -----------------------------------------------------------------------


def test_the_passage_is_replaced_where_it_occurs():
    body = "When attacking, deal 3 damage to the defender.\n\nThen discard."
    applied = apply_errata(body, [erratum(1, "deal 3 damage", "deal 2 damage")])
    assert applied.places == [1]
    assert "".join(p.text for p in applied.pieces) == "When attacking, deal 2 damage to the defender.\n\nThen discard."


def test_white_space_and_line_wraps_count_as_one_space_but_a_blank_line_only_as_itself():
    body = "Deal 3\n   damage to the\tdefender."
    assert corrected_text(body, erratum(1, "deal 3 damage to\nthe defender".replace("deal", "Deal"), "X.")) == "X.."
    two_paragraphs = "Deal 3 damage.\n\nThen discard."
    assert corrected_text(two_paragraphs, erratum(1, "damage. Then", "x")) == two_paragraphs
    joined = corrected_text(two_paragraphs, erratum(1, "damage.\n\nThen", "damage; then"))
    assert joined == "Deal 3 damage; then discard."


def test_a_passage_is_never_found_inside_a_word():
    body = "Deal 13 damage, or 3 damage."
    applied = apply_errata(body, [erratum(1, "3 damage", "2 damage")])
    assert applied.places == [1]
    assert "".join(p.text for p in applied.pieces) == "Deal 13 damage, or 2 damage."


def test_every_occurrence_is_replaced_and_counted():
    body = "- Exhaust a card to draw.\n- Later, exhaust a card to draw.\n- Exhaust a card to draw."
    applied = apply_errata(body, [erratum(1, "a card to draw", "a card to draw one card")])
    assert applied.places == [3]
    assert "".join(p.text for p in applied.pieces).count("draw one card") == 3


def test_a_passage_not_in_the_text_changes_nothing():
    body = "The **owner** of a card controls it."
    # The erratum quotes the printed words without the Markdown: not the same text.
    applied = apply_errata(body, [erratum(1, "The owner of a card", "The controller of a card")])
    assert applied.places == [0] and not applied.changed
    assert "".join(p.text for p in applied.pieces) == body


def test_markdown_and_links_inside_the_passage_are_part_of_it():
    body = "You may [[Exhaust]] the **hero** to gain 1 resource."
    applied = apply_errata(body, [erratum(1, "You may [[Exhaust]] the **hero**", "You must [[Exhaust]] the **hero**")])
    assert applied.places == [1]
    assert "".join(p.text for p in applied.pieces) == "You must [[Exhaust]] the **hero** to gain 1 resource."


def test_a_match_that_cuts_a_link_in_two_is_no_match():
    body = "Then [[Exhaust Step|exhaust]] all cards."
    assert apply_errata(body, [erratum(1, "Step|exhaust]] all", "x")]).places == [0]
    assert apply_errata(body, [erratum(1, "exhaust]] all cards", "x")]).places == [0]


def test_later_errata_correct_what_earlier_ones_wrote():
    body = "Each player draws 5 cards at the start of the game."
    first = erratum(1, "draws 5 cards", "draws 6 cards", published_on="2023-01-10")
    second = erratum(2, "6 cards at the start", "7 cards before the first round", published_on="2024-05-02")
    applied = apply_errata(body, [first, second])
    assert applied.places == [1, 1]
    assert "".join(p.text for p in applied.pieces) == "Each player draws 7 cards before the first round of the game."
    # The later erratum's passage took part of the earlier one's: each keeps its own words.
    marked = [(p.text, p.erratum) for p in applied.pieces if p.erratum is not None]
    assert marked == [("draws ", 0), ("7 cards before the first round", 1)]


def test_overlapping_errata_that_both_quote_the_printed_text():
    body = "Discard 2 cards, then draw 2 cards."
    first = erratum(1, "Discard 2 cards", "Discard 1 card")
    second = erratum(2, "2 cards, then draw", "2 cards; then draw")  # overlaps what the first replaced
    applied = apply_errata(body, [first, second])
    assert applied.places == [1, 0]  # its passage is no longer in the text: not applied, and said so


# --- how it is marked --------------------------------------------------------------------


def test_the_corrected_view_marks_each_change_and_links_its_erratum():
    body = "Setup:\n\n1. Shuffle the deck.\n2. Draw 5 cards.\n3. Take 2 resources."
    stored = correct(
        body,
        [erratum(7, "2. Draw 5 cards.", "2. Draw 6 cards.", title="Hand size", published_on="2024-03-12")],
        render,
    )
    html = stored["corrected_html"]
    # The list stays a list (the marker sits after "2."), the change is marked and dated.
    assert html.count("<li>") == 3
    assert '<li><ins class="erratum-change" cite="#erratum-7" datetime="2024-03-12">Draw 6 cards.</ins>' in html
    assert '<a class="erratum-ref" href="#erratum-7" title="Hand size"><sup>1</sup>' in html
    assert visible(html) == "Setup: Shuffle the deck. Draw 6 cards. Take 2 resources."
    printed = stored["printed_html"]
    assert '<del class="erratum-change" cite="#erratum-7" datetime="2024-03-12">Draw 5 cards.</del>' in printed
    assert visible(printed) == "Setup: Shuffle the deck. Draw 5 cards. Take 2 resources."
    assert stored["errata"] == [
        {"id": 7, "slug": "e7", "title": "Hand size", "published_on": "2024-03-12", "places": 1, "number": 1}
    ]


def test_a_change_across_paragraphs_emphasis_and_links_is_marked_piece_by_piece():
    body = "You may **exhaust** a [[Hero]].\n\nThen heal."
    stored = correct(body, [erratum(1, "a [[Hero]].\n\nThen heal.", "an [[Ally]].\n\nThen heal *once*.")], render)
    html = stored["corrected_html"]
    assert (
        '<a class="xref" href="/en/games/g/rules/ally/"><ins class="erratum-change" cite="#erratum-1">Ally</ins></a>'
        in html
    )
    assert '<em><ins class="erratum-change" cite="#erratum-1">once</ins></em>' in html
    assert '<p><ins class="erratum-change" cite="#erratum-1">Then heal </ins>' in html
    assert visible(html) == "You may exhaust an Ally. Then heal once."
    # Every tag is closed where it was opened: no <ins> spans a block.
    assert html.count("<ins") == html.count("</ins>")
    assert not re.search(r"<ins[^>]*>[^<]*<(p|li|ul|ol)\b", html)


def test_errata_are_numbered_in_the_order_they_apply_and_those_not_found_are_not():
    body = "Draw 2. Discard 1. Gain 3."
    stored = correct(
        body,
        [erratum(5, "Draw 2.", "Draw 3."), erratum(6, "not there", "x"), erratum(8, "Gain 3.", "Gain 4.")],
        render,
    )
    assert [(e["id"], e["places"], e["number"]) for e in stored["errata"]] == [(5, 1, 1), (6, 0, None), (8, 1, 2)]
    assert "<sup>1</sup>" in stored["corrected_html"] and "<sup>2</sup>" in stored["corrected_html"]
    assert "<sup>3</sup>" not in stored["corrected_html"]


def test_a_sentinel_outside_text_marks_nothing_and_says_so():
    # The passage ends inside a link's address: the change cannot be marked as text.
    body = "See [the sheet](https://example.org/faq) for more."
    stored = correct(
        body, [erratum(1, "the sheet](https://example.org/faq", "the sheet](https://example.org/faq2")], render
    )
    assert stored["failed"] is True
    assert stored["corrected_html"] == "" and stored["printed_html"] == ""


def test_markup_in_the_texts_is_still_sanitised_and_escaped():
    body = "Use <style> with care. Deal 3 damage."
    stored = correct(
        body, [erratum(1, "Deal 3 damage.", 'Deal <script>alert(1)</script> & <b onclick="x">2</b>.')], render
    )
    html = stored["corrected_html"]
    assert "<script" not in html and "onclick" not in html and "<style" not in html
    assert "&lt;style&gt;" in html


# --- stored when written, shown on the page -------------------------------------------------

db = pytest.mark.django_db


def assert_stored_equals_fresh() -> None:
    assert_stored_as_computed(corrections, "corrections")


def build_attack():
    game = make_game(slug="dice-war", name="Dice War")
    entry = make_entry(game=game, title="Attack", body="Roll 3 dice and deal 1 damage per hit.\n\nSee [[Defence]].")
    make_entry(game=game, title="Defence", body="Block.")
    return entry


# Written once for the module's tests that read it (tests.module_world).
_attack_of_the_module, attack = fixtures(build_attack, "attack")


def page(client, entry) -> str:
    response = client.get(entry.url_in("en"))
    assert response.status_code == HTTPStatus.OK
    return response.content.decode()


@db
def test_the_entry_page_reads_as_corrected_with_the_printed_text_one_click_away(client, attack):
    fix = make_erratum(
        game=attack.game, title="Fewer dice", original_text="Roll 3 dice", corrected_text="Roll **2** dice",
        published_on=date(2024, 3, 12), affects=[attack],
    )  # fmt: skip
    html = page(client, attack)
    assert '<div class="body prose body-corrected"><p><ins class="erratum-change"' in html
    assert f'href="#erratum-{fix.pk}"' in html and f'id="erratum-{fix.pk}"' in html  # the mark leads to its box
    assert "As corrected by the errata" in html and "Fewer dice" in html
    assert '<time datetime="2024-03-12">March 12, 2024</time>' in html
    assert 'id="as-printed-' in html and ">As printed</label>" in html
    assert "<del class=\"erratum-change\"" in html and "Roll 3 dice" in html  # the printed text, marked
    assert_stored_equals_fresh()


@db
def test_not_found_is_said_and_nothing_is_guessed(client, attack):
    make_erratum(
        game=attack.game, title="Ghost", original_text="Roll 4 dice", corrected_text="Roll 5 dice", affects=[attack]
    )
    html = page(client, attack)
    assert "body-corrected" not in html and "Roll 5 dice" not in html.split('class="errata-box"')[0]
    assert "was not found in this text" in html and ">Ghost</a>" in html


@db
def test_only_published_errata_of_the_entry_s_language_apply(client, attack):
    make_erratum(game=attack.game, title="Draft", original_text="Roll 3 dice", corrected_text="Roll 9 dice",
                 status=Status.DRAFT, affects=[attack])  # fmt: skip
    german = make_erratum(game=attack.game, language="de", title="Deutsch", original_text="Roll 3 dice",
                          corrected_text="Würfle 2")  # fmt: skip
    # A link across languages, as stored before the models refused them
    # (rules.content.entry_links); saving the erratum refreshes what its entries show.
    Erratum.affects.through.objects.create(erratum=german, entry=attack)
    german.save()
    attack.refresh_from_db()
    assert attack.corrections == {}
    assert "body-corrected" not in page(client, attack)


@db
def test_every_write_keeps_the_stored_text_current(client, attack):
    fix = make_erratum(game=attack.game, title="Fewer dice", original_text="Roll 3 dice", corrected_text="Roll 2 dice",
                       affects=[attack])  # fmt: skip
    assert "Roll 2 dice" in visible(Entry.objects.get(pk=attack.pk).corrected.corrected_html)

    fix.corrected_text = "Roll 1 die"  # the erratum edited
    fix.save()
    assert "Roll 1 die" in visible(Entry.objects.get(pk=attack.pk).corrected.corrected_html)
    assert_stored_equals_fresh()

    attack.body = "Roll 3 dice twice, then deal damage."  # the entry edited
    attack.save()
    assert visible(Entry.objects.get(pk=attack.pk).corrected.corrected_html) == "Roll 1 die twice, then deal damage."
    assert_stored_equals_fresh()

    fix.affects.remove(attack)  # no longer about it
    assert Entry.objects.get(pk=attack.pk).corrections == {}
    fix.affects.add(attack)
    fix.status = Status.ARCHIVED  # withdrawn
    fix.save()
    assert Entry.objects.get(pk=attack.pk).corrections == {}
    assert_stored_equals_fresh()

    fix.status = Status.PUBLISHED
    fix.save()
    fix.delete()
    assert Entry.objects.get(pk=attack.pk).corrections == {}
    assert_stored_equals_fresh()


@db
def test_a_link_in_the_corrected_text_follows_its_target_being_published(client, attack):
    make_erratum(game=attack.game, title="Link", original_text="deal 1 damage", corrected_text="deal 1 [[Wound]]",
                 affects=[attack])  # fmt: skip
    html = Entry.objects.get(pk=attack.pk).corrected.corrected_html
    assert 'class="xref xref-wanted"' in html
    wound = make_entry(game=attack.game, title="Wound", status=Status.DRAFT)
    wound.status = Status.PUBLISHED
    wound.save()
    html = Entry.objects.get(pk=attack.pk).corrected.corrected_html
    assert 'href="/en/games/dice-war/rules/wound/"' in html
    assert_stored_equals_fresh()


@db
def test_the_admin_preview_shows_the_text_being_edited(admin_client, attack):
    make_erratum(game=attack.game, title="Fewer dice", original_text="Roll 3 dice", corrected_text="Roll 2 dice",
                 affects=[attack])  # fmt: skip
    # The staff page of a draft reads as corrected too (what readers will get).
    Entry.objects.filter(pk=attack.pk).update(status=Status.DRAFT)
    response = admin_client.get(f"/admin/rules/entry/{attack.pk}/view/")
    assert response.status_code == HTTPStatus.OK
    assert "body-corrected" in response.content.decode()


@pytest.mark.django_db
def test_numbered_rules_keep_their_ids_when_read_as_corrected(client):
    game = make_game()
    entry = make_entry(game=game, title="Casting", body="601.2a Pay the cost.\n\n601.2b Resolve it.")
    make_erratum(game=game, original_text="Pay the cost.", corrected_text="Pay the full cost.", affects=[entry])
    html = client.get(entry.url_in("en")).content.decode()
    corrected = html[html.index("Pay the full cost.") - 400 : html.index("Pay the full cost.")]
    assert 'id="601.2a"' in corrected
    assert html.count('id="601.2b"') == 1  # the printed view, on the same page, has none
