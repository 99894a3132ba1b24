"""Text to HTML once, when it is written: entry bodies, errata and FAQ answers.

Readers never wait for Markdown: every text is rendered when it is saved or imported,
stored beside it (``Entry.body_html``, ``Erratum.corrected_html`` and ``diff_html``,
``Question.answer_html``), and rendered again when something it shows changes.

Decisions:

- **One rule for ``[[links]]``, everywhere.** A ``[[Term]]`` in an entry body, an
  erratum or a FAQ answer links to the *published* entry of the same game and language
  whose title (or else alias) is ``Term`` (``rules.derived.references.link_targets``, the rule
  the see-also list follows too). Otherwise it stays a "wanted" span, not a link.
  Pages, the API, feeds and the admin's live preview all show this stored HTML.
- **Links point at the target's own page** (``Entry.canonical_url``: the UI in the
  target's language). A page read in another UI language moves its links into that
  language (``for_ui_language``, a string replace); the API makes them absolute
  (``absolute_links``, at the request's address; ``absolute_links_at`` a given one,
  for the PDF booklets). Neither parses HTML again.
- **A fingerprint says when to render again.** ``html_fingerprint`` hashes what the
  HTML was made from: the texts and, for each ``[[label]]``, where it pointed. After
  anything that can move a link (an entry saved, published, renamed or deleted, an
  import, a game's new slug), ``refresh()`` recomputes the fingerprints of that game
  and language and renders only the items whose inputs changed, however they were
  written (bulk writes included). ``RENDERER_VERSION`` is part of every fingerprint:
  raise it when the renderer's output changes, and ``manage.py render_html`` renders
  everything again.
- **Derived data, no history.** Refreshes write with ``bulk_update`` (no history
  version, no ``updated_at`` change): the HTML follows the texts, which have history.
"""

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.apps import apps
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

from ..shared.anchors import add_rule_ids
from ..shared.bulk import note_written
from ..shared.diffing import word_diff_html
from ..shared.languages import ui_language_for
from ..shared.markdown import render_markdown
from ..shared.text import normalize_label
from ..shared.wikilinks import WIKI_LINK
from .references import LinkTarget, link_targets

# 2: markup other than the allowed tags is shown as text; 3: "\<" is an escape (rules.shared.markdown);
# 4: numbered rules in entry bodies have their number as id (rules.shared.anchors)
RENDERER_VERSION = "4"
BATCH = 500


def render_text(text: str, targets: Mapping[str, LinkTarget]) -> SafeString:
    """Markdown to sanitised HTML, each ``[[label]]`` linked to its target's page."""

    def resolve(label: str) -> str | None:
        target = targets.get(normalize_label(label))
        return target.path if target else None

    return render_markdown(text, resolve)


@dataclass(frozen=True)
class RenderedText:
    """How one model's stored HTML is made: from which text fields, into which fields."""

    model_label: str
    texts: tuple[str, ...]  # the fields the HTML is made from
    render: Callable[[dict, Mapping[str, LinkTarget]], dict[str, str]]  # texts → HTML fields

    @property
    def model(self):
        return apps.get_model(self.model_label)

    @property
    def outputs(self) -> tuple[str, ...]:
        return tuple(self.render(dict.fromkeys(self.texts, ""), {}))


def _erratum(texts: dict, targets) -> dict[str, str]:
    original, corrected = texts["original_text"], texts["corrected_text"]
    return {
        "corrected_html": render_text(corrected, targets),
        "diff_html": word_diff_html(original, corrected) if original else "",
    }


def _entry_body(body: str, targets) -> SafeString:
    # Numbered rules in the body get their number as id (rules.shared.anchors): entry bodies
    # only, so an erratum on the same page never repeats one.
    return mark_safe(add_rule_ids(render_text(body, targets)))  # noqa: S308 - ids of [0-9a-z.] on sanitised HTML


SPECS = (
    RenderedText("rules.Entry", ("body",), lambda t, targets: {"body_html": _entry_body(t["body"], targets)}),
    RenderedText("rules.Erratum", ("original_text", "corrected_text"), _erratum),
    RenderedText("faq.Question", ("answer",), lambda t, targets: {"answer_html": render_text(t["answer"], targets)}),
)


def spec_for(model) -> RenderedText:
    return next(spec for spec in SPECS if spec.model_label == model._meta.label)


def _link_keys(texts: dict) -> list[str]:
    return [normalize_label(m.group(1)) for text in texts.values() for m in WIKI_LINK.finditer(text or "")]


