"""Releases as players and API clients meet them: a release's "what changed" page, an
entry's old numbers and history, ``?as_of=`` on the page and the API, old numbers.

Built on the three versions of a numbered document under tests/importing/documents/
releases (written apart from the code, with their expected change lists)."""

import json
import re

import pytest

from rules.content.models import Entry
from rules.content.releases import Release
from tests.importing.test_releases import DOCUMENTS, SETS, import_version
from tests.module_world import fixtures

NAME = SETS[0]
EXPECTED = json.loads((DOCUMENTS / NAME / "expected.json").read_text(encoding="utf-8"))


def build_released():
    for version in ("v1", "v2", "v3"):
        import_version(NAME, version)
    return {release.version: release for release in Release.objects.filter(source__game__slug=NAME)}


# Written once for the module's tests that read it (tests.module_world).
_released_of_the_module, released = fixtures(build_released, "released")


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def moved_in(version: str) -> dict:
    """A rule the version renumbered (same text, new number), from the expected list."""
    return next(line for line in EXPECTED[version] if line["change"] == "renumbered")


def test_the_release_page_lists_what_changed(client, released):
    response = client.get(released["v3"].get_absolute_url())
    assert response.status_code == 200
    page = text(response)
    for heading, change in (
        ("Rules added", "added"),
        ("Rules reworded", "reworded"),
        ("Rules renumbered", "renumbered"),
        ("Rules removed", "removed"),
    ):
        count = sum(1 for line in EXPECTED["v3"] if line["change"] == change)
        assert f"{heading} ({count})" in page
    renumbered = moved_in("v3")
    assert f"{renumbered['previous_number']} → {renumbered['number']}" in page
    html = response.content.decode()
    assert "<del>" in html and "<ins>" in html  # the word diffs of the changed rules


def test_a_release_adding_many_rules_lists_them_and_shows_a_few_s_texts(client, released, monkeypatch):
    """A first release lists every rule of its source as added: past ADDED_TEXTS_SHOWN
    the page links each by title instead of rendering every text for every reader."""
    from django.core.cache import caches

    from rules.pages import releases as release_pages

    added = [line for line in EXPECTED["v3"] if line["change"] == "added"]
    page = client.get(released["v3"].get_absolute_url()).content.decode()
    assert page.count('class="added prose"') == len(added)
    monkeypatch.setattr(release_pages, "ADDED_TEXTS_SHOWN", len(added) - 1)
    for cache in caches.all():
        cache.clear()  # the page again, not as cached
    page = client.get(released["v3"].get_absolute_url()).content.decode()
    assert 'class="added prose"' not in page
    assert all(line["title"] in page for line in added)  # still listed, each by its title


def test_the_game_page_links_each_release(client, released):
    html = client.get(f"/en/games/{NAME}/").content.decode()
    for release in released.values():
        assert release.get_absolute_url() in html
    # Newest first, under their source.
    newest_first = sorted(released.values(), key=lambda release: release.sequence, reverse=True)
    places = [html.index(release.get_absolute_url()) for release in newest_first]
    assert places == sorted(places)


def test_a_renumbered_rule_says_what_it_was_and_reads_as_it_was(client, released):
    line = moved_in("v3")
    entry = Entry.objects.published().get(game__slug=NAME, number=line["number"])
    page = text(client.get(entry.get_absolute_url()))
    assert f"Was {line['previous_number']} until v3." in page
    assert "History across releases" in page

    then = client.get(entry.get_absolute_url(), {"as_of": "v2"})
    assert then.status_code == 200
    shown = text(then)
    assert "as it was in Comprehensive Rules v2" in shown
    assert f"{line['previous_number']}" in shown.split("as it was in")[1]  # its number then


def test_as_of_a_release_before_the_rule_existed_says_so(client, released):
    added = next(line for line in EXPECTED["v3"] if line["change"] == "added")
    entry = Entry.objects.published().get(game__slug=NAME, number=added["number"])
    page = text(client.get(entry.get_absolute_url(), {"as_of": "v1"}))
    assert "was not yet in Comprehensive Rules v1" in page


def test_as_of_an_unknown_release_is_a_real_404_page(client, released):
    entry = Entry.objects.published().filter(game__slug=NAME).exclude(body="").first()
    response = client.get(entry.get_absolute_url(), {"as_of": "v9"})
    assert response.status_code == 404
    assert "<html" in response.content.decode()


