from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FaqConfig(AppConfig):
    name = "faq"
    verbose_name = _("FAQ")

    def ready(self) -> None:
        from rules import relations

        from .models import Question

        # An entry's page lists the published questions about it (rules.relations).
        relations.connect_item(Question, Question.related_entries)
