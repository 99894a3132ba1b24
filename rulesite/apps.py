from django.contrib.admin.apps import AdminConfig


class RulesiteAdminConfig(AdminConfig):
    """The stock admin app, with the moderators' site (worklists, activity) as ``admin.site``;
    the project's own app config (the one ``rulesite`` entry in ``INSTALLED_APPS``), so it
    also registers the project's system checks (``rulesite.checks``)."""

    default_site = "rulesite.admin_site.RulesiteAdminSite"

    def ready(self) -> None:
        super().ready()
        from rules.derived.pipeline import finished

        from . import checks  # noqa: F401 - registers the project's system checks
        from .shared_version import forget_after_commit

        # With Redis, the content tokens kept beside the pages go when a unit commits.
        finished.connect(forget_after_commit, dispatch_uid="rulesite.shared_version")
