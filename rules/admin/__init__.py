"""The moderators' workspace: every edit is recorded (django-simple-history) and revertible.

Each ModelAdmin is ``base.ModeratedAdmin`` (game scoping, edit conflicts, readable
history and revert) plus what its model needs; the concerns live in sibling modules.
"""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from ..models import CrossReference, Entry, Erratum, Game, Source
from .actions import STATUS_ACTIONS
from .base import ModeratedAdmin
from .importing import import_urls
from .preview import MarkdownPreviewAdmin
from .translations import TranslationsAdmin


@admin.register(Game)
class GameAdmin(ModeratedAdmin):
    list_display = ["name", "slug", "publisher", "year"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Source)
class SourceAdmin(ModeratedAdmin):
    list_display = ["title", "game", "language", "kind", "version", "official"]
    list_filter = ["game", "language", "kind", "official"]
    search_fields = ["title"]


class CrossReferenceInline(admin.TabularInline):
    """Read-only: see-also labels are edited in the entry's "see also" field."""

    model = CrossReference
    fk_name = "entry"
    fields = ["label", "target", "in_body"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = _("cross-references (resolved automatically)")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Entry)
class EntryAdmin(TranslationsAdmin, MarkdownPreviewAdmin, ModeratedAdmin):
    list_display = ["__str__", "game", "language", "kind", "status", "is_fragment", "updated_at"]
    list_filter = ["status", "game", "language", "kind", "is_fragment"]
    search_fields = ["title", "slug", "body"]
    list_select_related = ["game"]
    raw_id_fields = ["parent", "source"]
    inlines = [CrossReferenceInline]
    actions = STATUS_ACTIONS
    fieldsets = [
        (None, {"fields": ["game", "language", "title", "slug", "aliases", "status"]}),
        (_("Text"), {"fields": ["body", "see_also"]}),
        (_("Structure"), {"fields": ["kind", "number", "parent", "order", "is_fragment"]}),
        (_("Source"), {"fields": ["source", "page", "translation_key"]}),
    ]

    def get_urls(self):
        # "Import a document" (upload, dry-run preview, confirm); listed before the
        # default URLs, where "<path:object_id>/" would take "import/".
        return import_urls(self) + super().get_urls()


@admin.register(Erratum)
class ErratumAdmin(MarkdownPreviewAdmin, ModeratedAdmin):
    list_display = ["title", "game", "language", "kind", "status", "published_on"]
    list_filter = ["status", "game", "language", "kind"]
    search_fields = ["title", "corrected_text", "original_text"]
    filter_horizontal = ["affects"]
    raw_id_fields = ["source"]
    actions = STATUS_ACTIONS
