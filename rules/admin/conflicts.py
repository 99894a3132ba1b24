"""Two moderators editing the same item: the later save is refused, nothing is lost.

The change form carries a hidden ``_edit_version``: the id of the item's newest
historical record when the form was rendered (add forms carry nothing). On save, the
form's ``clean()`` locks the item's row (``select_for_update``, inside the transaction
the admin's ``changeform_view`` opens, so the lock holds until the save commits) and
compares: if a newer version exists, someone saved in between and the save is refused
with an error at the top of the form naming who and when, and their change as a
readable diff (your version → the current one, ``admin/moderated/edit_conflict.html``).
The moderator's typed text stays in the form, and the re-rendered form carries the
current version, so pressing save again is a deliberate overwrite and goes through.

Decisions:

- A POST without the token (a program, not a rendered form) is not checked: every form
  the admin renders has it, and refusing would break scripted admin posts for no gain.
- The lock makes two simultaneous saves of one row queue up on PostgreSQL; SQLite
  ignores ``select_for_update`` but allows one writer at a time, so the window there
  is the few milliseconds between the check and the write.
- "Save as new" creates a new item and is never a conflict.
- An item deleted while someone edits it: Django would redirect with "does not exist"
  and drop the typed text. Instead the moderator sees who deleted it and when, and every
  field they submitted, ready to copy, with a link to the deleted item's history.
"""

from django import forms
from django.contrib.admin.utils import unquote
from django.core.exceptions import ValidationError
from django.http import Http404
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from ..content import history as history_service

VERSION_FIELD = "_edit_version"


class EditVersionFormMixin(forms.Form):
    """Adds the version token to a ModelForm and refuses a save over a newer version."""

    _edit_version = forms.IntegerField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.edit_conflict = None
        if not self.is_bound and self.instance.pk is not None:
            latest = history_service.latest_version(self.instance)
            self.initial[VERSION_FIELD] = latest.history_id if latest else None

    def clean(self):
        cleaned = super().clean()
        token = self.cleaned_data.get(VERSION_FIELD)
        if self.instance.pk is None or token is None:
            return cleaned
        model = type(self.instance)
        # Lock the row until the admin's transaction ends: a second save waits here.
        history_service.lock(self.instance)
        newer = self.instance.history.filter(history_id__gt=token).order_by("history_date", "history_id")
        latest = newer.last()
        if latest is None:
            return cleaned
        self.edit_conflict = _conflict(self.instance, token, list(newer), latest)
        self.add_error(
            None,
            ValidationError(
                _(
                    "%(who)s changed this %(item)s on %(when)s, after you opened it. Their change is "
                    "shown above and your text is still in the form: compare, then save again to "
                    "replace their version with yours."
                ),
                code="edit_conflict",
                params={
                    "who": self.edit_conflict["who"],
                    "when": self.edit_conflict["when"],
                    "item": model._meta.verbose_name,
                },
            ),
        )
        # The next save of this form is a deliberate overwrite of the current version.
        data = self.data.copy()
        data[self.add_prefix(VERSION_FIELD)] = str(latest.history_id)
        self.data = data
        return cleaned


def _conflict(obj, token: int, newer: list, latest) -> dict:
    """Who changed ``obj`` since version ``token``, when, and what (token → latest)."""
    base = obj.history.filter(history_id=token).first() or history_service.previous_version(newer[0])
    names = list(dict.fromkeys(history_service.who(record) for record in newer))
    return {
        "who": ", ".join(names),
        "when": history_service.when(latest),
        "versions": newer,
        "changes": history_service.changes_between(base, latest) if base else [],
    }


class EditConflictAdmin:
    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if request.method == "POST" and object_id is not None and "_saveasnew" not in request.POST:
            pk = unquote(object_id)
            try:
                gone = not self.model._default_manager.filter(pk=pk).exists()
            except (ValueError, ValidationError):
                gone = False  # a malformed id: Django's own handling answers
            if gone:
                return self._deleted_while_editing(request, pk)
        return super().changeform_view(request, object_id, form_url, extra_context)

    def _deleted_while_editing(self, request, pk):
        """The submitted fields of an item someone deleted meanwhile: nothing is lost."""
        deletion = self.model.history.filter(**{self.model._meta.pk.attname: pk}, history_type="-").first()
        if deletion is None or not self.has_view_or_change_permission(request, deletion.instance):
            raise Http404
        form = self.get_form(request, None, change=False)(request.POST)
        submitted = [
            (field.label, request.POST.get(field.html_name, ""))
            for field in form
            if not field.is_hidden and request.POST.get(field.html_name, "").strip()
        ]
        opts = self.model._meta
        context = {
            **self.admin_site.each_context(request),
            "opts": opts,
            "title": _("This %(item)s was deleted while you were editing it") % {"item": opts.verbose_name},
            "who": history_service.who(deletion),
            "when": history_service.when(deletion),
            "submitted": submitted,
            "item": str(deletion.instance),
            "pk": pk,
        }
        return TemplateResponse(request, "admin/moderated/deleted_while_editing.html", context, status=409)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if issubclass(form, EditVersionFormMixin):
            return form
        return type(form.__name__, (EditVersionFormMixin, form), {})

    def get_fields(self, request, obj=None):
        # The token is rendered by edit_conflict.html, not as a field of a fieldset.
        return [name for name in super().get_fields(request, obj) if name != VERSION_FIELD]

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        adminform = context.get("adminform")
        form = getattr(adminform, "form", None)
        if isinstance(form, EditVersionFormMixin) and not add:
            context["edit_version_field"] = form[VERSION_FIELD]
            context["edit_conflict"] = form.edit_conflict
        return super().render_change_form(request, context, add=add, change=change, form_url=form_url, obj=obj)
