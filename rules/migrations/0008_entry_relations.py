from django.db import migrations, models

from rules.content import version as content_version

# SQLite adds these columns by rebuilding the table, which drops its triggers: the
# content version must keep changing with every write to entries (rules.content.version).
watch_entries_again = content_version.watch_again("rules_entry")


class Migration(migrations.Migration):
    dependencies = [
        ("rules", "0007_entry_published_in_order"),
    ]

    operations = [
        migrations.AddField(
            model_name="entry",
            name="relations",
            field=models.JSONField(blank=True, default=dict, editable=False),
        ),
        migrations.AddField(
            model_name="entry",
            name="relations_fingerprint",
            field=models.CharField(blank=True, editable=False, max_length=32),
        ),
        migrations.RunPython(watch_entries_again, watch_entries_again),
    ]
