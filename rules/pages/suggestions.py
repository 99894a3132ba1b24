"""The players' side of suggestions: the form on an item, and the private status page.

Thin views over ``rules.moderation.suggestions`` (the service), its limits
(``suggestion_limits``) and the form (``suggestion_form``). URLs:

- an entry: its own address + ``suggest/`` (``?content=`` as on its page picks the
  version in a language the UI does not show);
- an erratum: ``games/<game>/errata/<slug>/suggest/``; a FAQ answer:
  ``games/<game>/faq/<slug>/suggest/`` (faq's URLconf): the erratum or question of
  that slug in the content language its list page shows;
- the status page: ``suggestions/<token>/``.

Never cached, by anyone (``private_page``): these views declare no query parameters,
so the response cache passes them by, and every response is ``private, no-store``:
the form holds a CSRF token, the status page a private address. Both say
``noindex``; the status page sends ``Referrer-Policy: same-origin`` so its address
leaks to no other site. Not ``no-referrer``: with it, browsers send ``Origin: null``
with the page's own "Withdraw" POST, which Django's CSRF check rightly refuses (the
browser test caught it); this site, the only one that gets the address in a
``Referer``, holds it anyway. Only published items: anything else is a 404.

A blocked address gets a 403 page that says suggestions cannot be sent from its
connection, not that it was blocked (nor by whom, nor since when): telling a spammer
which of their addresses still works helps only them, and a person wrongly caught
learns what to do. The same page, with 429 and "try again in N minutes", when a limit
is reached (sends and previews have limits of their own, ``suggestion_limits``). A
filled honeypot is answered 400 with a plain "could not be sent". The form's stamp is
bound to the item and the visitor's CSRF secret (``suggestion_form``).
"""

from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _

from rulesite.client_ip import client_ip

from ..content.addresses import CONTENT_PARAMETER
from ..content.querysets import Status
from ..moderation import suggestion_limits, suggestions
from ..moderation.models import Suggestion
from ..moderation.suggestion_mail import mail_enabled
from ..shared.capacity import Busy
from .http import private_page
from .page_context import game_context, game_name
from .suggestion_form import SuggestionForm, item_key, visitor_of

TargetType = Suggestion.TargetType


@private_page
def suggest_entry(request, game, slug):
    """An entry's form: the version in ``?content=``'s language, else the UI's, else
    the first by language (as the entry's page picks, without its redirect)."""
    candidates = suggestions.published_targets(TargetType.ENTRY, game, slug)
    if not candidates:
        raise Http404("No such entry")
    by_language = {candidate.language: candidate for candidate in candidates}
    wanted = request.GET.get(CONTENT_PARAMETER)
    target = by_language.get(wanted) or by_language.get(translation.get_language()) or candidates[0]
    return _suggest(request, target)


@private_page
def suggest_erratum(request, game, slug):
    return _suggest(request, _listed(TargetType.ERRATUM, game, slug))


@private_page
def suggest_question(request, game, slug):
    return _suggest(request, _listed(TargetType.QUESTION, game, slug))


def _listed(target_type: str, game: str, slug: str):
    """The published item with ``slug`` in the content language of its list page."""
    language = game_context(game)["content_language"]
    target = next((t for t in suggestions.published_targets(target_type, game, slug) if t.language == language), None)
    if target is None:
        raise Http404("No such item")
    return target


