"""Moderators as the site has them: staff users in the groups the data migration made."""

import pytest
from django.contrib.auth.models import Group, User

from rules.moderation.permissions import GAME_MODERATORS_GROUP, MODERATORS_GROUP


def make_staff(username: str, group: str | None = None, games=()) -> User:
    user = User.objects.create_user(username, f"{username}@example.org", "a-long-password", is_staff=True)
    if group:
        user.groups.add(Group.objects.get(name=group))
    for game in games:
        game.moderators.add(user)
    return user


@pytest.fixture
def moderator(db) -> User:
    """A member of the Moderators group: edits every game's content."""
    return make_staff("mod", MODERATORS_GROUP)


@pytest.fixture
def moderator_client(client, moderator):
    client.force_login(moderator)
    return client


@pytest.fixture
def game_moderator_for(db):
    """``game_moderator_for(game, …)``: a Game moderators member for those games."""
    counter = iter(range(1, 1000))

    def make(*games) -> User:
        return make_staff(f"gamemod{next(counter)}", GAME_MODERATORS_GROUP, games)

    return make
