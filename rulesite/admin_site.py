"""The moderators' admin site: Django's admin plus the worklists, the players'
suggestions and the activity log.

The pages themselves live with the content they are about (``rules.admin.worklists``,
``rules.admin.suggestions``, ``rules.admin.activity``); this class only mounts them
under ``/admin/``.
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _


class RulesiteAdminSite(admin.AdminSite):
    site_header = _("rulesite moderation")
    site_title = _("rulesite moderation")
    index_title = _("Content")

    def get_urls(self):
        from rules.admin.activity import activity_urls
        from rules.admin.suggestions import suggestion_urls
        from rules.admin.worklists import worklist_urls

        # Before the default URLs, whose "<app_label>/" pattern would take these paths.
        return worklist_urls(self) + suggestion_urls(self) + activity_urls(self) + super().get_urls()

    def index(self, request, extra_context=None):
        """The admin's front page, with the worklist counts in its "Moderation" box, the
        "Import a document" box (its game picker) and warnings about how the site runs
        (``rules.admin.operations``)."""
        from rules.admin.importing import import_games
        from rules.admin.operations import warnings
        from rules.admin.worklists import moderation_summary

        extra_context = {
            "moderation": moderation_summary(request, self),
            "operations_warnings": warnings(),
            "import_games": import_games(request, self),
            **(extra_context or {}),
        }
        return super().index(request, extra_context)
