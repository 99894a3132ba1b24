from django.contrib.admin.apps import AdminConfig


class RulesiteAdminConfig(AdminConfig):
    """The stock admin app, with the moderators' site (worklists, activity) as ``admin.site``."""

    default_site = "rulesite.admin_site.RulesiteAdminSite"
