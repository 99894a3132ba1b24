# FAQ questions and their links change their game's token too (rules 0026_game_versions).

from django.db import migrations

from rules.content import version as content_version


def watch(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    content_version.run_sql(schema_editor, content_version.watch_games_sql(vendor, content_version.FAQ_TABLES))


def unwatch(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    content_version.run_sql(schema_editor, content_version.unwatch_games_sql(vendor, content_version.FAQ_TABLES))


class Migration(migrations.Migration):
    dependencies = [
        ("faq", "0003_import_visibility"),
        ("rules", "0026_game_versions"),
    ]

    operations = [migrations.RunPython(watch, unwatch)]
