from django.contrib.admin.apps import AdminConfig


class RulesiteAdminConfig(AdminConfig):
    """The stock admin app, with the moderators' site (worklists, activity) as ``admin.site``;
    the project's own app config (the one ``rulesite`` entry in ``INSTALLED_APPS``), so it
    also registers the project's system checks (``rulesite.checks``)."""

    default_site = "rulesite.admin_site.RulesiteAdminSite"

    def ready(self) -> None:
        super().ready()
        from . import checks  # noqa: F401 - registers the project's system checks
