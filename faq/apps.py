from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FaqConfig(AppConfig):
    name = "faq"
    verbose_name = _("FAQ")

    def ready(self) -> None:
        from rules.content import journal
        from rules.content.models import HELD_BY_IMPORT, RENDERED_FIELDS

        from .models import Question

        # Questions are content like entries: their writes are recorded and bring derived
        # data up to date (an entry's page lists the questions about it: rules.derived.pipeline).
        journal.watch(
            Question, journal.Change.Kind.QUESTION, ignore=(*RENDERED_FIELDS["question"], HELD_BY_IMPORT),
            links=[Question.related_entries],
        )
        # And in the API's bulk data files, as /api/v1/faq/ lists them.
        # And the list from each question's stored JSON (rules.api.stored).
        from rules.api import bulk, stored
        from rules.derived.models import FeedKind

        from .api.views import QuestionViewSet

        stored.register(FeedKind.QUESTION, QuestionViewSet)
        bulk.register("questions", QuestionViewSet)
