"""The form a player fills to report a problem or suggest a correction.

Every field has a limit (the model's) with an error that says it; a NUL byte is an
error too (Django's). Two traps for scripts, neither seen by people:

- **a honeypot**, ``website``: a text field hidden from sight and from screen readers
  (and labelled "Leave this field empty" for anyone who reaches it anyway). The view
  refuses a form that fills it, storing nothing (``filled_honeypot``).
- **a minimum fill time**: ``started`` is the time the form was shown, signed, so it
  cannot be forged or moved; sending less than ``MIN_FILL_SECONDS`` after it is a
  form error (a person reads the message and sends again), and a form older than
  ``MAX_FORM_AGE`` asks to be sent again (its text is kept).

``seen_version`` is the history version of the text the form was prefilled with: the
proposal was made against that text, whatever happened to the item meanwhile.
"""

import time

from django import forms
from django.core import signing
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from ..moderation.models import COMMENT_MAX_LENGTH, EMAIL_MAX_LENGTH, PROPOSAL_MAX_LENGTH, Suggestion

MIN_FILL_SECONDS = 3
MAX_FORM_AGE = 24 * 60 * 60
STARTED_SALT = "rules.pages.suggestions.started"
HONEYPOT = "website"

TOO_LONG = ngettext_lazy(
    "This is too long: use at most %(limit_value)d character (it has %(show_value)d).",
    "This is too long: use at most %(limit_value)d characters (it has %(show_value)d).",
    "limit_value",
)


def started_stamp(now: float | None = None) -> str:
    """The signed time a form is shown at."""
    return signing.dumps(int(time.time() if now is None else now), salt=STARTED_SALT)


class SuggestionForm(forms.Form):
    kind = forms.ChoiceField(
        label=_("What kind of problem is it?"),
        choices=Suggestion.Kind.choices,
        widget=forms.RadioSelect,
        error_messages={"required": _("Choose what kind of problem it is.")},
    )
    comment = forms.CharField(
        label=_("What is wrong, and how do you know?"),
        help_text=_("For example the page of the printed rules, or the official FAQ."),
        max_length=COMMENT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
        error_messages={"required": _("Tell the moderators what is wrong."), "max_length": TOO_LONG},
    )
    proposal = forms.CharField(
        label=_("Proposed text (optional)"),
        help_text=_("The current text, in Markdown: change what should change, or leave it as it is."),
        max_length=PROPOSAL_MAX_LENGTH,
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "true"}),
        error_messages={"max_length": TOO_LONG},
    )
    email = forms.EmailField(
        label=_("Your e-mail address (optional)"),
        help_text=_("Only to tell you what became of your suggestion. Never shown to anyone."),
        max_length=EMAIL_MAX_LENGTH,
        required=False,
        error_messages={"max_length": TOO_LONG},
    )
    seen_version = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)
    started = forms.CharField(widget=forms.HiddenInput, max_length=200)
    website = forms.CharField(
        label=_("Leave this field empty"),
        required=False,
        max_length=200,
        widget=forms.TextInput(attrs={"autocomplete": "off", "tabindex": "-1"}),
    )

    def __init__(self, *args, sending: bool = False, ask_email: bool = True, text_language: str = "", **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.sending = sending
        if text_language:  # the proposal is in the item's language, whatever the UI's
            self.fields["proposal"].widget.attrs["lang"] = text_language
        if not ask_email:
            del self.fields["email"]

    @property
    def filled_honeypot(self) -> bool:
        return bool(self.data.get(HONEYPOT))

    def clean_proposal(self):
        # Browsers send a textarea's lines ending in CR LF; the text's end in LF.
        return self.cleaned_data["proposal"].replace("\r\n", "\n")

    def clean_comment(self):
        return self.cleaned_data["comment"].replace("\r\n", "\n")

    def started_or_new(self) -> str:
        """The stamp to show the form again with: the one it was shown with, unless that
        was not valid (expired, damaged), when the form starts again now."""
        if self.is_bound and not self.has_error("started") and self.data.get("started"):
            return self.data["started"]
        return started_stamp()

    def clean_started(self):
        try:
            started = signing.loads(self.cleaned_data["started"], salt=STARTED_SALT)
        except signing.BadSignature as error:
            raise forms.ValidationError(
                _("This form could not be read. Reload the page and try again."), code="bad"
            ) from error
        if not isinstance(started, int):
            raise forms.ValidationError(_("This form could not be read. Reload the page and try again."), code="bad")
        if time.time() - started > MAX_FORM_AGE:
            raise forms.ValidationError(
                _("This form was open for too long. Check your text and send it again."), code="expired"
            )
        return started

    def clean(self):
        cleaned = super().clean()
        started = cleaned.get("started")
        if self.sending and isinstance(started, int) and time.time() - started < MIN_FILL_SECONDS:
            raise forms.ValidationError(
                _("That was very quick. Take a moment to check your suggestion, then send it again."),
                code="too_fast",
            )
        return cleaned