def fingerprint(texts: dict, targets: Mapping[str, LinkTarget]) -> str:
    """A hash of everything the HTML shows: the texts and where each link points."""
    digest = hashlib.blake2b(RENDERER_VERSION.encode(), digest_size=16)
    for name in sorted(texts):
        digest.update(b"\x00" + (texts[name] or "").encode())
    for key in _link_keys(texts):
        target = targets.get(key)
        digest.update(b"\x01" + key.encode() + b"\x02" + (target.path.encode() if target else b""))
    return digest.hexdigest()


def _needs_targets(texts: dict) -> bool:
    return any("[[" in (text or "") for text in texts.values())


def render_fields(obj, targets: Mapping[str, LinkTarget] | None = None) -> None:
    """Set an instance's HTML fields and fingerprint from its current texts (``save()``
    calls this; so does the admin's preview of unsaved text)."""
    spec = spec_for(type(obj))
    texts = {name: getattr(obj, name) or "" for name in spec.texts}
    if targets is None:
        targets = (
            link_targets(obj.game_id, obj.language)
            if _needs_targets(texts) and obj.game_id and obj.language
            else {}
        )
    for name, html in spec.render(texts, targets).items():
        setattr(obj, name, html)
    obj.html_fingerprint = fingerprint(texts, targets)


def refresh(game_id: int, language: str, targets: Mapping[str, LinkTarget] | None = None) -> int:
    """Render again every item of one game and language whose inputs changed; return
    how many. ``targets`` saves the query when the caller has just computed them."""
    if targets is None:
        targets = link_targets(game_id, language)
    changed = 0
    for spec in SPECS:
        model = spec.model
        rows = (
            model._default_manager.filter(game_id=game_id, language=language)
            .order_by()
            .values_list("pk", "html_fingerprint", *spec.texts)
        )
        stale = []
        for pk, stored, *values in rows.iterator(chunk_size=2000):
            texts = dict(zip(spec.texts, values, strict=True))
            if fingerprint(texts, targets) != stored:
                obj = model(pk=pk, **texts)
                render_fields(obj, targets)
                stale.append(obj)
        if stale:
            model._default_manager.bulk_update(stale, [*spec.outputs, "html_fingerprint"], batch_size=BATCH)
            note_written(model, [obj.pk for obj in stale])
            changed += len(stale)
    return changed


def refresh_game(game) -> int:
    """Every language of one game (its slug is in every link)."""
    languages = set()
    for spec in SPECS:
        languages |= set(
            spec.model._default_manager.filter(game=game).order_by().values_list("language", flat=True).distinct()
        )
    return sum(refresh(game.pk, language) for language in sorted(languages))


def refresh_all() -> int:
    """Every game and language (``manage.py render_html``, and after ``migrate``)."""
    pairs = set()
    for spec in SPECS:
        pairs |= set(spec.model._default_manager.order_by().values_list("game_id", "language").distinct())
    return sum(refresh(game_id, language) for game_id, language in sorted(pairs))


def refresh_after_migrate(sender, using="default", plan=None, **kwargs) -> None:
    if plan:  # only when migrations ran; a no-op ``migrate`` costs nothing
        refresh_all()


# --- reading the stored HTML -----------------------------------------------------------


def _language_prefix(language: str) -> str:
    with translation.override(language):
        return reverse("rules:home")


def for_ui_language(html: str, content_language: str, ui_language: str) -> SafeString:
    """Stored HTML with its entry links in the reader's UI language, so following a link
    keeps the language the reader chose (the target's page offers its own language)."""
    stored = ui_language_for(content_language)
    if stored == ui_language or 'class="xref" href="' not in html:
        return mark_safe(html)  # noqa: S308 - stored HTML was sanitised when rendered
    old, new = _language_prefix(stored), _language_prefix(ui_language)
    return mark_safe(html.replace(f'class="xref" href="{old}', f'class="xref" href="{new}'))  # noqa: S308


def absolute_links_at(html: str, base_url: str) -> str:
    """Stored HTML with every site-relative link made absolute against ``base_url``, the
    site's address without a trailing slash ("https://rules.example.org")."""
    if 'href="/' not in html:
        return html
    return html.replace('href="/', f'href="{base_url.rstrip("/")}/')


def absolute_links(html: str, request) -> str:
    """``absolute_links_at`` the address the request came to (for API clients)."""
    if 'href="/' not in html:
        return html
    return absolute_links_at(html, request.build_absolute_uri("/"))
