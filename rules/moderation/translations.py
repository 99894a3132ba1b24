"""Linking an entry's versions in several languages (one ``translation_key`` per entry).

The same entry in every language shares one ``translation_key`` (the Wagtail model):
linking gives the other entry this entry's key, unlinking gives it a fresh one. Versions
belong to one game; a language has at most one linked version. Every change goes through
``Entry.save()``, so the history records who linked, unlinked or started what.
"""

import uuid
from dataclasses import dataclass

from django.db.models import Exists, OuterRef
from django.utils.translation import gettext as _

from ..content.history import latest_version, stamp
from ..content.journal import unit_of_work
from ..content.models import Entry
from ..content.querysets import Status
from ..shared.languages import CONTENT_LANGUAGE_CODES, native_name


class TranslationError(Exception):
    """A refused change, with a message for the moderator."""


@dataclass
class LanguageVersion:
    """One row of the translations panel: a language and the entry's version in it."""

    language: str
    entries: list[Entry]  # normally one; more only if data was linked twice by hand
    is_current: bool = False

    @property
    def name(self) -> str:
        return native_name(self.language)


def linked_versions(entry: Entry):
    """The other entries of the same game sharing the entry's translation key (any status)."""
    return (
        Entry.objects.filter(game_id=entry.game_id, translation_key=entry.translation_key)
        .exclude(pk=entry.pk)
        .select_related("game")
        .order_by("language", "pk")
    )


def panel_languages(entry: Entry, versions: list[Entry]) -> list[str]:
    """The languages the panel lists: the entry's, the game's content languages, the site's others.

    Every content language of the site is listed (a translation into a language the game
    has no content in yet must be startable); the game's own languages come first, most
    content first.
    """
    order = [entry.language, *entry.game.content_languages(), *(v.language for v in versions), *CONTENT_LANGUAGE_CODES]
    return list(dict.fromkeys(order))


def translation_panel(entry: Entry) -> list[LanguageVersion]:
    """One row per language, with the linked versions (three queries)."""
    versions = list(linked_versions(entry))
    by_language: dict[str, list[Entry]] = {}
    for version in versions:
        by_language.setdefault(version.language, []).append(version)
    return [
        LanguageVersion(
            language=language,
            entries=[entry] if language == entry.language else by_language.get(language, []),
            is_current=language == entry.language,
        )
        for language in panel_languages(entry, versions)
    ]


def version_in(entry: Entry, language: str) -> Entry | None:
    """The entry's linked version in ``language``, if there is one."""
    return linked_versions(entry).filter(language=language).first()


def link_candidates(entry: Entry):
    """Entries that may be linked to ``entry``: same game, a language it has no version in, unlinked.

    "Unlinked" means no other entry shares the candidate's key: linking an entry that
    already has translations would tear it out of its own group, so those must be
    unlinked there first.
    """
    taken = {entry.language, *linked_versions(entry).values_list("language", flat=True)}
    shared = Entry.objects.filter(translation_key=OuterRef("translation_key")).exclude(pk=OuterRef("pk"))
    return (
        Entry.objects.filter(game_id=entry.game_id)
        .exclude(language__in=taken)
        .exclude(Exists(shared))
        .order_by("language", "title", "pk")
    )


def _save(entry: Entry, user, reason: str) -> None:
    stamp(entry, reason, user)
    entry.save()


def start_translation(entry: Entry, language: str, user) -> Entry:
    """A draft of ``entry`` in ``language``, linked to it, pre-filled with the source text.

    Decisions:

    - title and body are the source's, for reference: the translator overwrites them
      (the body's ``[[links]]`` still name source-language labels until translated);
    - ``see_also`` holds the titles of the target-language versions of the source's
      see-also targets where those exist; labels with no version in that language are
      left out (a label must be in the entry's own language), and ``see_also_hints``
      lists them for the confirmation page;
    - kind, number and order are copied; the parent is the parent's version in that
      language if one exists; aliases, source and page are left empty (they belong to the
      target-language document);
    - the draft shares the translation key, so it is linked from the start, and it is
      recorded as translated from ``entry``'s current version (``rules.derived.translation_status``).

    Refused (``TranslationError``) for the entry's own language, a language that is not a
    content language, or a language that already has a linked version.
    """
    if language not in CONTENT_LANGUAGE_CODES:
        raise TranslationError(_("“%(language)s” is not a content language.") % {"language": language})
    if language == entry.language:
        raise TranslationError(_("The entry is already written in %(language)s.") % {"language": native_name(language)})
    with unit_of_work():
        existing = version_in(entry, language)
        if existing is not None:
            raise TranslationError(
                _("There is already a version in %(language)s: “%(title)s”.")
                % {"language": native_name(language), "title": existing}
            )
        parent = version_in(entry.parent, language) if entry.parent_id else None
        draft = Entry(
            game_id=entry.game_id,
            language=language,
            title=entry.title,
            body=entry.body,
            see_also=see_also_suggestions(entry, language)[0],
            kind=entry.kind,
            number=entry.number,
            order=entry.order,
            parent=parent,
            status=Status.DRAFT,
            translation_key=entry.translation_key,
            translation_of=entry,
            translation_base=base_version(entry),
        )
        _save(draft, user, f"translation of entry {entry.pk} ({entry.language}) started")
    return draft