def test_a_number_given_to_a_new_rule_points_to_where_the_old_rule_went(client, released):
    # v2 removed a rule and renumbered the next one into its number (expected list).
    taken = next(
        line for line in EXPECTED["v2"]
        if line["change"] == "renumbered"
        and any(o["change"] == "renumbered" and o["number"] == line["previous_number"] for o in EXPECTED["v2"])
    )  # fmt: skip
    holder = Entry.objects.published().get(game__slug=NAME, number=taken["previous_number"])
    moved = holder.relations["number_before"]
    page = text(client.get(holder.get_absolute_url()))
    assert f"{taken['previous_number']} was another rule. It is now" in page
    assert moved["title"] in page


def test_the_api_lists_releases_and_their_exact_changes(client, released):
    source = released["v2"].source
    data = client.get(f"/api/v1/sources/{source.pk}/").json()
    assert [r["version"] for r in data["releases"]] == ["v3", "v2", "v1"]
    detail = client.get(data["releases"][1]["url"]).json()
    got = sorted((c["change"], c["number"], c["previous_number"] or "") for c in detail["changes"])
    want = sorted((c["change"], c["number"], c.get("previous_number", "")) for c in EXPECTED["v2"])
    assert got == want
    # The source's own item lists each release with its changes; a list of sources not.
    assert data["releases"][1]["changes"] == detail["changes"]
    listed = client.get("/api/v1/sources/", {"game": NAME}).json()["results"][0]["releases"]
    assert [r["version"] for r in listed] == ["v3", "v2", "v1"] and "changes" not in listed[0]
    assert detail["html_url"].endswith(released["v2"].get_absolute_url())


def test_the_api_finds_an_old_number_and_reads_as_of(client, released):
    line = moved_in("v3")
    data = client.get("/api/v1/entries/", {"game": NAME, "number": line["previous_number"]}).json()
    renumbered = [e for e in data["results"] if e["number"] == line["number"]]
    assert len(renumbered) == 1
    entry = renumbered[0]
    assert {"number": line["previous_number"], "until": "v3"}.items() <= entry["previous_numbers"][-1].items()
    old = client.get(entry["url"], {"as_of": "v2"}).json()
    assert old["number"] == line["previous_number"] and old["as_of"] == "v2"
    assert old["body"] == entry["body"]  # renumbered: the same text
    missing = client.get(entry["url"], {"as_of": "nope"})
    assert missing.status_code == 404 and "detail" in missing.json()


def test_the_game_s_release_feed_has_an_atom_entry_per_release(client, released):
    response = client.get(f"/en/games/{NAME}/feeds/releases/")
    assert response.status_code == 200
    feed = response.content.decode()
    assert feed.count("<entry") == 3
    for release in released.values():
        assert release.get_absolute_url() in feed
    assert f"/en/games/{NAME}/feeds/releases/" in client.get(f"/en/games/{NAME}/").content.decode()


@pytest.mark.django_db
def test_an_upcoming_release_is_shown_as_upcoming_with_its_planned_changes(client):
    from datetime import timedelta

    from django.utils import timezone

    import_version(NAME, "v1")
    day = timezone.localdate() + timedelta(days=10)
    import_version(NAME, "v2", "--effective-date", day.isoformat())
    release = Release.objects.get(source__game__slug=NAME, version="v2")
    page = text(client.get(release.get_absolute_url()))
    assert "upcoming" in page and "Takes effect on" in page
    count = sum(1 for line in EXPECTED["v2"] if line["change"] == "renumbered")
    assert f"Rules renumbered ({count})" in page
    assert "upcoming" in text(client.get(f"/en/games/{NAME}/"))
    line = moved_in("v2")
    entry = Entry.objects.published().get(game__slug=NAME, number=line["previous_number"])  # not renumbered yet
    shown = text(client.get(entry.get_absolute_url(), {"as_of": "v2"}))
    assert "takes effect on" in shown and "until then this is the current text" in shown
    api = client.get(f"/api/v1/sources/{release.source_id}/").json()
    assert api["releases"][0]["version"] == "v2" and api["releases"][0]["upcoming"] is True


