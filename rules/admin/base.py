"""The base of every moderated ModelAdmin: each concern is one mixin in its own module.

- ``scoping.GameScopedAdmin``: per-game moderators see and edit only their games.
- ``conflicts.EditConflictAdmin``: a save over someone else's newer change is refused.
- ``history.ReadableHistoryAdmin``: history with readable diffs and one-step revert.
- ``SimpleHistoryAdmin`` (django-simple-history): the history pages themselves.

Entry, Erratum and Question add ``preview.MarkdownPreviewAdmin``; Entry adds
``translations.TranslationsAdmin``.
"""

from django import forms
from simple_history.admin import SimpleHistoryAdmin

from ..validators import ProhibitUnstorableCharactersValidator

from .conflicts import EditConflictAdmin
from .history import ReadableHistoryAdmin
from .scoping import GameScopedAdmin


class ModeratedAdmin(GameScopedAdmin, EditConflictAdmin, ReadableHistoryAdmin, SimpleHistoryAdmin):
    change_form_template = "admin/moderated/change_form.html"

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        """Every text field (JSON ones included) refuses NUL and control characters with
        a form error: PostgreSQL would refuse NUL with a server error, feeds the rest."""
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if isinstance(field, forms.CharField):  # forms.JSONField is one too
            field.validators.append(ProhibitUnstorableCharactersValidator())
        return field
