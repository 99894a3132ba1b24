# Link-preview cards of games are built files (rules.builds.card): a new kind.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rules', '0024_release_kinds_and_source_titles'),
    ]

    operations = [
        migrations.AlterField(
            model_name='builtfile',
            name='kind',
            field=models.CharField(choices=[('booklet-html', 'booklet (HTML)'), ('booklet-pdf', 'booklet (PDF)'), ('sitemap', 'sitemap of a game and language'), ('bulk-json', 'bulk data file (API)'), ('card', 'link-preview card of a game')], max_length=16),
        ),
    ]
