"""The mails a player who left an e-mail address gets about a suggestion.

One when it is sent (the link to its status page, the only way back to it) and one
when a moderator decides it (accepted, rejected with the reason, a duplicate). Plain
text, in the language the player wrote in, through Django's e-mail backend (the manual,
"Suggestions": SMTP settings; the console locally; none when no server is configured,
and then the form asks for no address: ``mail_enabled``).

A mail that cannot be sent is logged and forgotten: it never undoes the submission or
the decision (the status page says the same). A withdrawal sends nothing: the player
is on the page.
"""

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.utils import translation
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)

SUBMITTED = "submitted"
DECIDED = "decided"
NO_MAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"


def mail_enabled() -> bool:
    """Whether mails can go out at all (an e-mail address is worth asking for)."""
    return settings.EMAIL_BACKEND != NO_MAIL_BACKEND


def absolute(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def notify(suggestion, event: str, title: str, target_url: str = "") -> bool:
    """Mail the player about ``event`` (``SUBMITTED`` or ``DECIDED``) if they left an
    address; whether a mail went out. ``title`` names the item, ``target_url`` is the
    path of its page (the service's ``public_url``; "" when it is gone)."""
    if not suggestion.email or not mail_enabled():
        return False
    try:  # the message too: a mail that cannot be made is no more the player's problem than one not sent
        with translation.override(suggestion.ui_language or settings.LANGUAGE_CODE):
            subject, body = message(suggestion, event, title, target_url)
        send_mail(subject, body, None, [suggestion.email], fail_silently=False)
    except Exception:  # a mail server's failure is never the player's or moderator's
        logger.exception("Could not mail suggestion #%s (%s)", suggestion.pk, event)
        return False
    return True


def message(suggestion, event: str, title: str, target_url: str = "") -> tuple[str, str]:
    """The subject and plain-text body, in the active language."""
    status_url = absolute(suggestion.get_absolute_url())
    lines = []
    if event == SUBMITTED:
        subject = _("Your suggestion for “%(title)s”") % {"title": title}
        lines += [
            _("Thank you for your suggestion for “%(title)s”.") % {"title": title},
            "",
            _("Follow what becomes of it, or withdraw it, at this private address:"),
            status_url,
        ]
    else:
        subject = _("Your suggestion for “%(title)s”: %(status)s") % {
            "title": title,
            "status": suggestion.get_status_display(),
        }
        S = suggestion.Status
        if suggestion.status == S.ACCEPTED:
            lines.append(_("A moderator accepted your suggestion. Thank you!"))
            if target_url:
                lines.append(absolute(target_url))
        elif suggestion.status == S.REJECTED:
            lines += [_("A moderator did not accept your suggestion, for this reason:"), "", suggestion.reason]
        elif suggestion.status == S.DUPLICATE:
            lines.append(_("Someone suggested the same before you; a moderator keeps that suggestion instead."))
        lines += ["", _("Its status page:"), status_url]
    lines += ["", "-- ", _("You get this mail because you left this address with your suggestion.")]
    return subject, "\n".join(lines) + "\n"
