"""Releases in Chromium: the "what changed" page, the as-of banner and an old number's
notice read as a player sees them, with no axe-core violation (light and dark, desktop
and phone)."""

import re

import pytest
from playwright.sync_api import expect

from rules.content.models import Entry
from rules.content.releases import Release
from tests.browser.test_accessibility import VIEWPORTS, axe_in_each_scheme, with_axe
from tests.importing.test_releases import SETS, document_texts, import_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

NAME = SETS[0]


def release_pages() -> dict[str, str]:
    for version in ("v1", "v2", "v3"):
        import_version(NAME, version)
    latest = Release.objects.get(source__game__slug=NAME, version="v3")
    renumbered = Entry.objects.get(pk=latest.changes.filter(change="renumbered").first().item_id)
    holder = next(e for e in Entry.objects.published().filter(game__slug=NAME) if e.relations.get("number_before"))
    # A rule no release after v1 touched: as of v1 it reads its current text.
    listed = set(latest.changes.values_list("item_id", flat=True)) | set(
        Release.objects.get(source__game__slug=NAME, version="v2").changes.values_list("item_id", flat=True)
    )
    untouched = Entry.objects.published().filter(game__slug=NAME).exclude(body="").exclude(pk__in=listed).first()
    return {
        "release": latest.get_absolute_url(),
        "as-of": renumbered.get_absolute_url() + "?as_of=v1",
        "as-of-unchanged": untouched.get_absolute_url() + "?as_of=v1",
        "renumbered": renumbered.get_absolute_url(),
        "number-taken": holder.get_absolute_url(),
    }


def test_release_pages_read_well_and_have_no_axe_violation(live_server, browser, save_screenshot):
    pages = release_pages()
    v1_texts = list(document_texts(NAME, "v1").values())
    found = {}
    for viewport, size in {**VIEWPORTS, "phone-390": {"width": 390, "height": 844}}.items():
        context = with_axe(browser.new_context(viewport=size))
        page = context.new_page()
        try:
            for name, path in pages.items():
                response = page.goto(live_server.url + path)
                assert response.status == 200, path
                if name.startswith("as-of"):
                    banner = page.get_by_role("note").first
                    assert "as it was in Comprehensive Rules v1" in banner.inner_text()
                    assert banner.get_by_role("link", name="Read the current text").is_visible()
                    # The text itself, as v1 printed it: words, not tags.
                    body = page.locator("article .body").inner_text()
                    assert "<p>" not in body and "</" not in body, body[:80]
                    assert any(rule in " ".join(body.split()) for rule in v1_texts), body[:80]
                if name == "release":
                    assert page.locator("h2", has_text="Rules renumbered").is_visible()
                for scheme, violations in axe_in_each_scheme(page):  # light and dark
                    if violations:
                        found[f"{name} {scheme} {viewport}"] = violations
                    save_screenshot(page, f"release-{name}-{scheme}-{viewport}")
        finally:
            context.close()
    assert found == {}


def test_an_old_deep_link_to_a_renumbered_rule_finds_it(live_server, browser):
    import json

    from tests.importing.test_releases import DOCUMENTS

    release_pages()
    expected = json.loads((DOCUMENTS / NAME / "expected.json").read_text(encoding="utf-8"))
    # A number no rule has now: the rule that had it was renumbered (its siblings shifted).
    gone = next(
        line for v in ("v2", "v3") for line in expected[v]
        if line.get("previous_number")
        and not Entry.objects.published().filter(game__slug=NAME, number=line["previous_number"]).exists()
    )  # fmt: skip
    went = Entry.objects.get(pk=Entry.objects.published().filter(game__slug=NAME).exclude(number="").first().pk)
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}{went.get_absolute_url()}#{gone['previous_number']}")
        page.wait_for_url(lambda url: "#" not in url)
        target = Entry.objects.published().get(game__slug=NAME, slug=page.url.rstrip("/").rsplit("/", 1)[1])
        assert gone["previous_number"] in [former["number"] for former in target.relations["previous_numbers"]]
        assert f"Was {gone['previous_number']} until" in page.locator("main").inner_text()
        # A fragment that is no rule number, or one the page has, stays where it is.
        page.goto(f"{live_server.url}{went.get_absolute_url()}#releases-heading")
        page.wait_for_timeout(300)
        assert page.url.endswith("#releases-heading")
    finally:
        context.close()


def open_the_compare_view(page) -> None:
    """Follow the entry's link to the compare view, and wait until that page has loaded:
    checks run right after a click would otherwise see the page being left, or none
    (axe once found no main landmark and no heading: the next page was not there yet)."""
    page.get_by_role("link", name="compare with the version before").last.click()
    expect(page.locator("h1")).to_have_text(re.compile("Across releases$"))
    expect(page.locator(".parallel-column")).to_have_count(2)
    page.wait_for_load_state("load")


def test_the_release_picker_the_compare_view_and_a_removed_rule_s_page_read_well(live_server, browser, tmp_path,
                                                                                 save_screenshot):
    from tests.pages.test_releases import merge_rule_11_into_10

    pages = release_pages()
    merge_rule_11_into_10(tmp_path)
    entry = Entry.objects.published().get(pk=Release.objects.get(source__game__slug=NAME, version="v3").changes.filter(
        change="renumbered").first().item_id)  # fmt: skip
    found = {}
    for viewport, size in {"desktop": VIEWPORTS["desktop"], "phone-390": {"width": 390, "height": 844}}.items():
        context = with_axe(browser.new_context(viewport=size))
        page = context.new_page()
        try:
            # The picker: choose a release, press Read (an ordinary form: no script needed).
            page.goto(live_server.url + pages["renumbered"])
            page.get_by_label("Read this rule as of").select_option("v1")
            page.get_by_role("button", name="Read").click()
            page.wait_for_url(lambda url: "as_of=v1" in url)
            assert "as it was in Comprehensive Rules v1" in page.get_by_role("note").first.inner_text()
            assert page.get_by_label("Read this rule as of").input_value() == "v1"
            # The compare view, reached from the history across releases.
            page.goto(live_server.url + entry.get_absolute_url())
            open_the_compare_view(page)
            # A removed rule's old address: 410, in the reader's language, with its last text.
            response = page.goto(live_server.url + "/nl/games/blue-moon/rules/regel-11/")
            assert response.status == 410
            assert "Deze regel is verwijderd in" in page.get_by_role("note").first.inner_text()
            assert page.locator("article .body").inner_text().strip()
            for name in ("compare", "removed"):
                if name == "compare":
                    page.goto(live_server.url + entry.get_absolute_url())
                    open_the_compare_view(page)
                else:
                    page.goto(live_server.url + "/nl/games/blue-moon/rules/regel-11/")
                for scheme, violations in axe_in_each_scheme(page):  # light and dark
                    if violations:
                        found[f"{name} {scheme} {viewport}"] = violations
                    save_screenshot(page, f"release-{name}-{scheme}-{viewport}")
        finally:
            context.close()
    assert found == {}
