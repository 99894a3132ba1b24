"""Transactional tests end and start in the states Django's flush and serialized rollback
reach (tests/transactional.py), on whichever database the suite runs on."""

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from tests.factories import make_entry, make_erratum, make_game, make_question, written_together
from tests.transactional import empty_tables, restore_migrated_rows

pytestmark = pytest.mark.django_db


def rows_in_every_table() -> dict[str, int]:
    quote = connection.ops.quote_name
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        counts = {}
        for table in tables:
            cursor.execute(f"SELECT COUNT(*) FROM {quote(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def group_permissions() -> set[tuple[str, str]]:
    return set(Group.permissions.through.objects.values_list("group__name", "permission__codename"))


@written_together
def a_world():
    game = make_game(slug="flush", name="Flush")
    entry = make_entry(game=game, title="Reactions", body="A reaction is played after its trigger.")
    make_erratum(game=game, title="Timing", corrected_text="After, not before.", affects=[entry])
    make_question(game=game, question="Can I react twice?", answer="No.", related_entries=[entry])
    moderator = User.objects.create_user("moderator", password="a-long-password")
    moderator.groups.add(Group.objects.first())


def test_every_table_is_empty_after_the_end_of_a_test_as_after_djangos_flush():
    a_world()
    before = rows_in_every_table()
    emptied = empty_tables(connection)
    assert set(emptied) == {table for table, count in before.items() if count}
    assert {"rules_game", "rules_entry", "auth_user", "auth_permission"} <= set(emptied)
    assert set(rows_in_every_table().values()) == {0}


def test_the_migrated_rows_come_back_as_they_were_serialized():
    contents = connection.creation.serialize_db_to_string()
    links = group_permissions()
    assert links and ContentType.objects.exists()
    a_world()
    empty_tables(connection)
    restore_migrated_rows(connection.creation, contents)
    assert connection.creation.serialize_db_to_string() == contents
    assert group_permissions() == links  # the many-to-many rows, which are not serialized themselves
    counts = rows_in_every_table()
    restore_migrated_rows(connection.creation, contents)  # loaded already: nothing added
    assert rows_in_every_table() == counts


def test_a_partly_loaded_database_is_completed_by_djangos_own_loader():
    contents = connection.creation.serialize_db_to_string()
    links = group_permissions()
    first, second = Group.objects.order_by("name")
    first.permissions.clear()
    second.delete()
    restore_migrated_rows(connection.creation, contents)
    assert connection.creation.serialize_db_to_string() == contents
    assert group_permissions() == links
