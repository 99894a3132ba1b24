"""The admin's live Markdown preview and the moderators' view of pages that are not public.

The preview is posted exactly as the change form's script posts it: every value of the
change form as the admin renders it, with the Markdown field changed.
"""

import json
import re

import pytest
from django.contrib.contenttypes.models import ContentType

from rules.admin.preview import MAX_PREVIEW_CHARS, OBJECT_ID_FIELD
from rules.content.models import Entry
from rules.content.querysets import Status
from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.admin.forms import form_pairs
from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.module_world import fixtures

pytestmark = pytest.mark.django_db


def change_form_values(client, url: str, form_id: str, **changes) -> dict:
    page = client.get(url)
    assert page.status_code == 200
    values: dict = {}
    for name, value in form_pairs(page, form_id):
        values.setdefault(name, []).append(value)
    values.update({name: [value] for name, value in changes.items()})
    return values


def preview(client, model: str, obj=None, **changes):
    """POST the change form of ``obj`` (or the add form) with ``changes`` to the preview."""
    app = "faq" if model == "question" else "rules"
    form_url = f"/admin/{app}/{model}/{obj.pk}/change/" if obj else f"/admin/{app}/{model}/add/"
    data = change_form_values(client, form_url, f"{model}_form", **changes)
    data[OBJECT_ID_FIELD] = [str(obj.pk) if obj else ""]
    return client.post(f"/admin/{app}/{model}/preview/", data)


def fragment(html: str, start: str, end: str) -> str:
    """From the first ``start`` to the first ``end`` after it, inclusive."""
    begin = html.index(start)
    return html[begin : html.index(end, begin) + len(end)]


def without_suggest_link(page: str) -> str:
    """A public page without its items' "Report a problem or suggest a correction"
    links: an item being previewed has no public page to suggest on yet."""
    return re.sub(r'<p class="suggest-link".*?</p>', "", page, flags=re.DOTALL)


@written_together
def build_game():
    game = make_game(slug="reaction-game", name="Reaction Game")
    make_entry(game=game, title="Exhaust", body="Turn the card sideways.")
    make_entry(game=game, title="Secret Rule", body="Not yet.", status=Status.DRAFT)
    make_entry(game=game, language="de", title="Bereit", body="Aufrecht.")
    return game


# Written once for the module's tests that read it (tests.module_world).
_game_of_the_module, game = fixtures(build_game, "game")


# --- the preview renders what the public page renders ----------------------------------


def test_preview_of_an_entry_is_the_public_pages_article(moderator_client, game):
    body = "A **ready** card can [[Exhaust|exhaust]].\n\n- one\n- two\n\nSee [[Missing Term]]."
    entry = make_entry(
        game=game, title="Ready", number="4", aliases=["Readied"], body=body, see_also=["Exhaust", "Nowhere"]
    )
    public = moderator_client.get("/en/games/reaction-game/rules/ready/").content.decode()

    response = preview(moderator_client, "entry", entry)

    assert response.status_code == 200
    html = response.json()["html"]
    article = fragment(html, '<article class="entry"', "</article>")
    assert article in public
    see_also = fragment(html, '<section aria-labelledby="see-also-heading">', "</section>")
    assert see_also in public
    assert "<strong>ready</strong>" in article
    assert '<a class="xref" href="/en/games/reaction-game/rules/exhaust/">exhaust</a>' in article


def test_preview_shows_the_typed_text_not_the_saved_one(moderator_client, game):
    entry = make_entry(game=game, title="Ready", body="Old text.", status=Status.DRAFT)

    html = preview(moderator_client, "entry", entry, body="New **bold** text.", title="Readied").json()["html"]

    assert "<strong>bold</strong>" in html
    assert "Old text" not in html
    assert "<h1>Readied</h1>" in html
    entry.refresh_from_db()
    assert (entry.title, entry.body) == ("Ready", "Old text.")  # a preview saves nothing


