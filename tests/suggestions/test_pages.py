"""The players' pages (rules.pages.suggestions): the form, the preview, sending, the
status page, withdrawing, and what is never cached."""

import re
from http import HTTPStatus

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from rules.content.querysets import Status
from rules.moderation import suggestions
from rules.moderation.models import COMMENT_MAX_LENGTH, PROPOSAL_MAX_LENGTH, Suggestion
from tests.factories import make_entry, make_erratum, make_game, make_question
from tests.module_world import fixtures

from .sending import hidden_value, later, opened, send

pytestmark = pytest.mark.django_db

BODY = "Turn the card sideways. It is exausted."
FIXED = "Turn the card sideways. It is exhausted."


def build_entry():
    game = make_game(slug="blue-moon", name="Blue Moon", localized_names={"de": "Blauer Mond"})
    return make_entry(game=game, title="Exhaust", slug="exhaust", body=BODY)


# Written once for the module's tests that read it (tests.module_world).
_entry_of_the_module, entry = fixtures(build_entry, "entry")


def suggest_url(entry, language="en") -> str:
    return f"/{language}/games/{entry.game.slug}/rules/{entry.slug}/suggest/"


def form_data(**overrides) -> dict:
    data = {
        "kind": "typo",
        "comment": "A typo in the second sentence.",
        "proposal": FIXED,
        "email": "",
        "website": "",
        "action": "send",
    }
    data.update(overrides)
    return data


def post(client, url: str, *, address: str | None = None, after: float = 10, **overrides):
    """The form at ``url`` opened, filled for ``after`` seconds and sent (``form_data``)."""
    return send(client, url, address=address, after=after, **form_data(**overrides))


def status_path(response) -> str:
    assert response.status_code == HTTPStatus.FOUND, response.content.decode()[:2000]
    match = re.fullmatch(r"/(en|de|pl|nl)/suggestions/([\w-]{43})/", response["Location"])
    assert match, response["Location"]
    return response["Location"]


def never_cached(response) -> None:
    cache_control = response["Cache-Control"]
    assert "private" in cache_control and "no-store" in cache_control
    assert "public" not in cache_control and "s-maxage" not in cache_control
    assert response["X-Robots-Tag"] == "noindex"


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_form_page(client, entry, language):
    page = client.get(suggest_url(entry, language))
    assert page.status_code == HTTPStatus.OK
    html = page.content.decode()
    title = {
        "en": "Report a problem or suggest a correction",
        "de": "Melde ein Problem oder schlage eine Korrektur vor",
    }
    assert title[language] in html
    assert f">\n{BODY}</textarea>" in html  # the proposal prefilled with the current text
    assert 'name="csrfmiddlewaretoken"' in html and "csrftoken" in page.cookies
    assert '<meta name="robots" content="noindex">' in html
    for value in ("typo", "wrong_rule", "translation", "cross_reference", "other"):
        assert f'value="{value}"' in html
    assert 'aria-hidden="true"' in html and "Leave this field empty" in html or language != "en"
    never_cached(page)
    # Asked again with the cookie: still never a public, cacheable copy.
    again = client.get(suggest_url(entry, language))
    never_cached(again)
    assert "csrfmiddlewaretoken" in again.content.decode()


def test_no_reader_gets_another_readers_form(entry):
    """Each reader's form carries their own CSRF token: nothing served it from a cache."""
    tokens = set()
    for _ in range(3):
        html = Client().get(suggest_url(entry)).content.decode()
        tokens.add(re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1])
    assert len(tokens) == 3


def test_every_entry_page_links_to_its_form(client, entry):
    html = client.get(entry.get_absolute_url()).content.decode()
    assert f'href="{suggest_url(entry)}"' in html
    assert "Report a problem or suggest a correction" in html


def test_errata_and_faq_answers_link_to_theirs(client, entry):
    erratum = make_erratum(game=entry.game, title="Draw fix", slug="draw-fix", corrected_text="Draw to cards.")
    question = make_question(game=entry.game, question="May I?", slug="may-i", answer="Yes, allways.")
    errata = client.get("/en/games/blue-moon/errata/").content.decode()
    assert 'href="/en/games/blue-moon/errata/draw-fix/suggest/"' in errata
    faq = client.get("/en/games/blue-moon/faq/").content.decode()
    assert 'href="/en/games/blue-moon/faq/may-i/suggest/"' in faq
    for path, text, item in (
        ("/en/games/blue-moon/errata/draw-fix/suggest/", "Draw to cards.", erratum),
        ("/en/games/blue-moon/faq/may-i/suggest/", "Yes, allways.", question),
    ):
        page = client.get(path)
        assert page.status_code == HTTPStatus.OK and f">\n{text}</textarea>" in page.content.decode()
        location = status_path(post(client, path, proposal=text.replace("to", "two").replace("ll", "l")))
        suggestion = Suggestion.objects.get(token=location.split("/")[-2])
        assert suggestion.target_id == item.pk and suggestion.target_type == suggestions.target_type_of(item)


