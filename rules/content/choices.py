"""Choices that models and the stored relations both name (``rules.content.stored`` reads an
erratum's kind without importing the content model)."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class ErratumKind(models.TextChoices):
    CORRECTION = "correction", _("Correction")
    CLARIFICATION = "clarification", _("Clarification")
    RULE_CHANGE = "rule_change", _("Rule change")


# The label of a release "as first imported" when its source had no version then
# (rules.content.releases.initial_release); shown as "as first imported".
INITIAL_RELEASE_LABEL = "first-import"


def release_label(version: str, initial: bool) -> str:
    """A release's version as readers see it: a release "as first imported" without a
    version of its own says so in the reader's language."""
    if initial and version == INITIAL_RELEASE_LABEL:
        return str(_("as first imported"))
    return version
