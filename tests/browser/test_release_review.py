"""A moderator brings a new version in, in a real browser: upload it with its version
(held for review, the default), read what changes (renumbered rules old → new, word
diffs) before importing, import, review the release while nothing on the site has
changed, publish it at once; players then see it."""

import re

import pytest
from playwright.sync_api import expect

from rules.content.models import Entry
from rules.content.querysets import Status
from rules.content.releases import Release
from rules.moderation.permissions import MODERATORS_GROUP
from tests.admin.conftest import make_staff
from tests.browser.test_entry_pickers import no_axe_violations_in
from tests.browser.test_moderator import log_in
from tests.builds import run_background_tasks
from tests.importing.test_releases import DOCUMENTS, SETS, document_texts, import_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

NAME = SETS[0]


def test_upload_a_version_as_draft_review_it_and_publish_the_release(live_server, page, save_screenshot):
    import json

    expected = json.loads((DOCUMENTS / NAME / "expected.json").read_text(encoding="utf-8"))
    import_version(NAME, "v1")  # the version on the site, published
    make_staff("maria", MODERATORS_GROUP)
    log_in(page, live_server.url, "maria")

    page.goto(f"{live_server.url}/admin/rules/entry/import/")
    page.locator("#id_file").set_input_files(str(DOCUMENTS / NAME / "v2.txt"))
    page.locator("#id_game").select_option(label=NAME.title())
    page.locator("#id_language").select_option("en")
    page.locator("#id_kind").select_option("rulebook")
    page.locator("#id_source_title").fill("Comprehensive Rules")
    page.locator("#id_source_version").fill("v2")
    expect(page.locator("#id_status")).to_have_value(Status.DRAFT)  # the default
    page.locator("#id_prune").check()
    page.locator("form [type=submit]").last.click()

    # The preview: the decision at the top, then what this version changes.
    version = page.locator("#import-version")
    expect(version).to_contain_text("What changes in version v2")
    renumbered = next(line for line in expected["v2"] if line["change"] == "renumbered")
    expect(version).to_contain_text(f"{renumbered['previous_number']} → {renumbered['number']}")
    expect(version.locator("del").first).to_be_visible()  # a word diff
    no_axe_violations_in(page, "#content-main")
    top = page.locator("#import-decision-top")
    assert top.bounding_box()["y"] < version.bounding_box()["y"]
    save_screenshot(page, "release-upload-preview")
    top.locator("[name=confirm]").click()
    # The import's own page, before the worker runs and it is loaded again (reloading
    # while the confirmation was still navigating aborted both).
    page.wait_for_url(re.compile(r"/admin/rules/entry/import/\d+/$"))

    run_background_tasks()
    page.reload()
    review = page.get_by_role("link", name="Review version v2 and publish it")
    expect(review).to_be_visible()
    before = {e.pk: (e.number, e.body) for e in Entry.objects.filter(game__slug=NAME)}
    release = Release.objects.get(source__game__slug=NAME, version="v2")
    assert release.held
    # Held for review: nothing on the site changed, and the release is not public yet.
    assert page.context.request.get(f"{live_server.url}{release.get_absolute_url()}").status == 404
    review.click()

    # The review page: the counts by kind, diffs first, each item's text, Publish at top and bottom.
    expect(page.locator("#release-counts")).to_contain_text("reworded: 3, re-titled: 0, renumbered: 8, added: 3")
    expect(page.locator("#release-reworded")).to_be_visible()
    assert page.locator("#release-reworded").bounding_box()["y"] < page.locator("#release-added").bounding_box()["y"]
    expect(page.locator(".breadcrumbs")).to_contain_text("Releases")
    added = [line for line in expected["v2"] if line["change"] == "added"]
    expect(page.locator("#release-added")).to_contain_text(added[0]["title"])
    # An added rule shows its text, though nothing is written yet (held).
    added_text = document_texts(NAME, "v2")[added[0]["number"]]
    expect(page.locator("#release-added")).to_contain_text(added_text[:40])
    expect(page.locator("#release-publish-top")).to_contain_text("Held for review: nothing on the site has changed yet")
    expect(page.locator("#release-publish-top")).to_contain_text(f"publishing applies {len(expected['v2'])} changes")
    expect(page.locator("#release-publish-bottom [type=submit]")).to_be_enabled()
    no_axe_violations_in(page, "#content-main")  # the rest is Django's admin chrome
    save_screenshot(page, "release-review")
    assert {e.pk: (e.number, e.body) for e in Entry.objects.filter(game__slug=NAME)} == before

    page.locator("#release-publish-top [type=submit]").click()
    counts = {kind: sum(1 for line in expected["v2"] if line["change"] == kind) for kind in ("reworded", "renumbered")}
    expect(page.locator(".messagelist")).to_contain_text(
        f"Version v2 is published: reworded: {counts['reworded']}, re-titled: 0, renumbered: {counts['renumbered']}, "
        f"added: {len(added)}, removed: {len(expected['v2']) - len(added) - sum(counts.values())}."
    )
    new_entry = Entry.objects.published().get(game__slug=NAME, number=added[0]["number"])
    assert new_entry.status == Status.PUBLISHED
    public = page.context.request.get(f"{live_server.url}{new_entry.get_absolute_url()}", max_redirects=0)
    assert public.status == 200
    release.refresh_from_db()
    assert not release.pending and not release.held
    text = page.context.request.get(f"{live_server.url}{release.get_absolute_url()}").text()
    assert re.search(rf"Rules added\s*<span class=\"count\">\({len(added)}\)</span>", text)