def _suggest(request, target):
    address = client_ip(request)
    if suggestions.is_blocked(address):
        return _refused(request, 403)
    target_type = suggestions.target_type_of(target)
    form_for = {
        "item": item_key(target_type, target.pk),
        "visitor": visitor_of(request),
        "ask_email": mail_enabled(),
        "text_language": target.language,
    }
    if request.method != "POST":
        seen_text, seen_version = suggestions.text_at(target, None)
        form = SuggestionForm(initial={"proposal": seen_text, "seen_version": seen_version}, **form_for)
        return _form_page(request, target, form, form.new_stamp())

    form = SuggestionForm(request.POST, **form_for)
    if form.filled_honeypot:
        return _refused(request, 400)
    if not form.is_valid():
        return _form_page(request, target, form, form.started_or_new())
    data = form.cleaned_data
    digest = suggestions.address_hash(address)
    if request.POST.get("action") == "preview":
        refusal = suggestion_limits.take_preview(digest)
        if refusal is not None:
            return _refused(request, 429, minutes=refusal.minutes, previews=True)
        try:
            diff = suggestions.preview_diff(target, data["proposal"])
        except Busy as busy:
            return _busy(request, target, form, busy)
        return _form_page(request, target, form, form.started_or_new(), preview=True, diff=diff)

    refusal = suggestion_limits.take(digest, target_type, target.pk)
    if refusal is not None:
        return _refused(request, 429, minutes=refusal.minutes)
    seen_text, seen_version = suggestions.text_at(target, data["seen_version"])
    try:
        suggestion = suggestions.submit(
            target,
            kind=data["kind"],
            comment=data["comment"],
            proposal=data["proposal"],
            email=data.get("email", ""),
            address=address,
            seen_text=seen_text,
            seen_version=seen_version,
            ui_language=translation.get_language(),
        )
    except suggestions.Blocked:
        return _refused(request, 403)
    except Busy as busy:
        return _busy(request, target, form, busy)
    except ValidationError as error:  # the form checks the same limits; this guards a drift
        for field, messages in error.message_dict.items():
            form.add_error(field if field in form.fields else None, messages)
        return _form_page(request, target, form, form.started_or_new())
    return redirect(suggestion.get_absolute_url())


def _form_page(request, target, form, started: str, *, preview=False, diff=None):
    context = {
        "target": target,
        "target_type": suggestions.target_type_of(target),
        "target_url": suggestions.public_url(target),
        "game": target.game,
        "game_name": game_name(target.game),
        "content_language": target.language,
        "form": form,
        "started": started,
        "preview": preview,
        "diff": diff,
    }
    response = render(request, "rules/suggest.html", context)
    response["X-Robots-Tag"] = "noindex"
    return response


def _busy(request, target, form, busy: Busy):
    """Other strangers' diffs hold every place (``suggestions.STRANGERS_DIFFS``): the form
    again, the text kept, a 503 with ``Retry-After``."""
    form.add_error(None, _("Too many suggestions are being checked right now. Wait a moment, then try again."))
    response = _form_page(request, target, form, form.started_or_new())
    response.status_code = 503
    response["Retry-After"] = str(busy.retry_after)
    return response


def _refused(request, status: int, minutes: int | None = None, previews: bool = False):
    """The 400, 403 and 429 pages of the form (see the module docstring)."""
    if status == 429 and previews:
        message = translation.ngettext(
            "Too many previews from your connection; try again in %(minutes)d minute.",
            "Too many previews from your connection; try again in %(minutes)d minutes.",
            minutes,
        ) % {"minutes": minutes}
    elif status == 429:
        message = translation.ngettext(
            "Too many suggestions from your connection; try again in %(minutes)d minute.",
            "Too many suggestions from your connection; try again in %(minutes)d minutes.",
            minutes,
        ) % {"minutes": minutes}
    elif status == 403:
        message = _(
            "Suggestions cannot be sent from your connection at the moment. "
            "If you think this is a mistake, try again later from another connection."
        )
    else:
        message = _("Your suggestion could not be sent.")
    response = render(request, "rules/suggestion_refused.html", {"message": message}, status=status)
    response["X-Robots-Tag"] = "noindex"
    if status == 429:
        response["Retry-After"] = str(minutes * 60)
    return response


@private_page
def suggestion_status(request, token):
    """The private status page of one suggestion; a POST with ``withdraw`` withdraws it."""
    suggestion = get_object_or_404(Suggestion.objects.select_related("game"), token=token)
    if request.method == "POST":
        if request.POST.get("action") == "withdraw":
            try:
                suggestions.withdraw(suggestion)
            except suggestions.NotOpen:
                pass  # withdrawn twice, or decided meanwhile: the page says which
        return redirect(request.path)
    target = suggestions.target_of(suggestion)
    published = target is not None and target.status == Status.PUBLISHED
    context = {
        "suggestion": suggestion,
        "target": target,
        "target_url": suggestions.public_url(target) if published else "",
        "diff": suggestions.stored_diff(suggestion),  # computed once, when it was sent
        "game": suggestion.game,
        "game_name": game_name(suggestion.game),
    }
    response = render(request, "rules/suggestion_status.html", context)
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "same-origin"  # not no-referrer: see the module docstring
    return response
