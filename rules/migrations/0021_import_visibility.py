"""Rows a large import is still writing stay drafts until its last batch (``held_by_import``,
rules.importing.rows, "Transactions"). Nullable, no default: an ALTER TABLE on SQLite,
which keeps the tables' content-version triggers."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rules', '0020_suggestion_diffs'),
    ]

    operations = [
        migrations.AddField(
            model_name='entry',
            name='held_by_import',
            field=models.UUIDField(blank=True, editable=False, help_text='Set while an import that publishes this item is still writing; published when it ends.', null=True, verbose_name='held back by import'),
        ),
        migrations.AddField(
            model_name='erratum',
            name='held_by_import',
            field=models.UUIDField(blank=True, editable=False, help_text='Set while an import that publishes this item is still writing; published when it ends.', null=True, verbose_name='held back by import'),
        ),
        migrations.AddIndex(
            model_name='entry',
            index=models.Index(condition=models.Q(('held_by_import__isnull', False)), fields=['held_by_import'], name='entry_held_by_import'),
        ),
        migrations.AddIndex(
            model_name='erratum',
            index=models.Index(condition=models.Q(('held_by_import__isnull', False)), fields=['held_by_import'], name='erratum_held_by_import'),
        ),
    ]
