from django.contrib import admin

from rules.admin.actions import STATUS_ACTIONS
from rules.admin.base import ModeratedAdmin
from rules.admin.forms import AboutEntriesForm
from rules.admin.pickers import EntryPickerAdmin
from rules.admin.preview import MarkdownPreviewAdmin

from .models import Question


@admin.register(Question)
class QuestionAdmin(EntryPickerAdmin, MarkdownPreviewAdmin, ModeratedAdmin):
    form = AboutEntriesForm
    list_display = ["question", "game", "language", "topic", "status", "updated_at"]
    list_filter = ["status", "game", "language"]
    search_fields = ["question", "answer"]
    entry_picker_fields = ("related_entries",)
    raw_id_fields = ["source"]
    actions = STATUS_ACTIONS