def test_links_resolve_only_to_published_entries_of_the_same_game_and_language(moderator_client, game):
    other_game = make_game(slug="other-game")
    make_entry(game=other_game, title="Elsewhere")
    entry = make_entry(game=game, title="Ready", status=Status.DRAFT)

    html = preview(
        moderator_client, "entry", entry, body="[[Exhaust]], [[Secret Rule]], [[Bereit]] and [[Elsewhere]]."
    ).json()["html"]

    assert '<a class="xref" href="/en/games/reaction-game/rules/exhaust/">Exhaust</a>' in html
    for unlinked in ("Secret Rule", "Bereit", "Elsewhere"):
        assert f'<span class="xref xref-wanted">{unlinked}</span>' in html
    assert "secret-rule" not in html and "other-game" not in html


def test_a_new_entry_is_previewed_from_the_add_form(moderator_client, game):
    html = preview(
        moderator_client, "entry", None, game=str(game.pk), language="en", title="Brand New", body="See [[exhaust]]."
    ).json()["html"]

    assert "<h1>Brand New</h1>" in html
    assert 'href="/en/games/reaction-game/rules/exhaust/"' in html


def test_preview_is_in_the_entrys_language(moderator_client, game):
    make_entry(game=game, language="de", title="Erschöpfen", body="Quer drehen.")
    entry = make_entry(game=game, language="de", title="Karte", aliases=["Karten"], status=Status.DRAFT)

    html = preview(moderator_client, "entry", entry, body="Siehe [[Erschöpfen]].").json()["html"]

    assert 'href="/de/games/reaction-game/rules/erschopfen/"' in html
    # The UI words follow the page's language, whatever the moderator's admin language.
    assert '<span lang="de">Auch bekannt als:</span> Karten' in html


def test_script_and_javascript_links_never_come_back(moderator_client, game):
    entry = make_entry(game=game, title="Ready", status=Status.DRAFT)

    html = preview(
        moderator_client,
        "entry",
        entry,
        body='Hi <script>alert("x")</script> [click](javascript:alert(1)) <img src=x onerror=alert(1)>',
        title="<b onmouseover=alert(1)>Ready</b>",
    ).json()["html"]

    assert "<script" not in html
    assert "javascript:" not in html
    assert "<img" not in html  # shown as text (rules.shared.markdown), so no element has the handler
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<b onmouseover" not in html and "&lt;b onmouseover=alert(1)&gt;" in html


def test_preview_of_an_erratum_is_the_errata_pages_article(moderator_client, game):
    erratum = make_erratum(
        game=game,
        title="Exhaust timing",
        original_text="Exhaust after attacking.",
        corrected_text="Exhaust before attacking.",
        affects=list(Entry.objects.filter(title="Exhaust")),
    )
    public = without_suggest_link(moderator_client.get("/en/games/reaction-game/errata/").content.decode())

    html = preview(moderator_client, "erratum", erratum).json()["html"]

    article = fragment(html, '<article class="erratum"', "</article>")
    assert article in public
    assert "<del>after</del>" in article and "<ins>before</ins>" in article

    edited = preview(moderator_client, "erratum", erratum, original_text="", corrected_text="Now **never**.").json()
    assert "<strong>never</strong>" in edited["html"]


def test_preview_of_a_question_is_the_faq_pages_article(moderator_client, game):
    question = make_question(game=game, question="Can I react twice?", answer="**No.** Once per window.")
    public = without_suggest_link(moderator_client.get("/en/games/reaction-game/faq/").content.decode())

    html = preview(moderator_client, "question", question).json()["html"]

    assert fragment(html, '<article class="question"', "</article>") in public
    assert "<strong>No.</strong>" in html


# --- refusals ------------------------------------------------------------------------


