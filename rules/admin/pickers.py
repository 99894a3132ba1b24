"""Entry pickers: an erratum's "Affects" and a FAQ question's "Related entries".

Two games may each have an entry titled "Reaktion"; a list of every entry of every game
showed both alike, and the wrong one was linked without a word. So:

- **Only the item's game and language are offered.** The picker is the admin's own
  select2 autocomplete (a static file, fine under the site's CSP), started by
  ``static/js/admin-entry-picker.js`` instead of ``admin/js/autocomplete.js`` so that
  each request also sends the game and language chosen in the form at that moment;
  ``EntryPickerView`` (``/admin/rules/entry/picker/``, Django's
  ``AutocompleteJsonView`` with its checks) answers with those entries only, starting
  from ``EntryAdmin.get_queryset``, so a game moderator gets only their games'. Before
  a game and language are chosen it offers one disabled line saying to choose them.
- **Every entry says where it belongs**: "Reaktion (Marvel Champions, German,
  Glossary entry)", with its number and its status when not published, in the search
  results and in the chosen options alike (``entry_label``); the language is named as
  the form's own language field names it.
- **Searchable** by title, number, slug and alias, 20 at a time.
- **A link across games or languages is refused** by the form (the field shows which
  entries and why: ``rules.admin.forms.AboutEntriesForm``) and by the model
  (``rules.content.entry_links``).
"""

from django import forms
from django.conf import settings
from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.contrib.admin.widgets import AutocompleteSelectMultiple
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import JsonResponse
from django.urls import path, reverse
from django.utils.translation import gettext, gettext_lazy

from ..content.querysets import Status
from ..shared.languages import CONTENT_LANGUAGE_CODES

#: The relations an entry picker serves: (app label, model name, field name).
PICKER_FIELDS = {("rules", "erratum", "affects"), ("faq", "question", "related_entries")}
PICKER_URL_NAME = "rules_entry_picker"
MAX_TERM_LENGTH = 100


def entry_label(entry) -> str:
    """An entry named with its game, language and kind (and status unless published)."""
    values = {
        "entry": entry,
        "game": entry.game.name,
        "language": entry.get_language_display(),
        "kind": entry.get_kind_display(),
    }
    if entry.status == Status.PUBLISHED:
        return gettext("%(entry)s (%(game)s, %(language)s, %(kind)s)") % values
    return gettext("%(entry)s (%(game)s, %(language)s, %(kind)s, %(status)s)") % {
        **values,
        "status": entry.get_status_display(),
    }


class EntryChoiceField(forms.ModelMultipleChoiceField):
    """The entries an item is about, each labelled with where it belongs."""

    def label_from_instance(self, obj) -> str:
        return entry_label(obj)


class EntryPicker(AutocompleteSelectMultiple):
    """The admin's autocomplete, asking ``EntryPickerView`` with the form's game and language."""

    def get_url(self) -> str:
        return reverse(f"{self.admin_site.name}:{PICKER_URL_NAME}")

    def build_attrs(self, base_attrs, extra_attrs=None):
        attrs = super().build_attrs(base_attrs, extra_attrs)
        # Not "admin-autocomplete": admin/js/autocomplete.js would start it without the
        # game and language; admin-entry-picker.js starts it with them.
        classes = [name for name in attrs["class"].split() if name != "admin-autocomplete"]
        attrs["class"] = " ".join([*classes, "entry-picker"])
        attrs["data-game-field"] = "game"
        attrs["data-language-field"] = "language"
        # No "clear all" cross: one click would drop every chosen entry, and it sits in
        # select2's list of choices, where only list items belong (axe: "list"). Each
        # chosen entry keeps its own cross.
        attrs["data-allow-clear"] = "false"
        return attrs

    @property
    def media(self):
        # AutocompleteMixin.media with admin-entry-picker.js in place of autocomplete.js.
        extra = "" if settings.DEBUG else ".min"
        i18n = (f"admin/js/vendor/select2/i18n/{self.i18n_name}.js",) if self.i18n_name else ()
        return forms.Media(
            js=(
                f"admin/js/vendor/jquery/jquery{extra}.js",
                f"admin/js/vendor/select2/select2.full{extra}.js",
                *i18n,
                "admin/js/jquery.init.js",
                "js/admin-entry-picker.js",
            ),
            css={
                "screen": (
                    f"admin/css/vendor/select2/select2{extra}.css",
                    "admin/css/autocomplete.css",
                    "css/admin-entry-picker.css",
                )
            },
        )


class EntryPickerView(AutocompleteJsonView):
    """The entries of the game and language a picker's form has chosen."""

    def process_request(self, request):
        term, model_admin, source_field, to_field_name = super().process_request(request)
        opts = source_field.model._meta
        if (opts.app_label, opts.model_name, source_field.name) not in PICKER_FIELDS:
            raise PermissionDenied
        return " ".join(term.split())[:MAX_TERM_LENGTH], model_admin, source_field, to_field_name

    def chosen(self) -> tuple[int, str] | None:
        """The form's game id and language, as the picker sent them; None if either is missing."""
        game, language = self.request.GET.get("game", ""), self.request.GET.get("language", "")
        if not game.isdigit() or language not in CONTENT_LANGUAGE_CODES:
            return None
        return int(game), language

    def get(self, request, *args, **kwargs):
        if self.chosen() is None:
            # The same checks and refusals as an answer with entries.
            _term, self.model_admin, _field, _to_field = self.process_request(request)
            if not self.has_perm(request):
                raise PermissionDenied
            hint = gettext("Choose the game and language first: only their entries can be chosen.")
            # Not selectable, and not "" (select2 drops an item with its placeholder's id).
            results = [{"id": "choose-game-and-language", "text": hint, "disabled": True}]
            return JsonResponse({"results": results, "pagination": {"more": False}})
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        game, language = self.chosen()
        entries = self.model_admin.get_queryset(self.request).filter(game_id=game, language=language)
        if self.term:
            entries = entries.filter(
                Q(title__icontains=self.term)
                | Q(number__istartswith=self.term)
                | Q(slug__icontains=self.term)
                | Q(aliases__icontains=self.term)
            )
        return entries.select_related("game").order_by("title", "number", "pk")

    def serialize_result(self, obj, to_field_name):
        return {"id": str(getattr(obj, to_field_name)), "text": entry_label(obj)}


class EntryPickerUrls:
    """EntryAdmin's part: the picker's JSON view under its URLs."""

    def get_urls(self):
        view = self.admin_site.admin_view(EntryPickerView.as_view(admin_site=self.admin_site))
        return [path("picker/", view, name=PICKER_URL_NAME), *super().get_urls()]


class EntryPickerAdmin:
    """ErratumAdmin's and QuestionAdmin's part: their ``entry_picker_fields`` are pickers."""

    entry_picker_fields: tuple[str, ...] = ()
    entry_picker_help = gettext_lazy(
        "Type to search the entries of the game and language chosen above. "
        "Each entry shows its game, language and kind."
    )

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name not in self.entry_picker_fields:
            return super().formfield_for_manytomany(db_field, request, **kwargs)
        kwargs.setdefault("widget", EntryPicker(db_field, self.admin_site, using=kwargs.get("using")))
        kwargs.setdefault("form_class", EntryChoiceField)
        kwargs.setdefault("help_text", self.entry_picker_help)
        field = super().formfield_for_manytomany(db_field, request, **kwargs)
        field.queryset = field.queryset.select_related("game")
        return field
