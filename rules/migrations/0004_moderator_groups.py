"""The two moderator roles as groups (see ``rules.moderation.permissions``).

- "Moderators": add, change, delete and view the content of every game (games, sources,
  entries, errata, FAQ questions) and view cross-references and old addresses. No
  permission on users, groups, sessions or anything else.
- "Game moderators": the same on sources, entries, errata and FAQ questions, and view
  and change on games; the admin limits them to the games that list them.

Permissions are normally created after ``migrate`` finishes; they are created here first
so that a fresh database has both groups complete. Running it again changes nothing.
"""

from django.db import migrations

CONTENT = {
    "rules": ["game", "source", "entry", "erratum"],
    "faq": ["question"],
}
READ_ONLY = {"rules": ["crossreference", "entryredirect"]}
EVERY_ACTION = ("add", "change", "delete", "view")


def _codenames(game_actions):
    wanted = []
    for app_label, models in CONTENT.items():
        for model in models:
            actions = game_actions if model == "game" else EVERY_ACTION
            wanted += [(app_label, f"{action}_{model}") for action in actions]
    for app_label, models in READ_ONLY.items():
        wanted += [(app_label, f"view_{model}") for model in models]
    return wanted


GROUPS = {
    "Moderators": _codenames(EVERY_ACTION),
    "Game moderators": _codenames(("change", "view")),
}


def create_groups(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, codenames in GROUPS.items():
        group, _created = Group.objects.get_or_create(name=name)
        permissions = []
        for app_label, codename in codenames:
            permissions.append(Permission.objects.get(content_type__app_label=app_label, codename=codename))
        group.permissions.add(*permissions)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("rules", "0003_moderation"),
        ("faq", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
