"""The typo vocabulary (rules.search.fuzzy): a table kept at index time, filled here
from the search documents an existing database already has."""

from django.db import migrations, models

BATCH = 2000


def fill(apps, schema_editor):
    from rules.search.fuzzy import Changes

    SearchDocument = apps.get_model("rules", "SearchDocument")
    SearchWord = apps.get_model("rules", "SearchWord")
    alias = schema_editor.connection.alias
    changes = Changes()
    rows = SearchDocument.objects.using(alias).order_by("pk").values_list("language", "names", "body_text")
    for language, names, body_text in rows.iterator(chunk_size=BATCH):
        changes.add(language, names, body_text)
    SearchWord.objects.using(alias).bulk_create(
        [
            SearchWord(language=language, field=field, folded=folded, word=word[:100], document_count=count)
            for (language, field, folded), (count, word) in changes.totals().items()
        ],
        batch_size=BATCH,
    )


class Migration(migrations.Migration):

    dependencies = [
        ('rules', '0005_stored_html'),
    ]

    operations = [
        migrations.CreateModel(
            name='SearchWord',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('language', models.CharField(max_length=8)),
                ('field', models.CharField(max_length=5)),
                ('folded', models.CharField(max_length=100)),
                ('word', models.CharField(max_length=100)),
                ('document_count', models.IntegerField()),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('language', 'field', 'folded'), name='unique_search_word')],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
