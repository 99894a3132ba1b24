from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from rules.admin import archive, publish

from .models import Question


@admin.register(Question)
class QuestionAdmin(SimpleHistoryAdmin):
    list_display = ["question", "game", "language", "topic", "status", "updated_at"]
    list_filter = ["status", "game", "language"]
    search_fields = ["question", "answer"]
    filter_horizontal = ["related_entries"]
    raw_id_fields = ["source"]
    actions = [publish, archive]
