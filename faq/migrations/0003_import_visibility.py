"""FAQ questions a large import is still writing stay drafts until its last batch, as
entries and errata do (rules 0021_import_visibility)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('faq', '0002_stored_html'),
        ('rules', '0021_import_visibility'),
    ]

    operations = [
        migrations.AddField(
            model_name='question',
            name='held_by_import',
            field=models.UUIDField(blank=True, editable=False, help_text='Set while an import that publishes this item is still writing; published when it ends.', null=True, verbose_name='held back by import'),
        ),
        migrations.AddIndex(
            model_name='question',
            index=models.Index(condition=models.Q(('held_by_import__isnull', False)), fields=['held_by_import'], name='question_held_by_import'),
        ),
    ]
