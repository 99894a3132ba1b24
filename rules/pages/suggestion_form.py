"""The form a player fills to report a problem or suggest a correction.

Every field has a limit (the model's) with an error that says it; a NUL byte is an
error too (Django's). Two traps for scripts, neither seen by people:

- **a honeypot**, ``website``: a text field hidden from sight and from screen readers
  (and labelled "Leave this field empty" for anyone who reaches it anyway). The view
  refuses a form that fills it, storing nothing (``filled_honeypot``).
- **a minimum fill time**: ``started`` is a stamp of the time the form was shown,
  signed, so it cannot be forged or moved; sending or previewing less than
  ``MIN_FILL_SECONDS`` after it is a form error (a person reads the message and sends
  again; a preview too: it is the form's expensive half, see ``suggestion_limits``).

**The stamp belongs to one item and one visitor, for an hour.** Besides the time it
names the item the form was shown for (``item_key``: its kind and id) and the visitor
it was shown to: an HMAC of their CSRF cookie's secret (``visitor_of``; readers have no
session, but every visitor of the form has that cookie, which the POST needs anyway,
and the HMAC keeps the secret itself out of the page). It is checked against the item
and the cookie of the request that sends it, so one stamp no longer serves a script
for every item and every connection it drives, and it lives ``MAX_FORM_AGE`` (an hour:
a person writing a long correction has time enough, a stolen or shared stamp is soon
worthless; it was a day). A stamp that does not fit, expired, for another item or from
another browser session, is a form error that says so; the text typed is kept, the
page comes back with a new stamp, and sending again (after the minimum fill time)
goes through. Stamps from before this change (a bare time) read as damaged.

``seen_version`` is the history version of the text the form was prefilled with: the
proposal was made against that text, whatever happened to the item meanwhile (the
service takes published versions only: ``suggestions.text_at``).
"""

import time

from django import forms
from django.core import signing
from django.middleware.csrf import get_token
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from ..moderation.models import COMMENT_MAX_LENGTH, EMAIL_MAX_LENGTH, PROPOSAL_MAX_LENGTH, Suggestion

MIN_FILL_SECONDS = 3
MAX_FORM_AGE = 60 * 60
STARTED_SALT = "rules.pages.suggestions.started"
VISITOR_SALT = "rules.pages.suggestions.visitor"
HONEYPOT = "website"

TOO_LONG = ngettext_lazy(
    "This is too long: use at most %(limit_value)d character (it has %(show_value)d).",
    "This is too long: use at most %(limit_value)d characters (it has %(show_value)d).",
    "limit_value",
)
UNREADABLE = _("This form could not be read. Reload the page and try again.")


def item_key(target_type: str, target_id: int) -> str:
    """What a stamp names of the item: its kind and id ("entry:12")."""
    return f"{target_type}:{target_id}"


def visitor_of(request) -> str:
    """The visitor's CSRF secret: the one their cookie holds, or the new one the
    response will set (``get_token`` makes it when there is none)."""
    get_token(request)
    return request.META.get("CSRF_COOKIE", "")


def _visitor_digest(visitor: str) -> str:
    return salted_hmac(VISITOR_SALT, visitor, algorithm="sha256").hexdigest()[:32]


def started_stamp(item: str, visitor: str, now: float | None = None) -> str:
    """The signed stamp of a form shown for ``item`` (``item_key``) to ``visitor``
    (``visitor_of``) at ``now``."""
    payload = {"t": int(time.time() if now is None else now), "i": item, "v": _visitor_digest(visitor)}
    return signing.dumps(payload, salt=STARTED_SALT, compress=False)


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

    def __init__(
        self, *args, item: str, visitor: str, ask_email: bool = True, text_language: str = "", **kwargs
    ):
        """``item`` and ``visitor``: what a stamp must name to be taken (``started_stamp``)."""
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.item, self.visitor = item, visitor
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

    def new_stamp(self) -> str:
        """A stamp of now, for this form's item and visitor."""
        return started_stamp(self.item, self.visitor)

    def started_or_new(self) -> str:
        """The stamp to show the form again with: the one it was shown with, unless that
        was not valid (expired, damaged, another item's or visitor's), when the form
        starts again now."""
        if self.is_bound and not self.has_error("started") and self.data.get("started"):
            return self.data["started"]
        return self.new_stamp()

    def clean_started(self):
        try:
            stamp = signing.loads(self.cleaned_data["started"], salt=STARTED_SALT)
        except signing.BadSignature as error:
            raise forms.ValidationError(UNREADABLE, code="bad") from error
        if not (isinstance(stamp, dict) and isinstance(stamp.get("t"), int) and {"i", "v"} <= stamp.keys()):
            raise forms.ValidationError(UNREADABLE, code="bad")  # a stamp from before it named an item
        if stamp["i"] != self.item:
            raise forms.ValidationError(
                _(
                    "This form was opened for another item. "
                    "Check that your text is meant for this one, then send it again."
                ),
                code="other_item",
            )
        if not constant_time_compare(str(stamp["v"]), _visitor_digest(self.visitor)):
            raise forms.ValidationError(
                _("This form was opened in another browser session. Check your text and send it again."),
                code="other_visitor",
            )
        if time.time() - stamp["t"] > MAX_FORM_AGE:
            raise forms.ValidationError(
                _("This form was open for too long. Check your text and send it again."), code="expired"
            )
        return stamp["t"]

    def clean(self):
        cleaned = super().clean()
        started = cleaned.get("started")
        if isinstance(started, int) and time.time() - started < MIN_FILL_SECONDS:
            raise forms.ValidationError(
                _("That was very quick. Take a moment to check your suggestion, then send it again."),
                code="too_fast",
            )
        return cleaned
