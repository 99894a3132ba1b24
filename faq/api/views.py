from django.db.models import Prefetch
from rest_framework.viewsets import ReadOnlyModelViewSet

from faq.models import Question
from rules.api.stored import StoredListMixin
from rules.api.views import APIv1Settings, published_entries
from rules.derived.models import FeedKind, PublicItem

from .filters import QuestionFilter
from .serializers import QuestionSerializer


class QuestionViewSet(StoredListMixin, APIv1Settings, ReadOnlyModelViewSet):
    """Published FAQ questions and their answers, looked up by id."""

    stored_kind = FeedKind.QUESTION  # the list, from each question's stored JSON (rules.api.stored)
    serializer_class = QuestionSerializer
    filterset_class = QuestionFilter

    def get_queryset(self):
        return (
            Question.objects.published()
            .annotate(public_updated_at=PublicItem.changed_at_of(FeedKind.QUESTION))
            # game and source joined in: no query per question for its game slug, page
            # URL or source summary.
            .select_related("game", "source")
            # related_entries: one query for the page instead of one per question,
            # already limited to published entries.
            .prefetch_related(
                Prefetch(
                    "related_entries",
                    queryset=published_entries(),
                    to_attr="published_related_entries",
                )
            )
            .order_by("game__name", "language", "order", "question", "pk")
        )
