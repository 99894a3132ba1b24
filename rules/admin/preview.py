"""The change form's live Markdown preview, and the moderators' view of a page not yet public.

Decisions:

- **One renderer.** The preview is rendered by the public page's own partials
  (``templates/rules/includes/``) from the change form's current values, with the same
  renderer a save uses, ``rules.derived.rendering.render_fields``, on an unsaved copy of the
  item (its ``[[links]]`` resolved by ``rules.derived.references.link_targets``, the rule a
  save applies, so only *published* entries of the same game and language are linked),
  for entry bodies, errata and FAQ answers alike.
- **In the page's language.** The preview is rendered in the language a reader of the
  item gets by default (the item's language when it is a UI language, else the default
  one, as ``Entry.canonical_url``), so its links and words match that public page.
- **The public site's CSS.** The pane is an ``<iframe>`` whose document links
  ``css/site.css``, so the admin's styles and the site's never mix (a scoped container
  would inherit the admin's fonts, colours and list styles). It is sandboxed without
  scripts; the admin page's script writes the rendered HTML into it.
- **The form's own fields read the values.** The endpoint builds the admin's ModelForm
  and cleans only the fields the preview needs through their form fields, so any
  widget another mixin installs (a see-also list editor, say) is read the way a save
  reads it; a field the user cannot edit (read-only) is taken from the stored object.
- **Drafts have a page too.** "View on site" of an item that is not published goes to
  ``<id>/view/``: the public page's template with the public context, a "Not public"
  banner and ``noindex``, visible to staff with view permission only.

Which fields are Markdown, and how a model is previewed, is one ``PreviewSpec`` per
model in ``PREVIEW_SPECS`` (by model label, so ``faq`` needs no import here); an admin
may set ``markdown_preview`` itself instead.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.admin.utils import unquote
from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    TooManyFieldsSent,
    ValidationError,
)
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import path, reverse
from django.utils import translation
from django.utils.text import capfirst
from django.utils.translation import gettext as _gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from ..content.models import Entry
from ..content.querysets import Status
from ..derived.references import link_targets, wanted_references
from ..derived.rendering import render_fields
from ..moderation.permissions import can_edit_game
from ..pages.page_context import entry_page_context, item_page_context
from ..shared.languages import ui_language_for

# Longer text is refused with a message rather than rendered: a preview must answer
# while the moderator types. (An erratum's word diff grows with the product of both
# texts' lengths, hence its lower cap.)
MAX_PREVIEW_CHARS = 50_000
MAX_DIFF_CHARS = 10_000

PREVIEW_TEMPLATE = "admin/moderated/markdown_preview.html"
STAFF_PAGE_TEMPLATE = "admin/moderated/staff_page.html"
OBJECT_ID_FIELD = "_preview_object_id"

NOT_PUBLIC = {
    Status.DRAFT: _("Not public: this is a draft. Readers get “page not found” here until it is published."),
    Status.REVIEW: _("Not public: this is in review. Readers get “page not found” here until it is published."),
    Status.ARCHIVED: _("Not public: this is archived. Readers get “page not found” here."),
}


class PreviewError(Exception):
    """Input the preview cannot render; the message is shown to the moderator."""


@dataclass(frozen=True)
class PreviewSpec:
    markdown_fields: tuple[str, ...]  # Markdown, rendered as the public page renders it
    anchor: str  # the field the preview pane sits beside
    fields: tuple[str, ...]  # the other fields the preview shows
    build: Callable  # (model, values, obj) -> context for PREVIEW_TEMPLATE
    page_template: str  # the public page showing the item
    page_context: Callable  # (request, obj) -> that page's context, for the item alone
    text_limits: tuple[tuple[str, int], ...] = ()  # (field, max chars) beyond MAX_PREVIEW_CHARS


# --- entries ---------------------------------------------------------------------------


def _entry_preview(model, values: dict, obj) -> dict:
    entry = model(**{name: value for name, value in values.items() if value is not None})
    targets = _targets(values)
    render_fields(entry, targets)
    wanted = wanted_references(entry)  # see-also labels, as a save derives them
    see_also = [
        (label, targets[key].path if key in targets else None)
        for (key, in_body), (label, order) in sorted(wanted.items(), key=lambda item: item[1][1])
        if not in_body
    ]
    parent = entry.parent if entry.parent_id and entry.parent.is_published else None
    return {"entry": entry, "see_also": see_also, "parent": parent}


def _targets(values: dict) -> dict:
    """Where the unsaved text's labels link: the rule a save applies."""
    game, language = values.get("game"), values.get("language")
    return link_targets(game.pk, language) if game is not None and language else {}