def test_rule_equals_an_old_number_goes_to_where_the_rule_went(client, released):
    line = moved_in("v3")
    contents = f"/en/games/{NAME}/rules/"
    moved = client.get(contents, {"rule": line["previous_number"]})
    entry = Entry.objects.published().get(game__slug=NAME, number=line["number"])
    # The old number now belongs to another rule (siblings shifted): that rule is shown.
    holder = Entry.objects.published().filter(game__slug=NAME, number=line["previous_number"]).first()
    assert moved.status_code == 302
    assert moved["Location"] == (holder or entry).get_absolute_url()
    # A number no rule has any more leads to the rule that had it.
    gone = next(
        old for v in ("v2", "v3") for old in {c.get("previous_number") for c in EXPECTED[v]} - {None}
        if not Entry.objects.published().filter(game__slug=NAME, number=old).exists()
    )  # fmt: skip
    went = client.get(contents, {"rule": gone})
    assert went.status_code == 302
    slug = went["Location"].rstrip("/").rsplit("/", 1)[1]
    assert Entry.objects.published().get(game__slug=NAME, slug=slug).relations["previous_numbers"]
    unknown = client.get(contents, {"rule": "999.9z"})
    assert unknown.status_code == 200 and "No rule is numbered 999.9z" in text(unknown)


def all_numbers(version: str) -> set[str]:
    """Every number in a version's file: chapters, sections and rules."""
    numbers = set()
    for line in (DOCUMENTS / NAME / f"{version}.txt").read_text(encoding="utf-8").splitlines():
        first = line.split(" ", 1)[0]
        if first[:1].isdigit() and first.rstrip(".").replace(".", "").isalnum():
            numbers.add(first.rstrip("."))
    return numbers


@pytest.mark.parametrize("version", ["v1", "v2", "v3"])
def test_the_index_as_of_a_release_has_exactly_its_numbers(client, released, version):
    response = client.get(f"/en/games/{NAME}/releases/{released[version].pk}/rules/")
    assert response.status_code == 200
    shown = set(re.findall(r'<span class="number">([^<]+)</span>', response.content.decode()))
    assert shown == all_numbers(version)
    if version != "v3":
        assert "removed since" in text(response)
        assert f"?as_of={version}" in response.content.decode()


def test_odd_as_of_and_rule_values_are_clear_answers_not_errors(client, released):
    entry = Entry.objects.published().filter(game__slug=NAME).exclude(body="").first()
    for value in ("\x00", "v1\x00", "9" * 500, "2026-02-30", "<script>"):
        assert client.get(entry.get_absolute_url(), {"as_of": value}).status_code == 404
        api = client.get(f"/api/v1/entries/{entry.pk}/", {"as_of": value})
        assert api.status_code == 404 and "detail" in api.json()
        assert client.get(f"/en/games/{NAME}/rules/", {"rule": value}).status_code == 200
    assert client.get(entry.get_absolute_url(), {"as_of": "2000-01-01"}).status_code == 404  # before any release


def test_the_releases_api_counts_each_kind_in_the_list_and_the_item(client, released):
    listed = {item["version"]: item for item in client.get("/api/v1/releases/", {"game": NAME}).json()["results"]}
    for version in ("v2", "v3"):
        want = {kind: sum(1 for line in EXPECTED[version] if line["change"] == kind)
                for kind in ("reworded", "retitled", "renumbered", "added", "removed")}  # fmt: skip
        assert listed[version]["counts"] == want
        assert client.get(listed[version]["url"]).json()["counts"] == want


def test_the_releases_api_answers_odd_parameters_with_json_not_errors(client, released):
    ok = client.get("/api/v1/releases/", {"ordering": "updated_at", "cursor": "", "page_size": 1, "language": "en"})
    assert ok.status_code == 200 and ok.json()["count"] == 3 and len(ok.json()["results"]) == 1
    for value in ("0", "-1", "1e999", "1.5", "x", "9" * 30):
        bad = client.get("/api/v1/releases/", {"source": value})
        assert bad.status_code == 400 and "source" in bad.json()["errors"]
    assert client.get("/api/v1/releases/", {"game": NAME}).json()["count"] == 3


@pytest.mark.django_db
def test_a_release_written_alone_shows_at_once_on_cached_pages(client):
    # The same version again with corrected notes writes the release alone (no entry,
    # no source): the cached release page and API item must not go on showing the old.
    import_version(NAME, "v1", "--release-notes", "First printing.")
    release = Release.objects.get(source__game__slug=NAME, version="v1")
    api = f"/api/v1/releases/{release.pk}/"
    assert "First printing." in client.get(release.get_absolute_url()).content.decode()
    assert client.get(api).json()["notes"] == "First printing."
    import_version(NAME, "v1", "--release-notes", "Second printing, same rules.")
    assert "Second printing, same rules." in client.get(release.get_absolute_url()).content.decode()
    assert client.get(api).json()["notes"] == "Second printing, same rules."


