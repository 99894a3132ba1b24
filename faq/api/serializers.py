from rest_framework import serializers

from faq.models import Question
from rules.api.serializers import (
    EntrySummarySerializer,
    PageURLField,
    SourceSummarySerializer,
    UpdatedAtField,
)
from rules.derived.rendering import absolute_links


# related_entries reads the viewset's published_related_entries prefetch.
class QuestionSerializer(serializers.ModelSerializer):
    """A FAQ question, its answer (a ruling) and the entries it is about."""

    url = serializers.HyperlinkedIdentityField(view_name="api:faq-detail")
    html_url = PageURLField()
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    answer_html = serializers.SerializerMethodField(help_text="The answer rendered and sanitised.")
    related_entries = EntrySummarySerializer(
        source="published_related_entries", many=True, read_only=True
    )
    source = SourceSummarySerializer(read_only=True, allow_null=True)
    updated_at = UpdatedAtField()

    class Meta:
        model = Question
        fields = [
            "id", "url", "html_url", "game", "language", "question", "slug", "answer",
            "answer_html", "topic", "related_entries", "source", "page", "updated_at",
        ]  # fmt: skip

    def get_answer_html(self, question: Question) -> str:
        return absolute_links(question.answer_html, self.context["request"])