def _entry_page(request, obj) -> dict:
    entry = Entry.objects.for_page().get(pk=obj.pk)
    return entry_page_context(request, entry)


# --- errata and FAQ questions -----------------------------------------------------------


def _published(related):
    return list(related.filter(status=Status.PUBLISHED).select_related("game"))


def _erratum_preview(model, values: dict, obj) -> dict:
    erratum = model(slug=obj.slug if obj else "", **{k: v for k, v in values.items() if v is not None})
    render_fields(erratum, _targets(values))
    # The affected entries as saved: the form's selection widget holds them only on submit.
    erratum.published_affects = _published(obj.affects) if obj else []
    return {"erratum": erratum}


def _erratum_page(request, obj) -> dict:
    obj.published_affects = _published(obj.affects)
    return {**item_page_context(obj.game, obj.language), "errata": [obj]}


def _question_preview(model, values: dict, obj) -> dict:
    question = model(slug=obj.slug if obj else "", **{k: v for k, v in values.items() if v is not None})
    render_fields(question, _targets(values))
    question.published_related = _published(obj.related_entries) if obj else []
    return {"question": question}


def _question_page(request, obj) -> dict:
    obj.published_related = _published(obj.related_entries)
    return {**item_page_context(obj.game, obj.language), "questions": [obj]}


PREVIEW_SPECS = {
    "rules.entry": PreviewSpec(
        markdown_fields=("body",),
        anchor="body",
        fields=("game", "language", "title", "number", "aliases", "is_fragment", "parent", "see_also"),
        build=_entry_preview,
        page_template="rules/entry_detail.html",
        page_context=_entry_page,
    ),
    "rules.erratum": PreviewSpec(
        markdown_fields=("corrected_text",),
        anchor="corrected_text",
        fields=("game", "language", "title", "kind", "source", "page", "original_text"),
        build=_erratum_preview,
        page_template="rules/errata_list.html",
        page_context=_erratum_page,
        text_limits=(("corrected_text", MAX_DIFF_CHARS), ("original_text", MAX_DIFF_CHARS)),
    ),
    "faq.question": PreviewSpec(
        markdown_fields=("answer",),
        anchor="answer",
        fields=("game", "language", "question"),
        build=_question_preview,
        page_template="faq/question_list.html",
        page_context=_question_page,
    ),
}


# --- the mixin ---------------------------------------------------------------------------


