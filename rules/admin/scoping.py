"""Per-game scoping: a game moderator sees and edits only the games that list them.

``GameScopedAdmin`` is part of every content ModelAdmin (Game, Source, Entry, Erratum,
Question). The rules themselves are ``rules.moderation.permissions`` (superusers and the
Moderators group edit every game; everyone else only the games whose ``moderators``
list them); this mixin applies them to each admin surface:

- lists, change pages, history, bulk actions and the "raw id" pop-ups all start from
  ``get_queryset``, which keeps only the user's games' rows;
- ``has_view/change/delete_permission(request, obj)`` also ask whether the object's
  game is editable, both as the object says now (a form, a history version) and as
  the database has it: an old version naming the user's game cannot open an entry
  that has since moved to another game;
- an object of another game answers 403 (``get_object``), not Django's "does not exist,
  perhaps it was deleted?" redirect, which would mislead a moderator;
- form choices (the ``game`` field and every FK/M2M to a Source or Entry) offer only
  editable games' rows, and validation refuses any other id, so a hand-made POST cannot
  move an entry into another game or link another game's entry;
- only users who edit every game may add games; only superusers change who moderates a
  game (``Game.moderators``): moderators edit content, not users or settings.

Users who edit every game take none of these paths beyond one cached group check.
"""

from django.contrib.admin import RelatedOnlyFieldListFilter
from django.core.exceptions import PermissionDenied, ValidationError

from ..content.models import Game
from ..moderation.permissions import editable_games, edits_every_game

_CACHE_ATTRIBUTE = "_rulesite_editable_game_ids"


def game_id_of(obj) -> int | None:
    """The game an object belongs to (a game belongs to itself)."""
    if isinstance(obj, Game):
        return obj.pk
    return getattr(obj, "game_id", None)


def is_game_scoped(model) -> bool:
    """Whether rows of ``model`` belong to a game (and so are scoped)."""
    if model is Game:
        return True
    return any(f.name == "game" and f.is_relation for f in model._meta.concrete_fields)


class GameScopedAdmin:
    # --- whom the limits apply to -------------------------------------------------

    def is_limited_to_some_games(self, request) -> bool:
        return not edits_every_game(request.user)

    def editable_game_ids(self, request) -> frozenset:
        """The ids of the games the user may edit, looked up once per request."""
        ids = getattr(request, _CACHE_ATTRIBUTE, None)
        if ids is None:
            ids = frozenset(editable_games(request.user).values_list("pk", flat=True))
            setattr(request, _CACHE_ATTRIBUTE, ids)
        return ids

    def _may_edit_game_of(self, request, obj) -> bool:
        if not self.is_limited_to_some_games(request):
            return True
        allowed = self.editable_game_ids(request)
        if game_id_of(obj) not in allowed:
            return False
        if obj.pk is None:
            return True
        # The object may be an old version (history, revert): the stored row counts too.
        stored_game = self._stored_game_id(request, obj.pk)
        return stored_game is None or stored_game in allowed

    def _stored_game_id(self, request, pk) -> int | None:
        """The game of the stored row ``pk`` (None if gone), looked up once per request."""
        cache = request.__dict__.setdefault("_rulesite_stored_game_ids", {})
        key = (self.model._meta.label, pk)
        if key not in cache:
            column = "pk" if self.model is Game else "game_id"
            cache[key] = self.model._default_manager.filter(pk=pk).values_list(column, flat=True).first()
        return cache[key]

    # --- rows ---------------------------------------------------------------------

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if not self.is_limited_to_some_games(request):
            return queryset
        ids = self.editable_game_ids(request)
        if self.model is Game:
            return queryset.filter(pk__in=ids)
        return queryset.filter(game_id__in=ids)

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None and self.is_limited_to_some_games(request):
            model = self.model
            field = model._meta.pk if from_field is None else model._meta.get_field(from_field)
            try:
                value = field.to_python(object_id)
            except ValidationError:
                return None
            if model._default_manager.filter(**{field.name: value}).exists():
                raise PermissionDenied  # it exists, in a game this user does not moderate
        return obj

    # --- permissions --------------------------------------------------------------

    def has_view_permission(self, request, obj=None):
        allowed = super().has_view_permission(request, obj)
        return allowed and (obj is None or self._may_edit_game_of(request, obj))

    def has_change_permission(self, request, obj=None):
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or self._may_edit_game_of(request, obj))

    def has_delete_permission(self, request, obj=None):
        allowed = super().has_delete_permission(request, obj)
        return allowed and (obj is None or self._may_edit_game_of(request, obj))

    def has_add_permission(self, request, *args, **kwargs):
        if not super().has_add_permission(request, *args, **kwargs):
            return False
        if not self.is_limited_to_some_games(request):
            return True
        if self.model is Game:
            return False  # a new game is not one of "their" games yet
        return bool(self.editable_game_ids(request))

    # --- forms --------------------------------------------------------------------

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if self.model is Game and not request.user.is_superuser and "moderators" not in fields:
            fields.append("moderators")
        return fields

    def _scoped_choices(self, request, db_field, kwargs) -> None:
        if not self.is_limited_to_some_games(request) or "queryset" in kwargs:
            return
        related = db_field.related_model
        if related is None or not is_game_scoped(related):
            return
        queryset = self.get_field_queryset(None, db_field, request)
        if queryset is None:
            queryset = related._default_manager.all()
        ids = self.editable_game_ids(request)
        kwargs["queryset"] = (
            queryset.filter(pk__in=ids) if related is Game else queryset.filter(game_id__in=ids)
        )

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        self._scoped_choices(request, db_field, kwargs)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        self._scoped_choices(request, db_field, kwargs)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    # --- the changelist -----------------------------------------------------------

    def get_list_filter(self, request):
        """The game filter lists only the games the user sees rows of."""
        filters = list(super().get_list_filter(request))
        if not self.is_limited_to_some_games(request):
            return filters
        return [("game", RelatedOnlyFieldListFilter) if f == "game" else f for f in filters]