def test_the_release_page_links_each_listed_rule_at_its_current_address(client, released):
    # A rule renamed since keeps its link: the page reads the entry's slug now.
    line = moved_in("v2")
    change = released["v2"].changes.get(change="renumbered", number=line["number"])
    entry = Entry.objects.get(pk=change.item_id)
    entry.title, entry.slug = "A title given later", ""
    entry.save()
    page = client.get(released["v2"].get_absolute_url()).content.decode()
    assert entry.get_absolute_url() in page and f"/{change.slug}/" not in page


def article_text(response) -> str:
    """The words of the page's article as a reader sees them (tags gone, entities read)."""
    import html as html_module

    article = re.search(r"<article[^>]*>(.*?)</article>", response.content.decode(), re.S).group(1)
    return html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", article))).strip()


@pytest.mark.parametrize("version", ["v1", "v2", "v3"])
def test_every_rule_read_as_of_a_release_shows_that_release_s_text_not_its_html(client, released, version):
    from rules.content.releases import ReleaseChange
    from tests.importing.test_releases import document_texts

    wanted = document_texts(NAME, version)  # number → text, read from the version's file
    found = set()
    for entry in Entry.objects.published().filter(game__slug=NAME).exclude(body=""):
        response = client.get(entry.get_absolute_url(), {"as_of": version})
        assert response.status_code == 200
        if "was not yet in" in text(response):
            continue
        words = article_text(response)
        assert not re.search(r"</?(p|ul|ol|li|em|strong)>", words), (version, entry.number, words[:80])
        matches = [number for number, rule in wanted.items() if rule in words]
        assert matches, (version, entry.number, words[:80])
        found.update(matches)
    # Every rule of the version is read, but for those a later release removed (gone now).
    removed = set(
        ReleaseChange.objects.filter(release__sequence__gt=released[version].sequence, change="removed").values_list(
            "previous_text", flat=True
        )
    )
    assert {number for number in wanted if wanted[number] not in removed} <= found


def test_every_rule_of_a_versioned_source_has_a_release_picker_that_works_without_script(client, released):
    entry = Entry.objects.published().filter(game__slug=NAME).exclude(body="").first()
    page = client.get(entry.get_absolute_url()).content.decode()
    form = re.search(r'<form class="release-picker" method="get" action="([^"]+)">(.*?)</form>', page, re.S)
    assert form and form.group(1) == entry.get_absolute_url()
    options = re.findall(r'<option value="([^"]*)"', form.group(2))
    assert options == ["", "v3", "v2", "v1"]  # the current text, then the newest first
    # Submitting it is an ordinary GET: the rule as v1 had it, v1 chosen in the picker.
    then = client.get(form.group(1), {"as_of": "v1"})
    assert "as it was in Comprehensive Rules v1" in text(then)
    assert '<option value="v1" selected>' in then.content.decode()


def test_history_across_releases_links_to_the_rule_as_it_was_and_compares_two_releases(client, released):
    from tests.importing.test_releases import document_texts

    line = next(line for line in EXPECTED["v3"] if line["change"] == "reworded" and line.get("previous_number"))
    entry = Entry.objects.published().get(game__slug=NAME, number=line["number"])
    page = client.get(entry.get_absolute_url()).content.decode()
    history = re.search(r'<section class="entry-releases".*?</section>', page, re.S).group(0)
    steps = re.findall(r'href="\?as_of=(v\d)"', history)
    assert steps[-1] == "v3" and len(steps) >= 2  # each release that touched it, the rule as it had it
    compare = re.search(r'href="([^"]+/releases/\?from=[^"]+)"', history).group(1).replace("&amp;", "&")
    response = client.get(compare)
    assert response.status_code == 200
    shown = text(response)
    old, new = document_texts(NAME, "v2")[line["previous_number"]], document_texts(NAME, "v3")[line["number"]]
    assert old in shown and new in shown  # each text as its release had it
    assert "<ins>" in response.content.decode() and "<del>" in response.content.decode()
    # Any two releases, either way round; an unknown one is a real 404 page.
    assert client.get(compare.split("?")[0], {"from": "v3", "to": "v1"}).status_code == 200
    missing = client.get(compare.split("?")[0], {"from": "v9", "to": "v1"})
    assert missing.status_code == 404 and "<html" in missing.content.decode()


