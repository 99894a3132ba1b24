"""Players' suggestions in the admin: the queue, one review page per suggestion, blocking.

Thin views over ``rules.moderation.suggestion_queue`` (what is listed and shown, the
guarded accept) and ``rules.moderation.suggestions`` (the service every decision goes
through). Mounted by ``RulesiteAdminSite.get_urls()`` like the worklists:

- ``/admin/suggestions/`` (``admin:suggestions``): the queue, newest first, open ones by
  default; filters by status, game, language and kind (a bad value is ignored);
- ``/admin/suggestions/<id>/`` (``admin:suggestion_review``): the comment, the word diff
  between the item's text now and the proposal, or the three-way view when the item
  changed since the player saw it; its forms POST back here (``action``: accept, edit,
  reject, duplicate);
- ``/admin/suggestions/<id>/block/`` (``admin:suggestion_block``): block (or unblock) the
  address the suggestion came from, after a confirmation.

Who may do what, as on every scoped admin page (``rules.admin.scoping``):

- the queue needs the view permission on at least one kind of item (entries, errata,
  FAQ questions) and lists only the suggestions for those kinds, in the user's games;
- a suggestion of another game (or about an item that moved to one) answers 403, an
  unknown id 404;
- deciding needs the change permission on the item (its registered ``ModelAdmin``
  says so, with the game scoping), as editing it in the admin would.

No text from a suggestion is marked safe: templates print it escaped, and the diffs
come from ``rules.shared.diffing``, which escapes every piece it joins.
"""

from functools import partial

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import Truncator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ..content.querysets import Status
from ..moderation import suggestion_queue, suggestions
from ..moderation.models import PROPOSAL_MAX_LENGTH, Suggestion
from ..moderation.permissions import editable_games
from ..shared.languages import CONTENT_LANGUAGES
from ..shared.validators import ProhibitUnstorableCharactersValidator

PER_PAGE = 50
ALL = "all"


# --- who may see and act ----------------------------------------------------------------


def _model_admin(site, target_type: str):
    return site._registry.get(suggestion_queue.model_for(target_type))


def reviewable_types(request, site) -> list[str]:
    """The kinds of item whose suggestions the user may see (view permission)."""
    types = []
    for target_type in Suggestion.TargetType.values:
        model_admin = _model_admin(site, target_type)
        if model_admin is not None and model_admin.has_view_permission(request):
            types.append(target_type)
    return types


def _game_ids(request) -> frozenset:
    ids = getattr(request, "_rulesite_suggestion_game_ids", None)
    if ids is None:
        ids = frozenset(editable_games(request.user).values_list("pk", flat=True))
        request._rulesite_suggestion_game_ids = ids
    return ids


def pending_count(request, site) -> int | None:
    """Open suggestions the user may review (the dashboard's count); None: none to see."""
    types = reviewable_types(request, site)
    if not types:
        return None
    return suggestion_queue.open_count(editable_games(request.user), target_types=types)


def _reviewed(request, site, suggestion_id: int):
    """The suggestion and its review, if the user may see it: 404 unknown, 403 elsewhere."""
    suggestion = (
        Suggestion.objects.select_related("game", "decided_by", "duplicate_of").filter(pk=suggestion_id).first()
    )
    if suggestion is None:
        raise Http404(gettext("No such suggestion."))
    if suggestion.target_type not in reviewable_types(request, site) or suggestion.game_id not in _game_ids(request):
        raise PermissionDenied
    review = suggestion_queue.review(suggestion)
    model_admin = _model_admin(site, suggestion.target_type)
    if review.target is not None and not model_admin.has_view_permission(request, review.target):
        raise PermissionDenied  # the item moved to a game the user does not moderate
    return suggestion, review


def _may_decide(request, site, review) -> bool:
    """The change permission on the item (with its game), or on its kind when it is gone."""
    model_admin = _model_admin(site, review.suggestion.target_type)
    if review.target is None:
        return model_admin.has_change_permission(request)
    return model_admin.has_change_permission(request, review.target)


# --- the queue --------------------------------------------------------------------------


