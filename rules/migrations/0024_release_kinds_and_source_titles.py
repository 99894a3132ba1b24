"""Change kinds as readers name them, a first release for every source, the pattern a
source's numbered rules are titled with, and "removed" in the public change feed.

- ``changed`` was two kinds: a change whose word diff inserts or deletes words is
  ``reworded``; one whose text stayed and whose title changed is ``retitled``.
- Every source with items and no release gets its release "as first imported"
  (``Release.initial``, sequence 0), dated by its first item, labelled with the source's
  version (or "first-import"), listing its items as added, as
  ``rules.content.releases.initial_release`` makes it for a source that gets its first
  version later (the same steps, on the migration's models).
"""

from django.db import migrations, models
from django.db.models import Min
from django.utils import timezone

from rules.content import version as content_version

# SQLite adds a column with a default by rebuilding the table, which drops its triggers:
# the content version must keep changing with every write to them (rules.content.version).
WATCHED_AGAIN = ("rules_source", *content_version.RELEASE_TABLES)

INITIAL_LABEL = "first-import"


def split_changed(apps, schema_editor):
    ReleaseChange = apps.get_model("rules", "ReleaseChange")
    changed = ReleaseChange.objects.filter(change="changed")
    changed.filter(models.Q(diff_html__contains="<ins") | models.Q(diff_html__contains="<del")).update(
        change="reworded"
    )
    changed.update(change="retitled", title_changed=True)


def join_changed(apps, schema_editor):
    ReleaseChange = apps.get_model("rules", "ReleaseChange")
    ReleaseChange.objects.filter(change__in=["reworded", "retitled"]).update(change="changed")


def initial_releases(apps, schema_editor):
    Source = apps.get_model("rules", "Source")
    Release = apps.get_model("rules", "Release")
    ReleaseChange = apps.get_model("rules", "ReleaseChange")
    Question = apps.get_model("faq", "Question")
    for source in Source.objects.filter(releases__isnull=True).order_by("pk"):
        tables = [
            ("entry", source.entries.all(), ("number", "title", "slug", "body")),
            ("erratum", source.errata.all(), (None, "title", "slug", "corrected_text")),
            ("question", Question.objects.filter(source=source), (None, "question", "slug", "answer")),
        ]
        if not any(items.exists() for _type, items, _fields in tables):
            continue
        firsts = [items.aggregate(first=Min("created_at"))["first"] for _type, items, _fields in tables]
        first = min((created for created in firsts if created), default=source.created_at)
        day = timezone.localdate(first) if timezone.is_aware(first) else first.date()
        release = Release.objects.create(
            source=source, sequence=0, version=(source.version or INITIAL_LABEL)[:100], published_on=day,
            effective_on=day, initial=True,
        )  # fmt: skip
        if first:  # among the source's releases, it comes first in time too
            Release.objects.filter(pk=release.pk).update(created_at=first)
        changes = []
        for type_, items, (number, title, slug, text) in tables:
            fields = ["pk", title, slug, text, *([number] if number else [])]
            for order, row in enumerate(items.order_by("order", "pk").values_list(*fields)):
                changes.append(
                    ReleaseChange(
                        release=release, item_type=type_, item_id=row[0], change="added", order=order,
                        number=row[4] if number else "", title=row[1][:300], slug=row[2], text=row[3],
                    )  # fmt: skip
                )
        ReleaseChange.objects.bulk_create(changes, batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ('rules', '0023_vectors_token'),
        ('faq', '0003_import_visibility'),
    ]

    operations = [
        migrations.AddField(
            model_name='historicalsource',
            name='numbered_title',
            field=models.CharField(blank=True, help_text='How an import titles a numbered rule that has no title of its own: {number} is its number, {parent} the title of its section, e.g. “Regel {number}”. Empty: “{parent} {number}”.', max_length=200, verbose_name='titles of numbered rules'),
        ),
        migrations.AddField(
            model_name='release',
            name='initial',
            field=models.BooleanField(default=False, editable=False, verbose_name='as first imported'),
        ),
        migrations.AddField(
            model_name='releasechange',
            name='previous_slug',
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.AddField(
            model_name='releasechange',
            name='successor_id',
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='releasechange',
            name='title_changed',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='releasechange',
            name='text',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='source',
            name='numbered_title',
            field=models.CharField(blank=True, help_text='How an import titles a numbered rule that has no title of its own: {number} is its number, {parent} the title of its section, e.g. “Regel {number}”. Empty: “{parent} {number}”.', max_length=200, verbose_name='titles of numbered rules'),
        ),
        migrations.AddField(
            model_name='source',
            name='readable_releases',
            field=models.JSONField(blank=True, default=list, editable=False),
        ),
        migrations.AlterField(
            model_name='releasechange',
            name='change',
            field=models.CharField(choices=[('reworded', 'reworded'), ('retitled', 're-titled'), ('renumbered', 'renumbered'), ('added', 'added'), ('removed', 'removed')], max_length=16),
        ),
        migrations.AddField(
            model_name='publicchange',
            name='release_id',
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='publicchange',
            name='action',
            field=models.CharField(choices=[('created', 'Created'), ('updated', 'Updated'), ('deleted', 'Deleted'), ('removed', 'Removed')], max_length=16),
        ),
        migrations.RunPython(content_version.watch_again(*WATCHED_AGAIN), content_version.watch_again(*WATCHED_AGAIN)),
        migrations.RunPython(split_changed, join_changed),
        migrations.RunPython(initial_releases, migrations.RunPython.noop),
    ]