def see_also_suggestions(entry: Entry, language: str) -> tuple[list[str], list[str]]:
    """(labels in ``language`` for the source's see-also, source labels with no such version).

    A see-also label resolved to an entry that has a version in ``language`` becomes that
    version's title; the others are returned apart, for the translator to write.
    """
    refs = list(
        entry.cross_references.filter(in_body=False).order_by("order").values_list("label", "target__translation_key")
    )
    keys = {key for _label, key in refs if key is not None}
    titles: dict = {}
    if keys:
        versions = Entry.objects.filter(game_id=entry.game_id, language=language, translation_key__in=keys)
        for key, title, status in versions.order_by("pk").values_list("translation_key", "title", "status"):
            # A published version's title is the one references resolve to: it wins.
            if key not in titles or status == Status.PUBLISHED:
                titles[key] = title
    suggested, unmatched = [], []
    for label, key in refs:
        if key in titles:
            suggested.append(titles[key])
        else:
            unmatched.append(label)
    return list(dict.fromkeys(suggested)), unmatched


def base_version(original: Entry) -> int | None:
    """The id of the original's newest history version: what a translation made or
    checked now matches."""
    version = latest_version(original)
    return version.history_id if version is not None else None


def link(entry: Entry, other: Entry, user) -> None:
    """Make ``other`` a version of ``entry`` (it takes ``entry``'s translation key).

    ``other`` is recorded as a translation of ``entry``'s current text: linking says they
    say the same (``rules.derived.translation_status`` then tells when ``entry`` changes).

    Refused for another game, the same language, a language ``entry`` already has a
    version in, and an entry that has versions of its own (moving it alone would tear
    it out of its group; unlinking there first makes the choice explicit).
    """
    if other.pk == entry.pk:
        raise TranslationError(_("An entry cannot be linked to itself."))
    if other.game_id != entry.game_id:
        raise TranslationError(_("Only entries of the same game can be linked."))
    if other.language == entry.language:
        raise TranslationError(_("“%(title)s” is in the same language.") % {"title": other})
    if other.translation_key == entry.translation_key:
        raise TranslationError(_("“%(title)s” is already linked.") % {"title": other})
    with unit_of_work():
        existing = version_in(entry, other.language)
        if existing is not None:
            raise TranslationError(
                _("The entry already has a version in %(language)s: “%(title)s”. Unlink it first.")
                % {"language": native_name(other.language), "title": existing}
            )
        if Entry.objects.filter(translation_key=other.translation_key).exclude(pk=other.pk).exists():
            raise TranslationError(
                _("“%(title)s” is linked to versions of its own. Unlink it from them first.") % {"title": other}
            )
        other.translation_key = entry.translation_key
        other.translation_of, other.translation_base = entry, base_version(entry)
        _save(other, user, f"linked as the {other.language} version of entry {entry.pk}")


def unlink(entry: Entry, other: Entry, user) -> None:
    """Take ``other`` out of ``entry``'s versions: it gets a translation key of its own,
    and neither is recorded as translated from the other any more."""
    if other.pk == entry.pk or other.translation_key != entry.translation_key or other.game_id != entry.game_id:
        raise TranslationError(_("“%(title)s” is not linked to this entry.") % {"title": other})
    with unit_of_work():
        other.translation_key = uuid.uuid4()
        if other.translation_of_id == entry.pk:
            other.translation_of, other.translation_base = None, None
        _save(other, user, f"unlinked from entry {entry.pk}")
        if entry.translation_of_id == other.pk:
            entry.translation_of, entry.translation_base = None, None
            _save(entry, user, f"its original, entry {other.pk}, was unlinked")


def original_choices(entry: Entry) -> list[Entry]:
    """The versions ``entry`` may be marked a translation of: its linked versions."""
    return list(linked_versions(entry))


def mark_up_to_date(entry: Entry, user, original: Entry | None = None) -> None:
    """Record that ``entry`` matches its original's current text (``original``, a
    linked version, also becomes its original; by default the one it has)."""
    original = original or entry.translation_of
    if original is None:
        raise TranslationError(_("Choose the version this entry is a translation of."))
    if (
        original.pk == entry.pk
        or original.game_id != entry.game_id
        or original.translation_key != entry.translation_key
        or original.language == entry.language
    ):
        raise TranslationError(_("“%(title)s” is not a linked version of this entry.") % {"title": original})
    entry.translation_of, entry.translation_base = original, base_version(original)
    _save(entry, user, f"marked up to date with entry {original.pk} (version {entry.translation_base})")