class MarkdownPreviewAdmin:
    """Live preview in the change form, its JSON endpoint, and the staff view of a page."""

    markdown_preview: PreviewSpec | None = None

    def get_markdown_preview(self) -> PreviewSpec | None:
        return self.markdown_preview or PREVIEW_SPECS.get(self.model._meta.label_lower)

    # URLs

    def get_urls(self):
        prefix = f"{self.model._meta.app_label}_{self.model._meta.model_name}"
        wrap = self.admin_site.admin_view
        # Before the default URLs, whose "<path:object_id>/" would take both paths.
        return [
            path("preview/", wrap(require_POST(self.markdown_preview_view)), name=f"{prefix}_preview"),
            path("<path:object_id>/view/", wrap(self.staff_page_view), name=f"{prefix}_staff_page"),
        ] + super().get_urls()

    # "View on site"

    def get_view_on_site_url(self, obj=None):
        url = super().get_view_on_site_url(obj)
        if url and obj is not None and getattr(obj, "status", Status.PUBLISHED) != Status.PUBLISHED:
            opts = self.model._meta
            return reverse(
                f"admin:{opts.app_label}_{opts.model_name}_staff_page",
                args=[obj.pk],
                current_app=self.admin_site.name,
            )
        return url

    # The change form

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        spec = self.get_markdown_preview()
        if spec is not None:
            opts = self.model._meta
            url = reverse(f"admin:{opts.app_label}_{opts.model_name}_preview", current_app=self.admin_site.name)
            context["markdown_preview"] = {
                "url": url,
                "objectId": str(obj.pk) if obj is not None and obj.pk else "",
                "objectIdField": OBJECT_ID_FIELD,
                "markdownFields": list(spec.markdown_fields),
                "anchor": spec.anchor,
                "stylesheet": static("css/site.css"),
                "labels": {
                    "title": _("Preview"),
                    "hint": _("as readers will see it"),
                    "failed": _("The preview could not be updated."),
                    "frame": _("Preview of the public page"),
                },
            }
        return super().render_change_form(
            request, context, add=add, change=change, form_url=form_url, obj=obj
        )

    # The preview endpoint

    def markdown_preview_view(self, request):
        """POST the change form's values; answer ``{"html": …}`` or ``{"error": …}``."""
        spec = self.get_markdown_preview()
        if spec is None:
            raise Http404
        try:
            data = request.POST
            object_id = data.get(OBJECT_ID_FIELD, "")
        except (RequestDataTooBig, TooManyFieldsSent):
            return _json_error(_gettext("The text is too long to preview."), 400)
        obj = None
        if object_id:
            try:
                obj = self.get_object(request, unquote(object_id))
            except PermissionDenied:  # another game's item (scoping.GameScopedAdmin)
                return _json_error(_gettext("You may not preview this."), 403)
            if obj is None:
                return _json_error(_gettext("This item does not exist or you may not see it."), 404)
        adding = obj is None and self.has_add_permission(request)
        if not (adding or self.has_view_or_change_permission(request, obj)):
            return _json_error(_gettext("You may not preview this."), 403)
        try:
            values = self._preview_values(request, spec, obj)
        except PreviewError as error:
            return _json_error(str(error), 400)
        game = values.get("game")
        own_game = obj is not None and game is not None and obj.game_id == game.pk
        if game is not None and not own_game and not can_edit_game(request.user, game.pk):
            return _json_error(_gettext("You may not edit this game's content."), 403)
        language = ui_language_for(values.get("language") or "")
        with translation.override(language):
            context = spec.build(self.model, values, obj)
            html = render_to_string(PREVIEW_TEMPLATE, context, request=request)
        return JsonResponse({"html": html, "lang": language})

    def _preview_values(self, request, spec: PreviewSpec, obj) -> dict:
        """The fields the preview needs, read and cleaned by the admin's own form fields."""
        form_class = self.get_form(request, obj, change=obj is not None)
        form = form_class(data=request.POST, files=None, instance=obj)
        limits = dict.fromkeys(spec.markdown_fields, MAX_PREVIEW_CHARS) | dict(spec.text_limits)
        values = {}
        for name in (*spec.fields, *spec.markdown_fields):
            field = form.fields.get(name)
            if field is None:  # read-only or not on the form: what is stored
                values[name] = getattr(obj, name) if obj is not None else None
                continue
            raw = field.widget.value_from_datadict(form.data, form.files, form.add_prefix(name))
            if name in limits:
                text = raw if isinstance(raw, str) else ""
                if len(text) > limits[name]:
                    raise PreviewError(
                        _gettext("%(field)s is too long to preview: %(length)d characters, at most %(limit)d.")
                        % {"field": capfirst(field.label or name), "length": len(text), "limit": limits[name]}
                    )
                values[name] = text.replace("\r\n", "\n")
                continue
            if raw in field.empty_values:
                values[name] = None  # not filled in yet: the preview shows the rest
                continue
            try:
                values[name] = field.clean(raw)
            except ValidationError as error:
                label = capfirst(field.label or name)
                raise PreviewError(f"{label}: {' '.join(error.messages)}") from error
        return values

    # The staff view of a page that is not public

    def staff_page_view(self, request, object_id):
        """The public page of one item, whatever its status, for staff only."""
        spec = self.get_markdown_preview()
        obj = self.get_object(request, unquote(object_id))
        if spec is None or obj is None:
            raise Http404
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        opts = self.model._meta
        with translation.override(ui_language_for(obj.language)):
            context = spec.page_context(request, obj)
            context.update(
                {
                    "public_template": spec.page_template,
                    "staff_item": obj,
                    "not_public": NOT_PUBLIC.get(obj.status),
                    "public_url": obj.get_absolute_url() if obj.status == Status.PUBLISHED else "",
                    "change_url": reverse(
                        f"admin:{opts.app_label}_{opts.model_name}_change",
                        args=[obj.pk],
                        current_app=self.admin_site.name,
                    ),
                }
            )
            response = render(request, STAFF_PAGE_TEMPLATE, context)
        response["X-Robots-Tag"] = "noindex"
        return response


def _json_error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)
