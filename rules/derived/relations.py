"""What an entry shows of other items, computed when anything is written.

An entry's page and its JSON show its see-also targets and ``[[links]]``, the published
entries linking to it, the errata and FAQ rulings about it, its parent, its sub-sections
and its translations. Loading those per request took six queries, and compiling them
most of the time of an entry page. Instead every entry stores them, ready to show
(``Entry.relations``, JSON), and a page or an API list reads the entry row alone.

Decisions:

- **Computed per game, after every write that can change them.** ``refresh(game_id)``
  computes the relations of every entry of a game (all languages: translations cross
  them) in six queries and writes only the entries whose relations changed (a hash of
  the JSON, ``Entry.relations_fingerprint``). It is a step of the derived-data
  pipeline (``rules.derived.pipeline``), run once per game a unit of work wrote to, in the same
  transaction as the write: the content version that makes cached responses invalid
  (``rules.content.version``) changes with it.
- **Only what is public.** Every related item is published (a draft never shows
  through another entry's page); the entry's own status does not matter, so the
  moderators' preview of a draft shows what readers will get once it is published.
- **Addresses at read time.** Entries are stored by slug, not URL: the URL depends on
  the reader's UI language, and one ``reverse()`` per page builds them all
  (``entry_url_template``). A game's new slug therefore needs no refresh.
- **Derived data, no history.** Written with plain ``UPDATE`` statements
  (``rules.shared.bulk.update_rows``: no history version, no ``updated_at`` change, no
  signals), like the stored HTML (``rules.derived.rendering``).
- ``manage.py render_html`` computes everything again; so does every ``migrate`` that
  ran migrations.
"""

import hashlib
import json
from collections import defaultdict
from operator import itemgetter

from ..content.prepared import prepared_rows
from ..content.querysets import Status
from ..content.rulebook import navigation as rulebook_navigation
from ..shared.bulk import store_fingerprinted
from ..shared.collation import sort_by_title

# --- computing and storing ----------------------------------------------------------------


def _linked(pk, title, slug, number="") -> dict:
    return {"id": pk, "title": title, "slug": slug, "number": number}


# The reads, each the same SQL for every game (rules.content.prepared: compiled once).


@prepared_rows(int)
def _entries(game_id: int):
    from ..content.models import Entry

    return (
        Entry.objects.filter(game_id=game_id)
        .order_by("order", "pk")
        .values_list("pk", "language", "translation_key", "parent_id", "title", "slug", "number", "status", "source_id")
    )


@prepared_rows(int)
def _cross_references(game_id: int):
    from ..content.models import CrossReference

    return (
        CrossReference.objects.filter(entry__game_id=game_id)
        .order_by("entry_id", "in_body", "order", "pk")
        .values_list("entry_id", "label", "in_body", "target_id")
    )


@prepared_rows(int)
def _errata(game_id: int):
    """From the game's errata (an erratum is about entries of its own game): the index on
    the errata's game, where filtering by the entries' game scanned every entry per
    erratum on SQLite."""
    from ..content.models import Erratum

    affects = Erratum.affects.through.objects.filter(
        erratum__game_id=game_id, entry__game_id=game_id, erratum__status=Status.PUBLISHED
    )
    return affects.order_by(
        "erratum__language", "erratum__order", "erratum__title", "erratum_id"
    ).values_list(
        "entry_id", "erratum_id", "erratum__title", "erratum__slug", "erratum__kind", "erratum__language",
        "erratum__game__slug", "erratum__original_text", "erratum__corrected_html", "erratum__diff_html",
    )  # fmt: skip


@prepared_rows(int)
def _questions(game_id: int):
    """faq builds on rules, never the reverse: its questions are reached through the
    reverse relation's table, by name."""
    from ..content.models import Entry

    related = Entry._meta.get_field("faq_questions").through.objects
    return (
        related.filter(question__game_id=game_id, entry__game_id=game_id, question__status=Status.PUBLISHED)
        .order_by("question__language", "question__order", "question__question", "question_id")
        .values_list(
            "entry_id",
            "question_id",
            "question__question",
            "question__slug",
            "question__language",
            "question__game__slug",
            "question__answer_html",
        )
    )


@prepared_rows(int)
def _readable_releases(game_id: int):
    from ..content.releases import Release

    return (
        Release.objects.filter(source__game_id=game_id, pending=False, held=False)
        .order_by("source_id", "sequence")
        .values_list("source_id", "pk", "version", "effective_on", "initial")
    )


@prepared_rows(int)
def _release_changes(game_id: int):
    from ..content.releases import ReleaseChange

    return (
        ReleaseChange.objects.filter(release__source__game_id=game_id, item_type="entry", release__pending=False)
        .order_by("release__source_id", "release__sequence", "pk")
        .values_list(
            "item_id",
            "change",
            "number",
            "previous_number",
            "release_id",
            "release__version",
            "release__effective_on",
            "release__source__language",
            "release__initial",
        )
    )


@prepared_rows(int)
def _stored_readable(game_id: int):
    from ..content.models import Source

    return Source.objects.filter(game_id=game_id).values_list("pk", "readable_releases")


@prepared_rows(int)
def _stored_fingerprints(game_id: int):
    from ..content.models import Entry

    return Entry.objects.filter(game_id=game_id).values_list("pk", "relations_fingerprint")


