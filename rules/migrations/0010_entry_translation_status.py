import django.db.models.deletion
from django.db import migrations, models

from rules.content import version as content_version

# SQLite adds these columns by rebuilding the table, which drops its triggers: the
# content version must keep changing with every write to entries (rules.content.version).
watch_entries_again = content_version.watch_again("rules_entry")


class Migration(migrations.Migration):

    dependencies = [
        ('rules', '0009_entry_corrections'),
    ]

    operations = [
        migrations.AddField(
            model_name='entry',
            name='translation_base',
            field=models.PositiveBigIntegerField(blank=True, editable=False, help_text='The history version of the original that this translation was made from or last checked against.', null=True, verbose_name='translated from version'),
        ),
        migrations.AddField(
            model_name='entry',
            name='translation_of',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='rules.entry', verbose_name='translated from'),
        ),
        migrations.AddField(
            model_name='entry',
            name='translation_status',
            field=models.JSONField(blank=True, default=dict, editable=False),
        ),
        migrations.AddField(
            model_name='entry',
            name='translation_status_fingerprint',
            field=models.CharField(blank=True, editable=False, max_length=32),
        ),
        migrations.AddField(
            model_name='historicalentry',
            name='translation_base',
            field=models.PositiveBigIntegerField(blank=True, editable=False, help_text='The history version of the original that this translation was made from or last checked against.', null=True, verbose_name='translated from version'),
        ),
        migrations.AddField(
            model_name='historicalentry',
            name='translation_of',
            field=models.ForeignKey(blank=True, db_constraint=False, editable=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='rules.entry', verbose_name='translated from'),
        ),
        migrations.RunPython(watch_entries_again, watch_entries_again),
    ]
