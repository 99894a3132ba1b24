"""Whether a translation is up to date with its original, and what changed there since.

Decisions:

- **The original is the version a translation was made from**, recorded on the
  translation (``Entry.translation_of``) with the history version of the original it
  matches (``Entry.translation_base``, a django-simple-history id). Both are set by the
  admin, never typed: starting a translation (made from the entry it starts from),
  linking an existing entry as a translation of this one (it is taken to match the text
  it is linked to), and marking a translation up to date (``rules.moderation.translations``), which
  moves the base to the original's newest version. Versions linked with no recorded
  original (imported side by side as editions of their own) are not translations of one
  another and show no status until a moderator marks one up to date with another.
  Chains are allowed: a Polish text may be translated from the German one.
- **Up to date** means the original's title and body are what they were in that version
  (exactly, as stored). Otherwise the translation's page says the original changed since
  it, from which version's date, with the original's old and new text as a word diff
  (``rules.shared.diffing``, long unchanged stretches shortened). A translation whose base is
  unknown (set outside the admin) is never claimed up to date: it says it has not been
  checked against its original, without a diff.
- **Only public originals.** An original that is not published, or no longer a linked
  version of the translation (unlinked, another game), gives no status.
- **When written, like the relations.** Stored in ``Entry.translation_status`` with a
  fingerprint of what it was made from (the base version and the original's current
  texts and address), refreshed with the relations of the game (``rules.derived.relations``:
  every entry save, link, import), the diff computed only when that fingerprint
  changed. Pages read the entry row only.
"""

import hashlib

from django.db.models import Q

from ..content.prepared import prepared_rows
from ..content.querysets import Status
from ..shared.bulk import store_fingerprinted
from ..shared.diffing import word_diff_html

VERSION = "1"
DIFF_CONTEXT = 12  # words kept on each side of a change in the diff


def fingerprint(base: int | None, original: tuple) -> str:
    digest = hashlib.blake2b(f"{VERSION}\x00{base}".encode(), digest_size=16)
    for value in original:
        digest.update(b"\x01" + str(value).encode())
    return digest.hexdigest()


def status(original: dict, title: str, body: str, base) -> dict:
    """What ``Entry.translation_status`` stores: ``original`` (id, title, slug, number,
    language), compared with ``base`` (the history row's id, title, body and date, or None)."""
    if base is None:
        return {"original": original, "up_to_date": False, "checked_on": None, "title_diff_html": "", "diff_html": ""}
    _id, old_title, old_body, checked_at = base
    up_to_date = old_title == title and old_body == body
    return {
        "original": original,
        "up_to_date": up_to_date,
        "checked_on": checked_at.date().isoformat(),
        "title_diff_html": "" if old_title == title else str(word_diff_html(old_title, title)),
        "diff_html": "" if old_body == body else str(word_diff_html(old_body, body, context=DIFF_CONTEXT)),
    }


@prepared_rows(int)
def _translations(game_id: int):
    """The same SQL for every game (rules.content.prepared: compiled once)."""
    from ..content.models import Entry

    return (
        Entry.objects.filter(game_id=game_id)
        .filter(Q(translation_of__isnull=False) | ~Q(translation_status_fingerprint=""))
        .values_list(
            "pk", "translation_key", "translation_base", "translation_status_fingerprint", "translation_of_id",
            "translation_of__game_id", "translation_of__translation_key", "translation_of__status",
            "translation_of__language", "translation_of__title", "translation_of__slug", "translation_of__number",
            "translation_of__body",
        )  # fmt: skip
    )


def compute(game_id: int, only_changed: bool = False) -> dict[int, tuple[dict, str]]:
    """Entry id → (its status as a translation, the fingerprint), for the entries of one
    game that are translations or were; with ``only_changed``, only those whose stored
    fingerprint differs. One query, and one more for the base versions when a status
    must be made again."""
    from ..content.models import Entry

    rows = _translations(game_id)
    found, wanted = {}, {}
    for pk, key, base, stored, original_id, game, original_key, state, language, title, slug, number, body in rows:
        public = original_id is not None and game == game_id and original_key == key and state == Status.PUBLISHED
        digest = fingerprint(base, (original_id, language, title, slug, number, body)) if public else ""
        if only_changed and digest == stored:
            continue
        if not public:
            found[pk] = ({}, "")
            continue
        original = {"id": original_id, "title": title, "slug": slug, "number": number, "language": language}
        wanted[pk] = (original, title, body, base, digest)
    bases = {}
    ids = {base for *_rest, base, _digest in wanted.values() if base is not None}
    if ids:
        history = Entry.history.filter(history_id__in=ids).values_list(
            "history_id", "id", "title", "body", "history_date"
        )
        bases = {row[0]: row[1:] for row in history}
    for pk, (original, title, body, base, digest) in wanted.items():
        row = bases.get(base)
        if row is not None and row[0] != original["id"]:  # a version of another entry
            row = None
        found[pk] = (status(original, title, body, row), digest)
    return found


def refresh(game_id: int) -> int:
    """Store the status of every translation of one game whose inputs changed; return how many."""
    from ..content.models import Entry

    return store_fingerprinted(Entry, "translation_status", compute(game_id, only_changed=True))


# --- reading ----------------------------------------------------------------------------


# The original, as the page links it: an entry shown by another.
def current(entry) -> dict | None:
    """``entry``'s status against its original as it is now, computed on the spot (the
    admin's page for marking a translation up to date; pages read the stored one)."""
    from ..content.models import Entry

    original = entry.translation_of
    if original is None:
        return None
    base = None
    if entry.translation_base is not None:
        base = (
            Entry.history.filter(history_id=entry.translation_base, id=original.pk)
            .values_list("id", "title", "body", "history_date")
            .first()
        )
    item = {"id": original.pk, "title": original.title, "slug": original.slug, "number": original.number,
            "language": original.language}  # fmt: skip
    return status(item, original.title, original.body, base)
