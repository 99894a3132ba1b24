"""The base of every moderated ModelAdmin: each concern is one mixin in its own module.

- ``scoping.GameScopedAdmin``: per-game moderators see and edit only their games.
- ``conflicts.EditConflictAdmin``: a save over someone else's newer change is refused.
- ``history.ReadableHistoryAdmin``: history with readable diffs and one-step revert.
- ``reasons.ChangeReasonAdmin``: an optional "reason for this change", kept with the version.
- ``SimpleHistoryAdmin`` (django-simple-history): the history pages themselves.

Entry, Erratum and Question add ``preview.MarkdownPreviewAdmin``; Entry adds
``translations.TranslationsAdmin``.
"""

from contextlib import contextmanager

from django import forms
from simple_history.admin import SimpleHistoryAdmin

from ..content.journal import unit_of_work
from ..shared.validators import ProhibitUnstorableCharactersValidator
from .conflicts import EditConflictAdmin
from .history import ReadableHistoryAdmin
from .reasons import ChangeReasonAdmin
from .scoping import GameScopedAdmin


@contextmanager
def _writing(request):
    if request.method != "POST":
        yield
        return
    with unit_of_work():
        yield


class ModeratedAdmin(GameScopedAdmin, EditConflictAdmin, ReadableHistoryAdmin, ChangeReasonAdmin, SimpleHistoryAdmin):
    change_form_template = "admin/moderated/change_form.html"

    # One admin write (a save with its related lists, an action on many items, a bulk
    # delete, a revert) is one unit of work: its changes are recorded and derived data
    # brought up to date once, at its end, inside its transaction (rules.content.journal).
    # Only POSTs: a page that only reads takes no write lock.
    def changeform_view(self, request, *args, **kwargs):
        with _writing(request):
            return super().changeform_view(request, *args, **kwargs)

    def changelist_view(self, request, *args, **kwargs):
        with _writing(request):
            return super().changelist_view(request, *args, **kwargs)

    def delete_view(self, request, *args, **kwargs):
        with _writing(request):
            return super().delete_view(request, *args, **kwargs)

    def history_form_view(self, request, *args, **kwargs):
        with _writing(request):
            return super().history_form_view(request, *args, **kwargs)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        """Every text field (JSON ones included) refuses NUL and control characters with
        a form error: PostgreSQL would refuse NUL with a server error, feeds the rest."""
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if isinstance(field, forms.CharField):  # forms.JSONField is one too
            field.validators.append(ProhibitUnstorableCharactersValidator())
        return field
