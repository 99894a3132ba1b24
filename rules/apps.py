from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RulesConfig(AppConfig):
    name = "rules"
    verbose_name = _("Rules")

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from . import relations
        from .rendering import refresh_after_migrate
        from .search.index import connect_signals

        connect_signals()  # the search index follows every save and delete
        relations.connect_signals()  # entries show errata and deletions as they happen
        # Texts whose stored HTML is missing or out of date (a new RENDERER_VERSION, rows
        # from before HTML was stored) are rendered once the schema is complete.
        post_migrate.connect(refresh_after_migrate, sender=self)
        # Then what entries show of each other (it includes errata's stored HTML).
        post_migrate.connect(relations.refresh_after_migrate, sender=self)