def compute(game_id: int) -> dict[int, dict]:
    """Entry id → its relations, for every entry of one game, in six queries."""
    rows = _entries(game_id)
    entries = {row[0]: row for row in rows}
    published = {row[0] for row in rows if row[7] == Status.PUBLISHED}
    found = {
        pk: {
            "parent": None,
            "references": [],
            "referenced_by": [],
            "errata": [],
            "questions": [],
            "children": [],
            "translations": [],
        }
        for pk in entries
    }

    def linked(pk: int) -> dict:
        _pk, _language, _key, _parent, title, slug, number, _status, _source = entries[pk]
        return _linked(pk, title, slug, number)

    versions = defaultdict(list)
    for pk, language, key, parent_id, *_rest in rows:  # in document order
        if parent_id in published:
            found[pk]["parent"] = linked(parent_id)
        if parent_id in found and pk in published:
            found[parent_id]["children"].append(linked(pk))
        if pk in published:
            versions[key].append((language, pk))
    for pk, _language, key, *_rest in rows:
        found[pk]["translations"] = [
            {**linked(other), "language": language} for language, other in sorted(versions[key]) if other != pk
        ]

    referrers = defaultdict(dict)
    for entry_id, label, in_body, target_id in _cross_references(game_id):
        target = linked(target_id) if target_id in published else None
        found[entry_id]["references"].append({"label": label, "in_body": in_body, "target": target})
        if target is not None and entry_id in published and entry_id != target_id:
            referrers[target_id].setdefault(entry_id, linked(entry_id))  # linked twice: listed once
    for target_id, items in referrers.items():
        language = entries[target_id][1]  # references stay within a language
        found[target_id]["referenced_by"] = sort_by_title(items.values(), language, title=itemgetter("title"))

    for entry_id, *erratum in _errata(game_id):
        pk, title, slug, kind, language, game, original, corrected_html, diff_html = erratum
        found[entry_id]["errata"].append(
            {
                "id": pk,
                "title": title,
                "slug": slug,
                "kind": kind,
                "language": language,
                "game": game,
                "has_original": bool(original),
                "corrected_html": corrected_html,
                "diff_html": diff_html,
            }  # fmt: skip
        )

    for entry_id, pk, question, slug, language, game, answer_html in _questions(game_id):
        found[entry_id]["questions"].append(
            {
                "id": pk,
                "question": question,
                "slug": slug,
                "language": language,
                "game": game,
                "answer_html": answer_html,
            }
        )

    # Previous, next and ancestors in reading order (rules.content.rulebook): a sixth query.
    places = rulebook_navigation(game_id)
    for pk, relations in found.items():
        relations["navigation"] = places.get(pk)
    _releases(game_id, found, entries, published)
    return found


def _releases(game_id: int, found: dict, entries: dict, published: set) -> None:
    """From the releases of the game's sources (``rules.content.releases``), a seventh and
    an eighth query:

    - (stored with each source, not each entry: ``Source.readable_releases``) the releases
      of the source a reader can read its entries as of (applied and public), oldest
      first: the release picker on an entry's page;
    - ``releases``: what each release did to the entry, oldest first (its history across
      releases);
    - ``previous_numbers``: the numbers it had before, each with the release that ended
      it (an old citation "see 7.3a" finds it);
    - ``number_before``: the rule that had the entry's number until a release took it
      away, where another rule has that number now ("7.3a is now a new rule; the rule
      that was 7.3a until 1.1 is 7.4a").
    """
    readable = defaultdict(list)
    for source_id, pk, version, effective_on, initial in _readable_releases(game_id):
        readable[source_id].append(
            {"id": pk, "version": version, "effective_on": effective_on.isoformat() if effective_on else None}
            | ({"initial": True} if initial else {})
        )
    _store_readable(game_id, readable)

    changes = _release_changes(game_id)
    # (language, number) → the published entry that has it now (a removed rule keeps its number)
    numbers = {(row[1], row[6]): pk for pk, row in entries.items() if row[6] and pk in published}
    for relations in found.values():
        relations["releases"], relations["previous_numbers"], relations["number_before"] = [], [], None
    for item_id, change, number, previous, release_id, version, effective_on, language, initial in changes:
        release = {
            "id": release_id,
            "version": version,
            "effective_on": effective_on.isoformat() if effective_on else None,
        }
        if initial:  # "as first imported" (rules.content.releases.Release.label)
            release["initial"] = True
        if item_id in found:
            found[item_id]["releases"].append(
                {**release, "change": change, "number": number, "previous_number": previous}
            )
        if change == "removed" or not previous or previous == number:
            continue
        if item_id in found:
            found[item_id]["previous_numbers"].append({"number": previous, "until": release})
        holder = numbers.get((language, previous))
        if holder is not None and holder != item_id and item_id in published:
            found[holder]["number_before"] = {
                **_linked(item_id, entries[item_id][4], entries[item_id][5], entries[item_id][6]),
                "number_then": previous,
                "until": release,
            }


def _store_readable(game_id: int, readable: dict[int, list]) -> None:
    """Each source of the game keeps the releases its entries can be read as of (one
    read, and a write only of the sources whose list changed)."""
    from ..content.models import Source

    changed = [(pk, readable.get(pk, [])) for pk, stored in _stored_readable(game_id) if stored != readable.get(pk, [])]
    for pk, releases in changed:
        Source.objects.filter(pk=pk).update(readable_releases=releases)


def fingerprint(relations: dict) -> str:
    encoded = json.dumps(relations, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    return hashlib.blake2b(encoded, digest_size=16).hexdigest()


def refresh(game_id: int) -> int:
    """Store the relations of every entry of one game that changed; return how many."""
    from ..content.models import Entry

    computed = compute(game_id)
    stored = dict(_stored_fingerprints(game_id))
    changed = {}
    for pk, relations in computed.items():
        digest = fingerprint(relations)
        if stored.get(pk) != digest:
            changed[pk] = (relations, digest)
    return store_fingerprinted(Entry, "relations", changed)
