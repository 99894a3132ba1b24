from faq.models import Question
from rules.api.filters import PublishedItemFilterSet, TextFilter


class QuestionFilter(PublishedItemFilterSet):
    """Questions have no kind; their grouping is the free-text ``topic`` (exact match)."""

    topic = TextFilter(max_length=200, help_text="Exact topic, as shown on the FAQ page.")

    class Meta:
        model = Question
        fields = ["game", "language", "topic", "updated_after"]
