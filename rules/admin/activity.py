"""The activity page (``/admin/activity/``, ``admin:activity``): who changed what, when.

The log itself is ``rules.moderation.activity``; this module only checks who may read it, reads the
filters and renders one page.

- Staff see the types they may view (view or change permission on the model); a user
  who may view none gets 403.
- Game moderators see only their games' activity (``rules.moderation.permissions``), and the game
  filter offers only those games.
- Filter values that make no sense (an unknown user, a game out of reach, a typed-in
  type) are reported on the page and ignored; a bad page number shows the nearest page.
"""

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, path, reverse
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from ..content.models import Game
from ..moderation import activity
from ..moderation.permissions import editable_games, edits_every_game

PER_PAGE = 50


def visible_kinds(user) -> list[str]:
    """The types whose changes ``user`` may read."""
    kinds = []
    for kind in activity.TRACKED:
        opts = activity.model_for(kind)._meta
        if user.has_perm(f"{opts.app_label}.view_{opts.model_name}") or user.has_perm(
            f"{opts.app_label}.change_{opts.model_name}"
        ):
            kinds.append(kind)
    return kinds


class ActivityFilterForm(forms.Form):
    user = forms.ChoiceField(label=_("User"), required=False)
    type = forms.ChoiceField(label=_("Type"), required=False)
    game = forms.TypedChoiceField(label=_("Game"), required=False, coerce=int, empty_value=None)

    def __init__(self, data, *, kinds: list[str], games):
        super().__init__(data)
        users = get_user_model()._default_manager.filter(is_staff=True).order_by("username")
        self.fields["user"].choices = [
            ("", _("All users")),
            (activity.NO_USER, _("No user (imports, scripts)")),
            *((str(u.pk), u.get_full_name() or u.get_username()) for u in users),
        ]
        self.fields["type"].choices = [
            ("", _("All types")),
            *((kind, capfirst(activity.model_for(kind)._meta.verbose_name_plural)) for kind in kinds),
        ]
        self.fields["game"].choices = [
            ("", _("All games")),
            *((g.pk, g.name) for g in games.order_by("name")),
        ]

    def filters(self) -> dict:
        """The valid filters only: a bad value is shown as an error and otherwise ignored."""
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        user = data.get("user") or None
        return {
            "user": user if user in (None, activity.NO_USER) else int(user),
            "kind": data.get("type") or None,
            "game": data.get("game"),
        }


def admin_url(change) -> str | None:
    if not change.exists:
        return None
    opts = change.model._meta
    try:
        return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[change.object_id])
    except NoReverseMatch:  # a model without an admin
        return None


def activity_view(request, site):
    kinds = visible_kinds(request.user)
    if not kinds:
        raise PermissionDenied
    scope = None if edits_every_game(request.user) else editable_games(request.user)
    games = scope if scope is not None else Game.objects.all()
    form = ActivityFilterForm(request.GET, kinds=kinds, games=games)
    filters = form.filters()
    queryset = activity.changes(
        kinds=[filters["kind"]] if filters["kind"] else kinds,
        games=scope.values("pk") if scope is not None else None,
        user=filters["user"],
        game=filters["game"],
    )
    page = Paginator(queryset, PER_PAGE).get_page(request.GET.get("page"))
    changes = activity.rows(page.object_list)
    for change in changes:
        change.admin_url = admin_url(change)
    context = {
        **site.each_context(request),
        "title": _("Activity"),
        "form": form,
        "page_obj": page,
        "changes": changes,
        "page_range": page.paginator.get_elided_page_range(page.number),
    }
    return TemplateResponse(request, "admin/activity.html", context)


def activity_urls(site) -> list:
    return [path("activity/", site.admin_view(lambda request: activity_view(request, site)), name="activity")]
