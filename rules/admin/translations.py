"""The entry's translations in the admin: the panel on its change page and three small pages.

The panel (``admin/moderated/translations_panel.html``) sits inside the change form's
``<form>``, so it holds links only, never a nested form: each change goes through a
confirmation page (GET shows what will happen, POST does it) under
``/admin/rules/entry/<id>/translations/…``:

- ``start/<language>/``: a draft in that language, pre-filled from this entry;
- ``link/``: make an unlinked entry of the same game this entry's version;
- ``unlink/<other id>/``: give a linked version a translation key of its own;
- ``up-to-date/``: see what changed in the entry's original since the translation was
  made or last checked (``rules.derived.translation_status``), and mark it up to date with the
  original's current text (choosing the original among the linked versions).

The change list's action ``mark_up_to_date`` does the last for many translations.

The rules are in ``rules.moderation.translations``; these views check permissions (the model
permission, and the game through the scoping of ``get_queryset`` and
``has_change_permission``), turn a bad id into a 404 and a refused change into a
message or a form error.
"""

from datetime import date

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from ..derived import translation_status
from ..moderation import translations
from ..shared.languages import CONTENT_LANGUAGE_CODES, native_name

LINK_CHOICES_LIMIT = 300  # entries offered in the link select before a search is needed


class LinkForm(forms.Form):
    """Choose the entry to link: unlinked entries of the same game, grouped by language.

    The select offers the candidates (capped, narrowed by a search), but the POSTed id
    is checked by ``rules.moderation.translations.link`` and not against the choices, so that every
    refusal (same language, a language already linked, an entry with versions of its
    own) comes with its own reason.
    """

    other = forms.IntegerField(label=_("Entry"), widget=forms.Select)

    def __init__(self, *args, candidates, **kwargs):
        super().__init__(*args, **kwargs)
        grouped: dict[str, list] = {}
        for candidate in candidates[:LINK_CHOICES_LIMIT]:
            label = f"{candidate} ({candidate.get_status_display()})"
            grouped.setdefault(native_name(candidate.language), []).append((candidate.pk, label))
        self.fields["other"].widget.choices = [("", "---------"), *grouped.items()]


