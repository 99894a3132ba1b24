"""Players' suggestions for the rules text, and the addresses moderators blocked.

A suggestion is not content: it is never public, never in the change journal, the
history or the content version (no trigger watches its table), so submitting one
empties no cached page. It becomes content only when a moderator accepts it, through
the one write path (``rules.moderation.suggestions.accept``).
"""

import secrets

from django.conf import settings
from django.core.validators import MaxLengthValidator
from django.db import models
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from ..shared.languages import CONTENT_LANGUAGES

# Size limits (characters): the form's, the model's and the service's.
COMMENT_MAX_LENGTH = 4_000
PROPOSAL_MAX_LENGTH = 50_000
EMAIL_MAX_LENGTH = 254


def new_token() -> str:
    """The private part of a status page's address: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


class Suggestion(models.Model):
    """A player's report or proposed correction of one entry, erratum or FAQ answer."""

    class TargetType(models.TextChoices):
        ENTRY = "entry", _("entry")
        ERRATUM = "erratum", _("erratum")
        QUESTION = "question", _("FAQ answer")

    class Kind(models.TextChoices):
        TYPO = "typo", _("Typo")
        WRONG_RULE = "wrong_rule", _("Wrong or outdated rule")
        TRANSLATION = "translation", _("Translation")
        CROSS_REFERENCE = "cross_reference", _("Missing or wrong cross-reference")
        OTHER = "other", _("Other")

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        ACCEPTED = "accepted", _("Accepted")
        REJECTED = "rejected", _("Rejected")
        WITHDRAWN = "withdrawn", _("Withdrawn")
        DUPLICATE = "duplicate", _("Duplicate")

    # What it is about: a row of Entry, Erratum or faq's Question (no foreign key: three
    # models, one of them another app's; ``rules.moderation.suggestions.target_of``).
    target_type = models.CharField(_("about"), max_length=16, choices=TargetType.choices)
    target_id = models.PositiveBigIntegerField(_("item id"))
    game = models.ForeignKey("rules.Game", on_delete=models.CASCADE, related_name="suggestions", verbose_name=_("game"))
    language = models.CharField(_("language"), max_length=8, choices=CONTENT_LANGUAGES)

    kind = models.CharField(_("kind of problem"), max_length=16, choices=Kind.choices)
    # A TextField's max_length is the form's alone: the validators make full_clean check it.
    comment = models.TextField(
        _("comment"), max_length=COMMENT_MAX_LENGTH, validators=[MaxLengthValidator(COMMENT_MAX_LENGTH)]
    )
    proposal = models.TextField(
        _("proposed text"),
        max_length=PROPOSAL_MAX_LENGTH,
        blank=True,
        validators=[MaxLengthValidator(PROPOSAL_MAX_LENGTH)],
    )
    # The item's text and history version when the player opened the form: what the
    # proposal was made against (a moderator's three-way view; ``stale``).
    seen_text = models.TextField(_("text the player saw"), blank=True)
    seen_version = models.PositiveBigIntegerField(_("version the player saw"), null=True, blank=True)
    # Word diffs (safe HTML from ``rules.shared.diffing``, every piece escaped), computed
    # once and stored, never on a page view: what the player saw → their proposal, made
    # by ``suggestions.submit`` (the status page and the review page show it); and, for
    # the review page, the item's text as it was last reviewed (``diffed_text_sha256``:
    # the SHA-256 of that text) compared both ways, made by ``suggestion_queue`` at most
    # once per text. Written only by that code, never from a form.
    seen_to_proposal_diff = models.TextField(blank=True, editable=False)
    diffed_text_sha256 = models.CharField(max_length=64, blank=True, editable=False)
    seen_to_current_diff = models.TextField(blank=True, editable=False)
    current_to_proposal_diff = models.TextField(blank=True, editable=False)
    # Never shown publicly: the status mails go there.
    email = models.EmailField(_("e-mail address"), max_length=EMAIL_MAX_LENGTH, blank=True)
    # The UI language the player wrote in: their status page and mails speak it.
    ui_language = models.CharField(_("player's language"), max_length=8, blank=True)
    token = models.CharField(max_length=64, unique=True, default=new_token, editable=False)

    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.OPEN)
    reason = models.TextField(_("moderator's reason"), blank=True)
    duplicate_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="duplicates",
        verbose_name=_("duplicate of"),
    )
    # HMAC-SHA256 of the client's address with SECRET_KEY (``suggestions.address_hash``):
    # the limits and a block use it; the address itself is never stored.
    address_hash = models.CharField(max_length=64, blank=True, db_index=True, editable=False)

    created_at = models.DateTimeField(_("sent"), auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("suggestion")
        verbose_name_plural = _("suggestions")
        indexes = [
            # The moderators' queue (open first, per game) and an item's suggestions.
            models.Index(fields=["status", "game", "created_at"], name="suggestion_queue"),
            models.Index(fields=["target_type", "target_id", "status"], name="suggestion_target"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()} ({self.target_type} {self.target_id})"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    def get_absolute_url(self) -> str:
        """The private status page, in the player's language."""
        with translation.override(self.ui_language or settings.LANGUAGE_CODE):
            return reverse("rules:suggestion", kwargs={"token": self.token})


class BlockedAddress(models.Model):
    """A client address (its hash) whose suggestions are refused."""

    address_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    note = models.CharField(_("note"), max_length=300, blank=True)

    class Meta:
        verbose_name = _("blocked address")
        verbose_name_plural = _("blocked addresses")

    def __str__(self) -> str:
        return self.address_hash[:12]