def test_preview_shows_the_word_diff_and_stores_nothing(client, entry):
    page = post(client, suggest_url(entry), action="preview")
    assert page.status_code == HTTPStatus.OK
    html = page.content.decode()
    assert "<del>exausted.</del><ins>exhausted.</ins>" in html
    assert f">\n{FIXED}</textarea>" in html  # the form again, with what was typed
    assert not Suggestion.objects.exists()
    never_cached(page)


def test_send_stores_one_and_redirects_to_the_status_page(client, entry, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client, suggest_url(entry), email="player@example.org")
    location = status_path(response)
    suggestion = Suggestion.objects.get()
    assert location == f"/en/suggestions/{suggestion.token}/"
    assert (suggestion.proposal, suggestion.seen_text, suggestion.email) == (FIXED, BODY, "player@example.org")
    assert suggestion.address_hash == suggestions.address_hash("127.0.0.1")
    assert len(mail.outbox) == 1 and f"http://testserver{location}" in mail.outbox[0].body

    page = client.get(location)
    assert page.status_code == HTTPStatus.OK
    html = page.content.decode()
    assert "Open" in html and "Withdraw this suggestion" in html
    assert "<del>exausted.</del><ins>exhausted.</ins>" in html
    assert "player@example.org" not in html  # never shown, even here
    never_cached(page)
    assert page["Referrer-Policy"] == "same-origin"


def test_the_same_proposal_twice_is_one_suggestion(client, entry):
    first = status_path(post(client, suggest_url(entry)))
    second = status_path(post(client, suggest_url(entry)))
    assert first == second
    assert Suggestion.objects.count() == 1


def test_the_proposal_is_made_against_the_text_the_form_showed(client, entry):
    """A moderator's edit between opening the form and sending: the suggestion is
    recorded against the text the player saw, so it is stale, never a blind overwrite."""
    seen_version = suggestions.text_at(entry, None)[1]
    entry.body = BODY + " A moderator's new sentence."
    entry.save()
    status_path(post(client, suggest_url(entry), seen_version=seen_version))
    suggestion = Suggestion.objects.get()
    assert suggestion.seen_text == BODY and suggestion.seen_version == seen_version
    assert suggestions.stale(suggestion)


def test_withdraw(client, entry):
    location = status_path(post(client, suggest_url(entry)))
    response = client.post(location, {"action": "withdraw"})
    assert response.status_code == HTTPStatus.FOUND and response["Location"] == location
    assert Suggestion.objects.get().status == Suggestion.Status.WITHDRAWN
    html = client.get(location).content.decode()
    assert "You withdrew this suggestion." in html and "Withdraw this suggestion" not in html
    assert client.post(location, {"action": "withdraw"}).status_code == HTTPStatus.FOUND  # twice: no error


def test_an_unknown_token_is_404(client):
    assert client.get("/en/suggestions/" + "x" * 43 + "/").status_code == HTTPStatus.NOT_FOUND


def test_honeypot_filled_stores_nothing(client, entry):
    response = post(client, suggest_url(entry), website="https://spam.example")
    assert response.status_code == HTTPStatus.BAD_REQUEST
    assert "Your suggestion could not be sent." in response.content.decode()
    assert not Suggestion.objects.exists()


def test_too_fast_is_a_form_error(client, entry):
    shown = opened(client, suggest_url(entry))
    response = client.post(suggest_url(entry), form_data(**shown))  # at once
    assert response.status_code == HTTPStatus.OK
    assert "That was very quick." in response.content.decode()
    assert not Suggestion.objects.exists()


@pytest.mark.parametrize("started", ["", "1700000000", "forged:stamp"])
def test_a_missing_or_forged_start_is_a_form_error(client, entry, started):
    response = post(client, suggest_url(entry), started=started)
    assert response.status_code == HTTPStatus.OK and "errorlist" in response.content.decode()
    assert not Suggestion.objects.exists()


def test_an_old_form_asks_to_be_sent_again_with_a_new_start(client, entry):
    response = post(client, suggest_url(entry), after=2 * 24 * 3600)
    html = response.content.decode()
    assert "This form was open for too long." in html
    assert FIXED in html  # the text is kept
    assert not Suggestion.objects.exists()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("comment", "x" * (COMMENT_MAX_LENGTH + 1), "This is too long: use at most 4000 characters"),
        ("proposal", "y" * (PROPOSAL_MAX_LENGTH + 1), "This is too long: use at most 50000 characters"),
        ("email", "a" * 250 + "@example.org", "This is too long: use at most 254 characters"),
        ("email", "not an address", "Enter a valid email address."),
        ("comment", "", "Tell the moderators what is wrong."),
        ("comment", "a NUL \x00 byte", "Null characters are not allowed."),
        ("kind", "nonsense", "Select a valid choice."),
        ("kind", "", "Choose what kind of problem it is."),
        ("seen_version", "abc", "Enter a whole number."),
    ],
)
def test_oversized_and_malformed_input_is_a_form_error(client, entry, field, value, message):
    response = post(client, suggest_url(entry), **{field: value})
    assert response.status_code == HTTPStatus.OK
    assert message in response.content.decode()
    assert not Suggestion.objects.exists()


