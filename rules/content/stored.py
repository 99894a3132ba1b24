"""What entries store about other items, as pages, the API and the booklets read it.

The derived columns of an entry (``Entry.relations``, ``Entry.corrections``,
``Entry.translation_status``) are written by the derived-data pipeline
(``rules.derived.pipeline``: ``rules.derived.relations``, ``rules.derived.corrections``,
``rules.derived.translation_status``); this module only reads them, so models, pages and the
API may use it without importing any derivation code. URLs are built when read, in
the reader's UI language, from the game's current slug (``rules.content.addresses``).
"""

from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.safestring import SafeString, mark_safe

from ..shared.text import numbered_title
from .addresses import entry_path_template, entry_url_template
from .choices import ErratumKind, release_label


def erratum_anchor(erratum_id: int) -> str:
    """The id of an erratum's box on the entry page."""
    return f"erratum-{erratum_id}"


# --- relations (Entry.relations) ----------------------------------------------------------


@dataclass(frozen=True)
class LinkedEntry:
    """An entry as another entry's page shows it (same game and language)."""

    id: int
    title: str
    slug: str
    number: str
    language: str
    url: str

    def get_absolute_url(self) -> str:
        return self.url

    @property
    def display_title(self) -> str:  # Entry.__str__
        return numbered_title(self.number, self.title)


@dataclass(frozen=True)
class ErratumOnPage:
    id: int
    title: str
    slug: str
    kind: str
    language: str
    game: str
    has_original: bool
    corrected_html: str
    diff_html: str

    @property
    def original_text(self) -> bool:  # the templates ask whether the original is known
        return self.has_original

    def get_kind_display(self) -> str:
        return str(ErratumKind(self.kind).label) if self.kind in ErratumKind.values else self.kind

    def get_absolute_url(self) -> str:
        return reverse("rules:errata", kwargs={"game": self.game}) + f"#{self.slug}"


@dataclass(frozen=True)
class QuestionOnPage:
    id: int
    question: str
    slug: str
    language: str
    game: str
    answer_html: str


class EntryRelations:
    """An entry's stored relations, for a page in the active UI language."""

    def __init__(self, entry):
        self.entry = entry
        self.data = entry.relations or {}
        self._url = None

    def _entry(self, item: dict, language: str | None = None) -> LinkedEntry:
        if self._url is None:
            self._url = entry_url_template(self.entry.game.slug)
        language = language or self.entry.language
        return LinkedEntry(
            item["id"],
            item["title"],
            item["slug"],
            item.get("number", ""),
            language,
            self._url.format(slug=item["slug"]),
        )

    @cached_property
    def parent(self) -> LinkedEntry | None:
        parent = self.data.get("parent")
        return self._entry(parent) if parent else None

    @cached_property
    def see_also(self) -> list[tuple[str, str | None]]:
        """(label, URL or None) for each see-also label, in order."""
        return [
            (ref["label"], self._entry(ref["target"]).url if ref["target"] else None)
            for ref in self.data.get("references", [])
            if not ref["in_body"]
        ]

    @cached_property
    def referenced_by(self) -> list[LinkedEntry]:
        return [self._entry(item) for item in self.data.get("referenced_by", [])]

    @cached_property
    def children(self) -> list[LinkedEntry]:
        return [self._entry(item) for item in self.data.get("children", [])]

    @cached_property
    def translations(self) -> list[LinkedEntry]:
        """The other versions, each linking to its own page (``Entry.canonical_url``): in
        the reader's UI language, the page would send them back to this version."""
        game_slug = self.entry.game.slug
        return [
            LinkedEntry(
                item["id"], item["title"], item["slug"], item.get("number", ""), item["language"],
                entry_path_template(game_slug, item["language"]).format(slug=item["slug"]),
            )  # fmt: skip
            for item in self.data.get("translations", [])
        ]

    @cached_property
    def errata(self) -> list[ErratumOnPage]:
        return [ErratumOnPage(**item) for item in self.data.get("errata", [])]

    @cached_property
    def releases(self) -> list["ReleaseStep"]:
        """What each release of its source did to the entry, oldest first; each step after
        the first with the address comparing the entry as the step before had it."""
        steps, before = [], None
        for item in self.data.get("releases", []):
            step = self._release_step(item, before)
            steps.append(step)
            before = step.release
        return steps

    @cached_property
    def source_releases(self) -> list["ReleaseLink"]:
        """The releases of its source it can be read as of, newest first (the picker;
        stored with the source, ``Source.readable_releases``)."""
        source = self.entry.source if self.entry.source_id else None
        return [self._release(item) for item in reversed(source.readable_releases if source else [])]

    @cached_property
    def previous_numbers(self) -> list["FormerNumber"]:
        """The numbers it had, each with the release that gave it another."""
        return [
            FormerNumber(item["number"], self._release(item["until"])) for item in self.data.get("previous_numbers", [])
        ]

    @cached_property
    def number_before(self) -> "NumberBefore | None":
        """The rule that had this entry's number until a release renumbered it."""
        item = self.data.get("number_before")
        if not item:
            return None
        return NumberBefore(self._entry(item), item["number_then"], self._release(item["until"]))

    def _release(self, item: dict) -> "ReleaseLink":
        return ReleaseLink(
            item["id"], item["version"], date.fromisoformat(item["effective_on"]) if item["effective_on"] else None,
            reverse("rules:release", kwargs={"game": self.entry.game.slug, "pk": item["id"]}),
            item.get("initial", False),
        )  # fmt: skip

    def _release_step(self, item: dict, before: "ReleaseLink | None") -> "ReleaseStep":
        compare = ""
        if before is not None:
            base = reverse("rules:entry-releases", kwargs={"game": self.entry.game.slug, "slug": self.entry.slug})
            compare = f"{base}?{urlencode({'from': before.version, 'to': item['version']})}"
        return ReleaseStep(self._release(item), item["change"], item["number"], item["previous_number"], compare)

    @cached_property
    def questions(self) -> list[QuestionOnPage]:
        return [QuestionOnPage(**item) for item in self.data.get("questions", [])]

    @cached_property
    def navigation(self) -> "Navigation | None":
        """Previous, next and ancestors in reading order (``rules.content.rulebook``); None for
        an entry in no sequence (a draft)."""
        place = self.data.get("navigation")
        if not place:
            return None
        return Navigation(
            sequence=place["sequence"],
            previous=self._entry(place["previous"]) if place["previous"] else None,
            next=self._entry(place["next"]) if place["next"] else None,
            ancestors=[self._entry(item) for item in place["ancestors"]],
            letter=place.get("letter", ""),
        )


