# A token per game beside the content version (rules.content.version, "Per game too"):
# changed by triggers on the same tables as the site's token, so a game's pages are
# keyed by their own game's writes. Additive: code from before it never reads the table,
# and the triggers only write to it.

from django.db import migrations

from rules.content import version as content_version

TABLES = (*content_version.WATCHED_TABLES, *content_version.RELEASE_TABLES)


def create(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    content_version.run_sql(schema_editor, content_version.create_game_table_sql(vendor))
    content_version.run_sql(schema_editor, content_version.watch_games_sql(vendor, TABLES))


def drop(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    content_version.run_sql(schema_editor, content_version.unwatch_games_sql(vendor, TABLES))
    content_version.run_sql(schema_editor, [f"DROP TABLE {content_version.GAME_TABLE}"])


class Migration(migrations.Migration):
    dependencies = [
        ("rules", "0025_built_file_cards"),
    ]

    operations = [migrations.RunPython(create, drop)]