def test_csrf_is_required(entry):
    csrf_client = Client(enforce_csrf_checks=True)
    assert csrf_client.post(suggest_url(entry), form_data()).status_code == HTTPStatus.FORBIDDEN
    assert not Suggestion.objects.exists()
    suggestion = suggestions.submit(entry, kind="typo", comment="Typo.", proposal=FIXED)
    response = csrf_client.post(suggestion.get_absolute_url(), {"action": "withdraw"})
    assert response.status_code == HTTPStatus.FORBIDDEN
    assert Suggestion.objects.get().is_open
    # With the token the form gave, it goes through.
    page = csrf_client.get(suggest_url(entry))
    html = page.content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)[1]
    shown = {"started": hidden_value(html, "started"), "seen_version": hidden_value(html, "seen_version")}
    with later():
        response = csrf_client.post(
            suggest_url(entry), form_data(**shown, csrfmiddlewaretoken=token, proposal="Other.")
        )
    status_path(response)


@pytest.mark.parametrize("status", [Status.DRAFT, Status.REVIEW, Status.ARCHIVED])
def test_only_published_items_can_be_targeted(client, entry, status):
    hidden = make_entry(game=entry.game, title="Secret", slug="secret", status=status)
    erratum = make_erratum(game=entry.game, slug="hidden-fix", status=status)
    question = make_question(game=entry.game, slug="hidden-q", status=status)
    for path in (
        suggest_url(hidden),
        "/en/games/blue-moon/errata/hidden-fix/suggest/",
        "/en/games/blue-moon/faq/hidden-q/suggest/",
    ):
        assert client.get(path).status_code == HTTPStatus.NOT_FOUND, path
        assert client.post(path, form_data()).status_code == HTTPStatus.NOT_FOUND, path
    assert "Secret" not in client.get(suggest_url(entry)).content.decode()
    assert not Suggestion.objects.exists()
    assert erratum.pk and question.pk


def test_an_entry_in_a_language_the_ui_does_not_show(client, entry):
    french = make_entry(game=entry.game, language="fr", title="Épuiser", slug="epuiser", body="Tournez la carte.")
    html = client.get(french.canonical_url()).content.decode()
    assert 'href="/en/games/blue-moon/rules/epuiser/suggest/?content=fr"' in html
    page = client.get("/en/games/blue-moon/rules/epuiser/suggest/?content=fr")
    assert ">\nTournez la carte.</textarea>" in page.content.decode()


def test_a_blocked_address_is_refused_politely(client, entry):
    moderator = User.objects.create_user("mod", "mod@example.org", "a-long-password", is_staff=True)
    suggestions.block(suggestions.address_hash("127.0.0.1"), moderator)
    for response in (client.get(suggest_url(entry)), client.post(suggest_url(entry), form_data())):
        assert response.status_code == HTTPStatus.FORBIDDEN
        html = response.content.decode()
        assert "Suggestions cannot be sent from your connection at the moment." in html
        assert "block" not in html.lower()
    assert not Suggestion.objects.exists()
    # others are not affected
    other = post(client, suggest_url(entry), address="198.51.100.4")
    status_path(other)


def test_the_status_page_after_each_decision(client, entry):
    moderator = User.objects.create_user("mod", "mod@example.org", "a-long-password", is_staff=True)
    accepted = suggestions.submit(entry, kind="typo", comment="Typo.", proposal=FIXED)
    suggestions.accept(accepted, moderator)
    html = client.get(accepted.get_absolute_url()).content.decode()
    assert "A moderator accepted your suggestion." in html
    assert f'<a href="{entry.canonical_url()}" lang="en">See the changed text</a>' in html
    assert FIXED in client.get(entry.get_absolute_url()).content.decode()  # the entry shows it

    rejected = suggestions.submit(entry, kind="other", comment="Make it longer.", address="198.51.100.1")
    suggestions.reject(rejected, moderator, "The card says <b>so</b>.\nSee page 3.")
    html = client.get(rejected.get_absolute_url()).content.decode()
    assert "for this reason:" in html and "The card says &lt;b&gt;so&lt;/b&gt;.<br>See page 3." in html

    original = suggestions.submit(entry, kind="wrong_rule", comment="Wrong.", address="198.51.100.2")
    twin = suggestions.submit(entry, kind="wrong_rule", comment="Wrong.", address="198.51.100.3")
    suggestions.mark_duplicate(twin, moderator, original)
    assert "Someone suggested the same before you" in client.get(twin.get_absolute_url()).content.decode()


def test_the_status_page_speaks_the_players_language(client, entry):
    response = post(client, suggest_url(entry, "de"))
    location = status_path(response)
    assert location.startswith("/de/suggestions/")
    assert Suggestion.objects.get().ui_language == "de"
    assert "Dein Vorschlag" in client.get(location).content.decode()


def test_without_a_mail_server_the_form_asks_for_no_address(client, entry, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"
    html = client.get(suggest_url(entry)).content.decode()
    assert 'name="email"' not in html
    status_path(post(client, suggest_url(entry), email="player@example.org"))
    assert Suggestion.objects.get().email == ""