class QueueFilter(forms.Form):
    """The queue's query string; a value that makes no sense is ignored."""

    status = forms.ChoiceField(required=False, choices=[*Suggestion.Status.choices, (ALL, ALL)])
    game = forms.IntegerField(required=False)
    language = forms.ChoiceField(required=False, choices=CONTENT_LANGUAGES)
    kind = forms.ChoiceField(required=False, choices=Suggestion.Kind.choices)

    def __init__(self, query, games):
        super().__init__({key: query.get(key) for key in ("status", "game", "language", "kind")})
        self.is_valid()
        self.games = list(games.order_by("name"))

    def value(self, name: str):
        return self.cleaned_data.get(name) or None

    @property
    def shown_status(self) -> str | None:
        """The status shown: open by default, None for every status."""
        status = self.value("status") or Suggestion.Status.OPEN
        return None if status == ALL else status

    @property
    def selected_game(self):
        game_id = self.value("game")
        return next((game for game in self.games if game.pk == game_id), None)


def _filter_columns(request, filters: QueueFilter) -> list[dict]:
    """The filter column as the admin's change lists draw it."""
    query = request.GET.copy()
    query.pop("page", None)

    def link(key, value) -> str:
        q = query.copy()
        if value is None:
            q.pop(key, None)
        else:
            q[key] = value
        return "?" + q.urlencode() if q else "?"

    def column(title, key, selected, choices):
        return {
            "title": title,
            "choices": [{"display": gettext("All"), "selected": selected is None, "link": link(key, None)}]
            + [{"display": name, "selected": value == selected, "link": link(key, value)} for value, name in choices],
        }

    status = filters.value("status") or Suggestion.Status.OPEN
    statuses = [
        {"display": label, "selected": value == status, "link": link("status", None if value == "open" else value)}
        for value, label in Suggestion.Status.choices
    ] + [{"display": gettext("All"), "selected": status == ALL, "link": link("status", ALL)}]
    game = filters.selected_game
    return [
        {"title": gettext("status"), "choices": statuses},
        column(gettext("game"), "game", str(game.pk) if game else None, [(str(g.pk), g.name) for g in filters.games]),
        column(gettext("language"), "language", filters.value("language"), CONTENT_LANGUAGES),
        column(gettext("kind of problem"), "kind", filters.value("kind"), Suggestion.Kind.choices),
    ]


def queue_view(request, site):
    types = reviewable_types(request, site)
    if not types:
        raise PermissionDenied
    games = editable_games(request.user)
    filters = QueueFilter(request.GET, games)
    game = filters.selected_game
    rows = suggestion_queue.queue(
        games,
        target_types=types,
        status=filters.shown_status,
        game_id=game.pk if game else None,
        language=filters.value("language"),
        kind=filters.value("kind"),
    )
    page = Paginator(rows, PER_PAGE).get_page(request.GET.get("page"))
    return TemplateResponse(
        request,
        "admin/suggestions/queue.html",
        {
            **site.each_context(request),
            "title": gettext("Suggestions to review"),
            "page": page,
            "rows": suggestion_queue.with_targets(page.object_list),
            "total": page.paginator.count,
            "status": filters.shown_status,
            "filter_columns": _filter_columns(request, filters),
            "next": request.get_full_path(),
        },
    )


# --- one suggestion ---------------------------------------------------------------------


class EditAcceptForm(forms.Form):
    """"Edit then accept": the text to apply, and the item's text it was merged against."""

    text = forms.CharField(
        label=_("Text to apply"),
        widget=forms.Textarea(attrs={"rows": 14, "cols": 80}),
        strip=False,
        max_length=PROPOSAL_MAX_LENGTH,
        validators=[ProhibitUnstorableCharactersValidator()],
    )
    based_on = forms.CharField(widget=forms.HiddenInput, max_length=64)

    def clean_text(self):
        text = self.cleaned_data["text"]
        if not text.strip():
            raise forms.ValidationError(gettext("Write the text to apply."))
        return text