@dataclass(frozen=True)
class ReleaseLink:
    id: int
    version: str
    effective_on: date | None
    url: str  # its "what changed" page
    initial: bool = False  # the source as first imported (rules.content.releases)

    def get_absolute_url(self) -> str:
        return self.url

    @property
    def label(self) -> str:
        """Its version as readers see it (``Release.label``)."""
        return release_label(self.version, self.initial)


@dataclass(frozen=True)
class ReleaseStep:
    release: ReleaseLink
    change: str  # reworded | retitled | renumbered | added | removed
    number: str
    previous_number: str
    compare_url: str = ""  # the entry as the release before had it, beside this one


@dataclass(frozen=True)
class FormerNumber:
    number: str
    until: ReleaseLink  # the release from which it had another number


@dataclass(frozen=True)
class NumberBefore:
    entry: LinkedEntry  # the rule that had the number, as it is now
    number: str
    until: ReleaseLink


@dataclass(frozen=True)
class Navigation:
    sequence: str  # "rules" or "glossary"
    previous: LinkedEntry | None
    next: LinkedEntry | None
    ancestors: list[LinkedEntry]
    letter: str  # in the glossary: the id of its letter on the game page ("letter-B")

    @property
    def in_rulebook(self) -> bool:
        return self.sequence == "rules"


# --- corrections (Entry.corrections) -------------------------------------------------------


@dataclass(frozen=True)
class ErratumApplied:
    number: int | None  # its footnote in the text; None when its passage was not found
    id: int
    slug: str
    title: str
    published_on: date | None
    places: int

    @property
    def anchor(self) -> str:
        return erratum_anchor(self.id)


@dataclass
class Corrections:
    """An entry's stored corrections, for its page (``Entry.corrected``)."""

    data: dict = field(default_factory=dict)

    @cached_property
    def errata(self) -> list[ErratumApplied]:
        return [
            ErratumApplied(
                item["number"], item["id"], item["slug"], item["title"],
                date.fromisoformat(item["published_on"]) if item["published_on"] else None, item["places"],
            )  # fmt: skip
            for item in self.data.get("errata", [])
        ]

    @property
    def shown(self) -> bool:
        """Whether the page reads "as corrected" (an erratum changed the text)."""
        return bool(self.data.get("corrected_html"))

    @property
    def applied(self) -> list[ErratumApplied]:
        return [erratum for erratum in self.errata if erratum.places] if self.shown else []

    @property
    def not_found(self) -> list[ErratumApplied]:
        return [erratum for erratum in self.errata if not erratum.places]

    @property
    def failed(self) -> bool:
        return bool(self.data.get("failed"))

    @property
    def corrected_html(self) -> SafeString:
        return mark_safe(self.data.get("corrected_html", ""))  # noqa: S308 - sanitised, then marked by us

    @property
    def printed_html(self) -> SafeString:
        return mark_safe(self.data.get("printed_html", ""))  # noqa: S308 - sanitised, then marked by us

    def __bool__(self) -> bool:
        return bool(self.data.get("errata"))


# --- translation status (Entry.translation_status) ------------------------------------------


Original = LinkedEntry


class TranslationState:
    """An entry's stored status as a translation, for its page (``Entry.translation_state``)."""

    def __init__(self, entry):
        self.entry = entry
        self.data = entry.translation_status or {}

    def __bool__(self) -> bool:
        return bool(self.data.get("original"))

    @cached_property
    def original(self) -> Original:
        item = self.data["original"]
        url = entry_path_template(self.entry.game.slug, item["language"]).format(slug=item["slug"])
        return Original(item["id"], item["title"], item["slug"], item.get("number", ""), item["language"], url)

    @property
    def up_to_date(self) -> bool:
        return bool(self.data.get("up_to_date"))

    @property
    def checked(self) -> bool:
        """Whether the version it was made from is known."""
        return self.data.get("checked_on") is not None

    @property
    def checked_on(self) -> date | None:
        value = self.data.get("checked_on")
        return date.fromisoformat(value) if value else None

    @property
    def title_diff_html(self) -> SafeString:
        return mark_safe(self.data.get("title_diff_html", ""))  # noqa: S308 - every piece escaped (rules.shared.diffing)

    @property
    def diff_html(self) -> SafeString:
        return mark_safe(self.data.get("diff_html", ""))  # noqa: S308 - every piece escaped (rules.shared.diffing)