@pytest.fixture
def rule_11_merged_into_10(db, tmp_path):
    return merge_rule_11_into_10(tmp_path)


def merge_rule_11_into_10(tmp_path) -> dict:
    """Blue Moon's rules as the demo has them, then a version whose rule 10 took in the
    text of rule 11, which is gone."""
    from tests.importing.test_releases import BLUE_MOON, import_blue_moon

    import_blue_moon("1", "--numbered-title", "Regel {number}")
    lines = BLUE_MOON.read_text(encoding="utf-8").splitlines()
    eleven = next(line for line in lines if line.startswith("11. "))
    merged = [line for line in lines if line is not eleven]
    ten = next(i for i, line in enumerate(merged) if line.startswith("speelbord. Kaarten uit"))
    merged[ten] += " " + eleven.removeprefix("11. ")
    path = tmp_path / "speciale-regels-2.txt"
    path.write_text("\n".join(merged) + "\n", encoding="utf-8")
    report = import_blue_moon("2", "--prune", path=path)
    return {"report": report, "eleven": eleven.removeprefix("11. ")}


def test_a_removed_rule_s_address_is_gone_says_when_and_where_its_text_went(client, rule_11_merged_into_10):
    assert rule_11_merged_into_10["report"]["change_counts"]["removed"] == 1
    removed = next(line for line in rule_11_merged_into_10["report"]["changes"] if line["change"] == "removed")
    assert removed["successor"] == {"number": "10", "title": "Regel 10"}
    release = Release.objects.get(source__game__slug="blue-moon", version="2")
    for language, said in (("nl", "Deze regel is verwijderd in"), ("en", "This rule was removed in"),
                           ("de", "Diese Regel wurde in"), ("pl", "Ta zasada została usunięta w")):  # fmt: skip
        response = client.get(f"/{language}/games/blue-moon/rules/regel-11/")
        assert response.status_code == 410, language
        page = text(response)
        assert said in page, language
        assert "Blue Moon: spelregels 2" in page
        assert " ".join(rule_11_merged_into_10["eleven"].split()[:12]) in page  # its last text
        html = response.content.decode()
        assert release.get_absolute_url().split("/", 2)[2] in html  # the release's page
        ten = Entry.objects.get(game__slug="blue-moon", number="10")
        assert f'/{language}/games/blue-moon/rules/{ten.slug}/' in html  # where its text went
    # The rule is archived, not deleted: its history stays.
    gone = Entry.objects.get(game__slug="blue-moon", slug="regel-11")
    assert gone.status == "archived" and gone.history.count() == 2
    assert client.get("/nl/games/blue-moon/rules/regel-99/").status_code == 404


def test_the_api_finds_a_removed_rule_by_its_number_and_slug_with_the_release_that_removed_it(
    client, rule_11_merged_into_10
):
    release = Release.objects.get(source__game__slug="blue-moon", version="2")
    for query in ({"number": "11"}, {"slug": "regel-11"}):
        data = client.get("/api/v1/entries/", {"game": "blue-moon", "language": "nl", **query}).json()
        assert [item["title"] for item in data["results"]] == ["Regel 11"], query
        removed_in = data["results"][0]["removed_in"]
        assert removed_in["version"] == "2" and removed_in["url"].endswith(f"/api/v1/releases/{release.pk}/")
        assert data["results"][0]["body"].startswith(rule_11_merged_into_10["eleven"][:30])
    # Lists and searches without them show only what is published.
    listed = client.get("/api/v1/entries/", {"game": "blue-moon", "language": "nl"}).json()["results"]
    assert "Regel 11" not in [item["title"] for item in listed]
    assert all(item["removed_in"] is None for item in listed)


def test_the_change_feed_says_removed_with_the_release(client, rule_11_merged_into_10):
    release = Release.objects.get(source__game__slug="blue-moon", version="2")
    gone = Entry.objects.get(game__slug="blue-moon", slug="regel-11")
    changes = client.get("/api/v1/changes/", {"limit": 1000}).json()["results"]
    mine = [change for change in changes if change["kind"] == "entry" and change["id"] == gone.pk]
    assert mine[-1]["action"] == "removed"
    assert mine[-1]["removed_in"]["version"] == "2"
    assert mine[-1]["removed_in"]["url"].endswith(f"/api/v1/releases/{release.pk}/")