class RejectForm(forms.Form):
    reason = forms.ChoiceField(
        label=_("Reason"), required=False, choices=suggestion_queue.REJECTION_REASONS, widget=forms.RadioSelect
    )
    message = forms.CharField(
        label=_("In your words (the player reads it)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        max_length=suggestion_queue.REASON_MAX_LENGTH,
        validators=[ProhibitUnstorableCharactersValidator()],
    )

    def clean(self):
        data = super().clean()
        reason, message = data.get("reason"), (data.get("message") or "").strip()
        if not reason and not message and not self.errors:
            raise forms.ValidationError(gettext("Choose a reason or write one: the player reads it."))
        if reason == suggestion_queue.OTHER and not message:
            self.add_error("message", gettext("Say in a few words why: the player reads it."))
        return data


class CandidateChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj) -> str:
        words = Truncator(" ".join(obj.comment.split())).words(12)
        return f"#{obj.pk} ({obj.get_status_display()}, {obj.get_kind_display()}): {words}"


class DuplicateForm(forms.Form):
    of = CandidateChoiceField(label=_("Duplicate of"), queryset=Suggestion.objects.none(), empty_label=None)

    def __init__(self, *args, candidates, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["of"].queryset = candidates


class BlockForm(forms.Form):
    note = forms.CharField(
        label=_("Note for the moderators (optional)"),
        required=False,
        max_length=300,
        validators=[ProhibitUnstorableCharactersValidator()],
    )


def _queue_url(request) -> str:
    """Where to go back to: the queue as it was filtered (``next``), or the queue."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    queue = reverse("admin:suggestions")
    if target.startswith(queue) and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return target
    return queue


def review_view(request, site, suggestion_id: int):
    suggestion, review = _reviewed(request, site, suggestion_id)
    may_decide = _may_decide(request, site, review)
    page = {
        "review": review,
        "edit": EditAcceptForm(initial={"text": review.prefill, "based_on": review.current_digest}),
        "reject": RejectForm(),
        "duplicate": DuplicateForm(candidates=suggestion_queue.duplicate_candidates(suggestion)),
    }
    if request.method == "POST":
        if not may_decide:
            raise PermissionDenied
        action = request.POST.get("action", "")
        if action not in ("accept", "edit", "reject", "duplicate"):
            messages.error(request, gettext("Choose what to do with this suggestion."))
            return redirect(request.get_full_path())
        if not suggestion.is_open:
            messages.error(request, gettext("This suggestion was already decided or withdrawn."))
            return redirect(request.get_full_path())
        try:
            response = _decide(request, site, action, page)
        except suggestions.SuggestionError as error:
            # Stale (accepting needs the merged text), decided meanwhile, the item deleted…
            messages.error(request, str(error))
            return redirect(request.get_full_path())
        if response is not None:
            return response
    return _review_page(request, site, may_decide, page)


def _decide(request, site, action: str, page: dict):
    """Carry out one action: a redirect when done, None to show the page again (``page``
    then holds the forms with their errors, and the review as it is now)."""
    review = page["review"]
    suggestion = review.suggestion
    if action == "accept":
        suggestion_queue.accept_reviewed(suggestion, request.user)
        return _accepted(request, site, review)
    if action == "edit":
        form = page["edit"] = EditAcceptForm(request.POST)
        if not form.is_valid():
            return None
        text = form.cleaned_data["text"]
        try:
            suggestion_queue.accept_reviewed(suggestion, request.user, text, based_on=form.cleaned_data["based_on"])
        except suggestion_queue.ChangedMeanwhile as error:
            # The page again with the text as it is now, and the moderator's text kept.
            fresh = page["review"] = suggestion_queue.review(suggestion)
            form = page["edit"] = EditAcceptForm({"text": text, "based_on": fresh.current_digest})
            form.is_valid()
            form.add_error(None, str(error))
            return None
        return _accepted(request, site, review)
    if action == "reject":
        form = page["reject"] = RejectForm(request.POST)
        if not form.is_valid():
            return None
        data = form.cleaned_data
        suggestion_queue.reject_with(suggestion, request.user, data["reason"], data["message"])
        messages.success(
            request,
            gettext("Suggestion #%(number)s is rejected; the player can read why.") % {"number": suggestion.pk},
        )
        return redirect(_queue_url(request))
    form = page["duplicate"] = DuplicateForm(request.POST, candidates=suggestion_queue.duplicate_candidates(suggestion))
    if not form.is_valid():
        return None
    original = form.cleaned_data["of"]
    suggestions.mark_duplicate(suggestion, request.user, original)
    messages.success(
        request,
        gettext("Suggestion #%(number)s is marked as a duplicate of #%(original)s.")
        % {"number": suggestion.pk, "original": original.pk},
    )
    return redirect(_queue_url(request))


def _accepted(request, site, review):
    """The message after an accept, and the admin log entry for a changed item."""
    suggestion, before = review.suggestion, review.current
    target = suggestions.target_of(suggestion)
    number = suggestion.pk
    if target is not None and not suggestions.same_text(suggestions.text_of(target), before):
        _model_admin(site, suggestion.target_type).log_change(
            request, target, gettext("Text changed by accepting suggestion #%(number)s.") % {"number": number}
        )
        messages.success(
            request,
            gettext("Suggestion #%(number)s is accepted: “%(title)s” has the new text.")
            % {"number": number, "title": target},
        )
    else:
        messages.success(
            request,
            gettext("Suggestion #%(number)s is accepted; the text was not changed.") % {"number": number},
        )
    return redirect(_queue_url(request))


def _review_page(request, site, may_decide: bool, page: dict):
    review = page["review"]
    suggestion, target = review.suggestion, review.target
    target_admin = _model_admin(site, suggestion.target_type)
    opts = suggestion_queue.model_for(suggestion.target_type)._meta
    return TemplateResponse(
        request,
        "admin/suggestions/review.html",
        {
            **site.each_context(request),
            "title": gettext("Suggestion #%(number)s") % {"number": suggestion.pk},
            "suggestion": suggestion,
            "review": review,
            "target": target,
            "target_opts": opts,
            "target_change_url": (
                reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[target.pk])
                if target is not None and target_admin.has_view_permission(request, target)
                else ""
            ),
            "public_url": (
                suggestions.public_url(target) if target is not None and target.status == Status.PUBLISHED else ""
            ),
            "may_decide": may_decide and suggestion.is_open,
            "may_block": may_decide and bool(suggestion.address_hash),
            "edit_form": page["edit"],
            "reject_form": page["reject"],
            "duplicate_form": page["duplicate"],
            "next": _queue_url(request),
        },
    )


def block_view(request, site, suggestion_id: int):
    """Block (or unblock) the address a suggestion came from, after a confirmation."""
    suggestion, review = _reviewed(request, site, suggestion_id)
    if not _may_decide(request, site, review):
        raise PermissionDenied
    if not suggestion.address_hash:
        raise Http404(gettext("This suggestion has no address to block."))
    form = BlockForm(request.POST if request.method == "POST" else None)
    review_url = reverse("admin:suggestion_review", args=[suggestion.pk])
    if request.method == "POST":
        if request.POST.get("action") == "unblock":
            suggestions.unblock(suggestion.address_hash)
            messages.success(request, gettext("The address is no longer blocked: it can send suggestions again."))
            return redirect(review_url)
        if form.is_valid():
            suggestions.block(suggestion.address_hash, request.user, form.cleaned_data["note"])
            messages.success(
                request,
                gettext(
                    "The address suggestion #%(number)s came from is blocked: no more suggestions are accepted from it."
                )
                % {"number": suggestion.pk},
            )
            return redirect(_queue_url(request))
    return TemplateResponse(
        request,
        "admin/suggestions/block.html",
        {
            **site.each_context(request),
            "title": gettext("Block the sender's address"),
            "suggestion": suggestion,
            "review": review,
            "form": form,
            "review_url": review_url,
            "next": _queue_url(request),
        },
    )


def suggestion_urls(site) -> list:
    """The queue's pages; ``admin_view()`` requires a logged-in, active staff member."""

    def wrap(view):
        return site.admin_view(partial(view, site=site))

    return [
        path("suggestions/", wrap(queue_view), name="suggestions"),
        path("suggestions/<int:suggestion_id>/", wrap(review_view), name="suggestion_review"),
        path("suggestions/<int:suggestion_id>/block/", wrap(block_view), name="suggestion_block"),
    ]