class UpToDateForm(forms.Form):
    """Which linked version the entry is a translation of (its original by default)."""

    original = forms.TypedChoiceField(label=_("Translated from"), coerce=int)

    def __init__(self, *args, choices, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["original"].choices = [
            (version.pk, f"{version} ({native_name(version.language)}, {version.get_status_display()})")
            for version in choices
        ]


@admin.action(description=_("Mark the selected translations up to date with their original"), permissions=["change"])
def mark_up_to_date(modeladmin, request, queryset):
    """Each selected entry that is a translation now matches its original's current text."""
    marked, skipped = 0, 0
    with transaction.atomic():
        for entry in queryset.select_related("translation_of"):
            if entry.translation_of is None:
                skipped += 1
                continue
            translations.mark_up_to_date(entry, request.user)
            marked += 1
    if marked:
        modeladmin.message_user(
            request,
            ngettext("%(count)d translation marked up to date.", "%(count)d translations marked up to date.", marked)
            % {"count": marked},
            messages.SUCCESS,
        )
    if skipped:
        modeladmin.message_user(
            request,
            ngettext(
                "%(count)d entry has no recorded original: mark it from its translations panel.",
                "%(count)d entries have no recorded original: mark each from its translations panel.",
                skipped,
            )
            % {"count": skipped},
            messages.WARNING,
        )


class TranslationsAdmin:
    """EntryAdmin's part: the panel's context and the three confirmation pages."""

    translation_templates = {
        "start": "admin/rules/entry/translations_start.html",
        "link": "admin/rules/entry/translations_link.html",
        "unlink": "admin/rules/entry/translations_unlink.html",
        "up_to_date": "admin/rules/entry/translations_up_to_date.html",
    }

    def get_urls(self):
        # Before super()'s URLs, whose "<path:object_id>/" would take these paths.
        app_label, model_name = self.model._meta.app_label, self.model._meta.model_name
        wrap = self.admin_site.admin_view
        return [
            path(
                "<int:object_id>/translations/start/<str:language>/",
                wrap(self.translation_start_view),
                name=f"{app_label}_{model_name}_translation_start",
            ),
            path(
                "<int:object_id>/translations/link/",
                wrap(self.translation_link_view),
                name=f"{app_label}_{model_name}_translation_link",
            ),
            path(
                "<int:object_id>/translations/unlink/<int:other_id>/",
                wrap(self.translation_unlink_view),
                name=f"{app_label}_{model_name}_translation_unlink",
            ),
            path(
                "<int:object_id>/translations/up-to-date/",
                wrap(self.translation_up_to_date_view),
                name=f"{app_label}_{model_name}_translation_up_to_date",
            ),
        ] + super().get_urls()

    # --- the panel ------------------------------------------------------------------

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None and obj.pk is not None and not add:
            rows = translations.translation_panel(obj)
            context["entry_translations"] = {
                "entry": obj,
                "rows": rows,
                "linked": any(row.entries and not row.is_current for row in rows),
                "can_add": self.has_add_permission(request),
                "can_change": self.has_change_permission(request, obj),
            }
        return super().render_change_form(request, context, add=add, change=change, form_url=form_url, obj=obj)

    # --- the pages ------------------------------------------------------------------

    def _translatable_entry(self, request, object_id):
        """The entry, if the user may change it; 404 for an id outside their games."""
        entry = self.get_queryset(request).select_related("game", "parent").filter(pk=object_id).first()
        if entry is None:
            raise Http404(gettext("No such entry."))
        if not self.has_change_permission(request, entry):  # scoping: the entry's game too
            raise PermissionDenied
        return entry

    def _translation_page(self, request, name: str, entry, title: str, **context):
        return TemplateResponse(
            request,
            self.translation_templates[name],
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "original": entry,
                "entry": entry,
                "title": title,
                "change_url": reverse("admin:rules_entry_change", args=[entry.pk]),
                **context,
            },
        )

    def translation_start_view(self, request, object_id, language):
        entry = self._translatable_entry(request, object_id)
        if not self.has_add_permission(request):
            raise PermissionDenied
        if language not in CONTENT_LANGUAGE_CODES or language == entry.language:
            raise Http404(gettext("No such language."))
        change_url = reverse("admin:rules_entry_change", args=[entry.pk])
        if request.method == "POST":
            try:
                draft = translations.start_translation(entry, language, request.user)
            except translations.TranslationError as error:
                messages.error(request, str(error))
                return redirect(change_url)
            self.log_addition(request, draft, [{"added": {}}])
            messages.success(
                request,
                gettext("The %(language)s draft of “%(title)s” was created: translate its text, then publish it.")
                % {"language": native_name(language), "title": entry},
            )
            return redirect("admin:rules_entry_change", draft.pk)
        suggested, unmatched = translations.see_also_suggestions(entry, language)
        parent = translations.version_in(entry.parent, language) if entry.parent_id else None
        return self._translation_page(
            request,
            "start",
            entry,
            gettext("Start the %(language)s translation") % {"language": native_name(language)},
            language=language,
            language_name=native_name(language),
            existing=translations.version_in(entry, language),
            suggested_see_also=suggested,
            unmatched_see_also=unmatched,
            parent_version=parent,
        )

    def translation_link_view(self, request, object_id):
        entry = self._translatable_entry(request, object_id)
        query = " ".join(request.GET.get("q", "").split())[:100]
        candidates = translations.link_candidates(entry).select_related("game")
        if query:
            candidates = candidates.filter(title__icontains=query)
        form = LinkForm(request.POST if request.method == "POST" else None, candidates=candidates)
        if request.method == "POST" and form.is_valid():
            other = self.get_queryset(request).filter(pk=form.cleaned_data["other"]).first()
            if other is None:
                form.add_error("other", gettext("There is no such entry in your games."))
            elif not self.has_change_permission(request, other):
                raise PermissionDenied
            else:
                try:
                    translations.link(entry, other, request.user)
                except translations.TranslationError as error:
                    form.add_error("other", str(error))
                else:
                    message = gettext("Linked as a translation of “%(title)s”.") % {"title": entry}
                    self.log_change(request, other, message)
                    messages.success(
                        request,
                        gettext("“%(other)s” is now the %(language)s version of “%(title)s”.")
                        % {"other": other, "language": native_name(other.language), "title": entry},
                    )
                    return redirect("admin:rules_entry_change", entry.pk)
        return self._translation_page(
            request,
            "link",
            entry,
            gettext("Link an existing entry as a translation"),
            form=form,
            query=query,
            candidate_count=candidates.count(),
            limit=LINK_CHOICES_LIMIT,
        )

    def translation_unlink_view(self, request, object_id, other_id):
        entry = self._translatable_entry(request, object_id)
        other = translations.linked_versions(entry).filter(pk=other_id).first()
        if other is None:
            raise Http404(gettext("That entry is not linked to this one."))
        if not self.has_change_permission(request, other):
            raise PermissionDenied
        if request.method == "POST":
            translations.unlink(entry, other, request.user)
            self.log_change(request, other, gettext("Unlinked from “%(title)s”.") % {"title": entry})
            messages.success(
                request,
                gettext("“%(other)s” is no longer linked to “%(title)s”.") % {"other": other, "title": entry},
            )
            return redirect("admin:rules_entry_change", entry.pk)
        return self._translation_page(request, "unlink", entry, gettext("Unlink a translation"), other=other)

    def translation_up_to_date_view(self, request, object_id):
        entry = self._translatable_entry(request, object_id)
        choices = translations.original_choices(entry)
        if not choices:
            raise Http404(gettext("This entry has no linked versions."))
        form = UpToDateForm(
            request.POST if request.method == "POST" else None,
            choices=choices,
            initial={"original": entry.translation_of_id},
        )
        if request.method == "POST" and form.is_valid():
            original = next(version for version in choices if version.pk == form.cleaned_data["original"])
            try:
                translations.mark_up_to_date(entry, request.user, original)
            except translations.TranslationError as error:
                form.add_error("original", str(error))
            else:
                message = gettext("Marked up to date with “%(title)s”.") % {"title": original}
                self.log_change(request, entry, message)
                messages.success(
                    request,
                    gettext("“%(title)s” is marked up to date with the %(language)s original, “%(original)s”.")
                    % {"title": entry, "language": native_name(original.language), "original": original},
                )
                return redirect("admin:rules_entry_change", entry.pk)
        status = translation_status.current(entry)
        return self._translation_page(
            request,
            "up_to_date",
            entry,
            gettext("Up to date with the original?"),
            form=form,
            original=entry.translation_of,
            status=status,
            checked_on=date.fromisoformat(status["checked_on"]) if status and status["checked_on"] else None,
        )
