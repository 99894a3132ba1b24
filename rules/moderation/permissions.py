"""Who may edit what: the two moderator roles, in one place.

- **Moderators** (the group, created by a data migration) edit the content of every
  game: entries, errata, FAQ questions, sources and games. They cannot see or change
  users, groups or settings.
- **Game moderators** (the group) have the same model permissions, but only for the
  games that list them in ``Game.moderators``.
- Superusers may do anything.

A staff user in neither group is treated like a game moderator: limited to the games
that list them (none, unless a superuser adds them), so a forgotten role never widens
what someone may edit.
"""

from django.db.models import QuerySet

MODERATORS_GROUP = "Moderators"
GAME_MODERATORS_GROUP = "Game moderators"


def edits_every_game(user) -> bool:
    """Superusers and members of the Moderators group are not limited to some games."""
    if not (user and user.is_active and user.is_authenticated):
        return False
    if user.is_superuser:
        return True
    cached = getattr(user, "_rulesite_edits_every_game", None)
    if cached is None:
        cached = user.groups.filter(name=MODERATORS_GROUP).exists()
        user._rulesite_edits_every_game = cached
    return cached


def editable_games(user) -> QuerySet:
    """The games whose content ``user`` may edit."""
    from ..content.models import Game

    if edits_every_game(user):
        return Game.objects.all()
    if not (user and user.is_active and user.is_authenticated):
        return Game.objects.none()
    return Game.objects.filter(moderators=user)


def can_edit_game(user, game_id: int | None) -> bool:
    """Whether ``user`` may edit content of the game with ``game_id``."""
    if edits_every_game(user):
        return True
    if game_id is None:
        return False
    return editable_games(user).filter(pk=game_id).exists()
