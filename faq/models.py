"""FAQ questions and their answers (rulings)."""

import uuid

from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from rules.content import entry_links
from rules.content.models import (
    HELD_BY_IMPORT,
    RENDERED_FIELDS,
    STATUS_CHOICES,
    Entry,
    Game,
    Source,
    held_by_import_field,
    held_by_import_index,
    unique_slug_for,
)
from rules.content.querysets import PublishableQuerySet, Status
from rules.shared.languages import CONTENT_LANGUAGES
from rules.shared.text import normalize_text_fields


class Question(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="faq_questions", verbose_name=_("game"))
    language = models.CharField(_("language"), max_length=8, choices=CONTENT_LANGUAGES)
    question = models.CharField(_("question"), max_length=500)
    slug = models.SlugField(_("slug"), max_length=200, blank=True)
    answer = models.TextField(_("answer"), help_text=_("Markdown."))
    # Rendered when written (rules.derived.rendering), and what it was rendered from.
    answer_html = models.TextField(blank=True, editable=False)
    html_fingerprint = models.CharField(max_length=32, blank=True, editable=False)
    topic = models.CharField(_("topic"), max_length=200, blank=True)
    order = models.PositiveIntegerField(_("order"), default=0)
    source = models.ForeignKey(
        Source, on_delete=models.SET_NULL, null=True, blank=True, related_name="faq_questions", verbose_name=_("source")
    )
    page = models.CharField(_("page"), max_length=32, blank=True)
    related_entries = models.ManyToManyField(
        Entry, blank=True, related_name="faq_questions", verbose_name=_("related entries")
    )
    status = models.CharField(_("status"), max_length=16, choices=STATUS_CHOICES, default=Status.DRAFT, db_index=True)
    held_by_import = held_by_import_field()
    translation_key = models.UUIDField(_("translation key"), default=uuid.uuid4, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    history = HistoricalRecords(
        excluded_fields=["updated_at", HELD_BY_IMPORT, *RENDERED_FIELDS["question"]], m2m_fields=[related_entries]
    )
    objects = PublishableQuerySet.as_manager()

    class Meta:
        ordering = ["game", "language", "order", "question"]
        verbose_name = _("FAQ question")
        verbose_name_plural = _("FAQ questions")
        constraints = [
            models.UniqueConstraint(fields=["game", "language", "slug"], name="unique_question_slug"),
        ]
        indexes = [held_by_import_index("question_held_by_import")]

    def __str__(self) -> str:
        return self.question

    def save(self, *args, **kwargs) -> None:
        normalize_text_fields(self, ["answer"])
        if not self.slug:
            self.slug = unique_slug_for(self, self.question)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("faq:list", kwargs={"game": self.game.slug}) + f"#{self.slug}"


# A question relates to entries of its own game and language only (rules.content.entry_links).
entry_links.guard(Question.related_entries)
