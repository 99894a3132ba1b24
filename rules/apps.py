from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RulesConfig(AppConfig):
    name = "rules"
    verbose_name = _("Rules")

    def ready(self) -> None:
        from .search.index import connect_signals

        connect_signals()  # the search index follows every save and delete
