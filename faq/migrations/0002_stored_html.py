"""Stored HTML for answers (rules.derived.rendering), and the content-version triggers on faq's
tables (rules.content.version: faq's writes change public pages too)."""

from django.db import migrations, models

from rules.content import version as content_version


def watch(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    content_version.run_sql(schema_editor, content_version.watch_sql(vendor, content_version.FAQ_TABLES))


def unwatch(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    content_version.run_sql(schema_editor, content_version.unwatch_sql(vendor, content_version.FAQ_TABLES))


class Migration(migrations.Migration):

    dependencies = [
        ('faq', '0001_initial'),
        ('rules', '0005_stored_html'),
    ]

    operations = [
        migrations.AddField(
            model_name='question',
            name='answer_html',
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.AddField(
            model_name='question',
            name='html_fingerprint',
            field=models.CharField(blank=True, editable=False, max_length=32),
        ),
        migrations.RunPython(watch, unwatch),
    ]
