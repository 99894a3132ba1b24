"""Releases in Chromium: the "what changed" page, the as-of banner and an old number's
notice read as a player sees them, with no axe-core violation (light and dark, desktop
and phone)."""

import pytest

from rules.content.models import Entry
from rules.content.releases import Release
from tests.browser.test_accessibility import AXE, SCHEMES, VIEWPORTS, describe
from tests.importing.test_releases import SETS, import_version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

NAME = SETS[0]


def release_pages() -> dict[str, str]:
    for version in ("v1", "v2", "v3"):
        import_version(NAME, version)
    latest = Release.objects.get(source__game__slug=NAME, version="v3")
    renumbered = Entry.objects.get(pk=latest.changes.filter(change="renumbered").first().item_id)
    holder = next(e for e in Entry.objects.filter(game__slug=NAME) if e.relations.get("number_before"))
    return {
        "release": latest.get_absolute_url(),
        "as-of": renumbered.get_absolute_url() + "?as_of=v1",
        "renumbered": renumbered.get_absolute_url(),
        "number-taken": holder.get_absolute_url(),
    }


def test_release_pages_read_well_and_have_no_axe_violation(live_server, browser, save_screenshot):
    pages = release_pages()
    found = {}
    for scheme in SCHEMES:
        for viewport, size in VIEWPORTS.items():
            context = browser.new_context(viewport=size, color_scheme=scheme)
            page = context.new_page()
            try:
                for name, path in pages.items():
                    response = page.goto(live_server.url + path)
                    assert response.status == 200, path
                    if name == "as-of":
                        banner = page.get_by_role("note").first
                        assert "as it was in Comprehensive Rules v1" in banner.inner_text()
                        assert banner.get_by_role("link", name="Read the current text").is_visible()
                    if name == "release":
                        assert page.locator("h2", has_text="Rules renumbered").is_visible()
                    violations = describe(AXE.run(page))
                    if violations:
                        found[f"{name} {scheme} {viewport}"] = violations
                    save_screenshot(page, f"release-{name}-{scheme}-{viewport}")
            finally:
                context.close()
    assert found == {}