def test_huge_text_is_refused_with_a_message(moderator_client, game):
    entry = make_entry(game=game, title="Ready", status=Status.DRAFT)

    response = preview(moderator_client, "entry", entry, body="x" * (MAX_PREVIEW_CHARS + 1))

    assert response.status_code == 400
    assert "too long" in response.json()["error"]


def test_bad_values_answer_400_with_a_message(moderator_client, game):
    entry = make_entry(game=game, title="Ready", status=Status.DRAFT)

    response = preview(moderator_client, "entry", entry, game="999999")

    assert response.status_code == 400
    assert response.json()["error"].startswith("Game:")


def test_an_unknown_item_answers_404_and_get_405(moderator_client, game):
    response = moderator_client.post("/admin/rules/entry/preview/", {OBJECT_ID_FIELD: "999999", "body": "x"})
    assert response.status_code == 404
    assert "error" in response.json()
    assert moderator_client.get("/admin/rules/entry/preview/").status_code == 405


def test_preview_needs_a_staff_login_and_csrf(client, game):
    response = client.post("/admin/rules/entry/preview/", {"body": "x"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]

    moderator = make_staff("csrf-mod", MODERATORS_GROUP)
    csrf_client = type(client)(enforce_csrf_checks=True)
    csrf_client.force_login(moderator)
    assert csrf_client.post("/admin/rules/entry/preview/", {"body": "x"}).status_code == 403


def test_staff_without_permission_cannot_preview(client, game):
    entry = make_entry(game=game, title="Ready", status=Status.DRAFT)
    client.force_login(make_staff("no-role"))

    response = client.post("/admin/rules/entry/preview/", {OBJECT_ID_FIELD: str(entry.pk), "body": "x"})

    assert response.status_code in (403, 404)
    assert "html" not in response.json()


def test_a_game_moderator_previews_only_their_games(client, game, game_moderator_for):
    mine = make_game(slug="my-game")
    theirs = make_entry(game=game, title="Ready", status=Status.DRAFT)
    client.force_login(game_moderator_for(mine))

    response = client.post("/admin/rules/entry/preview/", {OBJECT_ID_FIELD: str(theirs.pk), "body": "x"})
    assert response.status_code == 403
    assert "html" not in response.json()

    own = make_entry(game=mine, title="Mine", status=Status.DRAFT)
    assert preview(client, "entry", own, body="**mine**").json()["html"].count("<strong>mine</strong>") == 1
    moved = preview(client, "entry", own, game=str(game.pk), body="x")
    assert moved.status_code in (400, 403)
    assert "html" not in moved.json()


# --- the change form -----------------------------------------------------------------


def test_markdown_models_load_the_preview_and_others_do_not(moderator_client, game):
    entry = make_entry(game=game, title="Ready", status=Status.DRAFT)
    page = moderator_client.get(f"/admin/rules/entry/{entry.pk}/change/").content.decode()
    config_script = re.search(r'<script id="markdown-preview-config" type="application/json">(.*?)</script>', page)
    config = json.loads(config_script.group(1))
    assert config["url"] == "/admin/rules/entry/preview/"
    assert config["anchor"] == "body" and config["objectId"] == str(entry.pk)
    assert "js/admin-preview.js" in page and "css/admin-preview.css" in page
    assert "css/site.css" in config["stylesheet"]

    source_page = moderator_client.get(f"/admin/rules/game/{game.pk}/change/").content.decode()
    assert "markdown-preview-config" not in source_page and "admin-preview.js" not in source_page


# --- "view on site" and the staff view of a page -------------------------------------


def test_a_draft_links_to_the_staff_view_which_shows_it_with_a_banner(moderator_client, game):
    entry = make_entry(game=game, title="Ready", body="A **ready** card. See [[Exhaust]].", status=Status.DRAFT)
    change_page = moderator_client.get(f"/admin/rules/entry/{entry.pk}/change/").content.decode()
    assert f'href="/admin/rules/entry/{entry.pk}/view/"' in change_page

    assert moderator_client.get("/en/games/reaction-game/rules/ready/").status_code == 404
    response = moderator_client.get(f"/admin/rules/entry/{entry.pk}/view/")

    assert response.status_code == 200
    page = response.content.decode()
    assert '<meta name="robots" content="noindex">' in page
    assert response["X-Robots-Tag"] == "noindex"
    assert "Not public: this is a draft." in page
    assert "<strong>ready</strong>" in page
    assert 'href="/en/games/reaction-game/rules/exhaust/"' in page
    assert 'hreflang="de"' not in page.split("</head>")[0]  # no alternates: the page is not public


@pytest.mark.parametrize(("status", "words"), [(Status.REVIEW, "in review"), (Status.ARCHIVED, "archived")])
def test_the_banner_names_the_status(moderator_client, game, status, words):
    entry = make_entry(game=game, title="Ready", status=status)
    page = moderator_client.get(f"/admin/rules/entry/{entry.pk}/view/").content.decode()
    assert f"Not public: this is {words}." in page


def test_a_published_item_links_to_its_public_page(moderator_client, game):
    entry = Entry.objects.get(title="Exhaust")
    content_type = ContentType.objects.get_for_model(Entry)
    change_page = moderator_client.get(f"/admin/rules/entry/{entry.pk}/change/").content.decode()

    assert f'href="/admin/r/{content_type.pk}/{entry.pk}/"' in change_page
    response = moderator_client.get(f"/admin/r/{content_type.pk}/{entry.pk}/")
    assert response.status_code == 302
    assert response["Location"].endswith("/games/reaction-game/rules/exhaust/")


def test_draft_erratum_and_question_have_a_staff_view(moderator_client, game):
    erratum = make_erratum(game=game, title="Hidden fix", corrected_text="Fixed **now**.", status=Status.DRAFT)
    question = make_question(game=game, question="Hidden question?", answer="Hidden *answer*.", status=Status.REVIEW)

    erratum_page = moderator_client.get(f"/admin/rules/erratum/{erratum.pk}/view/").content.decode()
    assert "Not public: this is a draft." in erratum_page and "<strong>now</strong>" in erratum_page
    assert "Hidden fix" not in moderator_client.get("/en/games/reaction-game/errata/").content.decode()

    question_page = moderator_client.get(f"/admin/faq/question/{question.pk}/view/").content.decode()
    assert "Not public: this is in review." in question_page and "<em>answer</em>" in question_page
    change_page = moderator_client.get(f"/admin/faq/question/{question.pk}/change/").content.decode()
    assert f'href="/admin/faq/question/{question.pk}/view/"' in change_page


def test_the_staff_view_is_for_staff_who_may_see_the_item(client, game, game_moderator_for):
    entry = make_entry(game=game, title="Ready", status=Status.DRAFT)
    url = f"/admin/rules/entry/{entry.pk}/view/"

    assert client.get(url).status_code == 302  # to the login page
    client.force_login(game_moderator_for(make_game(slug="my-game")))
    assert client.get(url).status_code == 403
    client.force_login(game_moderator_for(game))
    assert client.get(url).status_code == 200
    assert client.get("/admin/rules/entry/999999/view/").status_code == 404


def test_a_viewer_without_change_permission_sees_the_saved_text_previewed(client, game):
    from django.contrib.auth.models import Permission

    entry = make_entry(game=game, title="Ready", body="Saved **text**.", status=Status.DRAFT)
    viewer = make_staff("viewer", games=[game])
    viewer.user_permissions.add(Permission.objects.get(codename="view_entry"))
    client.force_login(viewer)

    # The change page is read-only: nothing to post but the item's id.
    response = client.post("/admin/rules/entry/preview/", {OBJECT_ID_FIELD: str(entry.pk), "body": "Typed."})

    assert response.status_code == 200
    assert "Saved <strong>text</strong>." in response.json()["html"]
