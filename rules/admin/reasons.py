"""A reason for this change: an optional line on every change form, kept with the version.

django-simple-history stores a change reason with each version
(``history_change_reason``); imports and the translation pages write one ("import:
SOURCE", ``rules.content.history.stamp``). A moderator's edit can have one too: the change forms
of games, sources, entries, errata and FAQ questions end with "Reason for this change",
and what is written there becomes the reason of the version the save makes, shown on
the item's history page and in the activity log (``/admin/activity/``).

- Never required; a save without one records no reason, as before.
- One line of at most ``REASON_MAX_LENGTH`` (100) characters, the history column's size
  (more is a form error, never a database error); runs of white space, line breaks
  included, become one space. NUL and other control characters are refused like in every
  text field (``rules.shared.validators``).
- On change forms only: a new item's first version needs no reason, and a user who may
  only view an item gets no field.
- Nothing else is a reason: the form is empty again after each save.
"""

from django import forms
from django.core.validators import ProhibitNullCharactersValidator
from django.utils.translation import gettext, gettext_lazy

from ..content.history import REASON_MAX_LENGTH, stamp
from ..shared.validators import ProhibitUnstorableCharactersValidator

REASON_FIELD = "change_reason"


class ChangeReasonForm(forms.ModelForm):
    """The base of every moderated ModelForm: the optional reason for the change."""

    change_reason = forms.CharField(
        label=gettext_lazy("Reason for this change"),
        required=False,
        max_length=REASON_MAX_LENGTH,
        validators=[ProhibitUnstorableCharactersValidator()],
        widget=forms.TextInput(attrs={"class": "vLargeTextField", "autocomplete": "off"}),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields[REASON_FIELD]
        # One message for a NUL, the one naming where it is (not Django's as well).
        field.validators = [v for v in field.validators if not isinstance(v, ProhibitNullCharactersValidator)]
        field.help_text = gettext(
            "Optional: why you made this change, in up to %(limit)d characters (e.g. “Official FAQ 1.3, p. 4”). "
            "Shown in the history and the activity log."
        ) % {"limit": REASON_MAX_LENGTH}

    def clean_change_reason(self) -> str:
        return " ".join(self.cleaned_data[REASON_FIELD].split())


class ChangeReasonAdmin:
    """ModeratedAdmin's part: the field at the end of the change form, the reason on the version."""

    form = ChangeReasonForm

    def get_fields(self, request, obj=None):
        # Placed by get_fieldsets, in a fieldset of its own at the end.
        return [name for name in super().get_fields(request, obj) if name != REASON_FIELD]

    def get_fieldsets(self, request, obj=None):
        fieldsets = list(super().get_fieldsets(request, obj))
        if obj is None or not self.has_change_permission(request, obj):
            return fieldsets
        return [*fieldsets, (None, {"fields": [REASON_FIELD], "classes": ["change-reason"]})]

    def save_model(self, request, obj, form, change):
        reason = form.cleaned_data.get(REASON_FIELD) if change else ""
        if reason:
            stamp(obj, reason, request.user)
        try:
            super().save_model(request, obj, form, change)
        finally:
            if reason:
                del obj._change_reason  # this version's, not the next save's
