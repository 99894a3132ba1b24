"""Stored HTML for entries and errata (rules.derived.rendering), and the content version with
the triggers that bump it on every write to public content (rules.content.version).

The HTML of existing rows is rendered after ``migrate`` (``RulesConfig.ready``)."""

from django.db import migrations, models

from rules.content import version as content_version


def create_content_version(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    content_version.run_sql(schema_editor, content_version.create_table_sql(vendor))
    content_version.run_sql(schema_editor, content_version.watch_sql(vendor, content_version.WATCHED_TABLES))


def drop_content_version(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    content_version.run_sql(schema_editor, content_version.unwatch_sql(vendor, content_version.WATCHED_TABLES))
    content_version.run_sql(schema_editor, content_version.drop_table_sql(vendor))


class Migration(migrations.Migration):

    dependencies = [
        ('rules', '0004_moderator_groups'),
    ]

    operations = [
        migrations.AddField(
            model_name='entry',
            name='body_html',
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.AddField(
            model_name='entry',
            name='html_fingerprint',
            field=models.CharField(blank=True, editable=False, max_length=32),
        ),
        migrations.AddField(
            model_name='erratum',
            name='corrected_html',
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.AddField(
            model_name='erratum',
            name='diff_html',
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.AddField(
            model_name='erratum',
            name='html_fingerprint',
            field=models.CharField(blank=True, editable=False, max_length=32),
        ),
        migrations.RunPython(create_content_version, drop_content_version),
    ]
