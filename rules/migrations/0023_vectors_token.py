# The vectors' token beside the content version (rules.content.version.VECTOR_TABLES):
# changed by every write to semantic search's vectors, read in the same row as the
# version, so cached search answers are keyed by the vectors they used. Additive: code
# from before it reads the same row's other columns and never writes vectors_token.

from django.db import migrations

from rules.content import version as content_version


def watch(apps, schema_editor):
    content_version.run_sql(schema_editor, content_version.watch_vectors_sql(schema_editor.connection.vendor))


def unwatch(apps, schema_editor):
    content_version.run_sql(schema_editor, content_version.unwatch_vectors_sql(schema_editor.connection.vendor))


class Migration(migrations.Migration):
    dependencies = [
        ("rules", "0022_built_files_missing_and_worker_heartbeat"),
    ]

    operations = [migrations.RunPython(watch, unwatch)]
