from django.contrib import admin

from rules.admin.actions import STATUS_ACTIONS
from rules.admin.base import ModeratedAdmin
from rules.admin.forms import AboutEntriesForm
from rules.admin.lists import ListLayoutAdmin, game_and_language, status, updated
from rules.admin.pickers import EntryPickerAdmin
from rules.admin.preview import MarkdownPreviewAdmin

from .models import Question


@admin.register(Question)
class QuestionAdmin(ListLayoutAdmin, EntryPickerAdmin, MarkdownPreviewAdmin, ModeratedAdmin):
    form = AboutEntriesForm
    list_display = ["question", status, game_and_language, "topic", updated]
    list_filter = ["status", "game", "language"]
    search_fields = ["question", "answer"]
    entry_picker_fields = ("related_entries",)
    raw_id_fields = ["source"]
    actions = STATUS_ACTIONS
