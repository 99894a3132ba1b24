"""The moderators' workspace: every edit is recorded (django-simple-history) and revertible.

Each ModelAdmin is ``base.ModeratedAdmin`` (game scoping, edit conflicts, readable
history and revert) plus what its model needs; the concerns live in sibling modules.
"""

from django.contrib import admin
from django.db import models
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from ..content.models import CrossReference, Entry, Erratum, Game, Source
from .actions import STATUS_ACTIONS
from .base import ModeratedAdmin
from .forms import AboutEntriesForm, EntryAdminForm
from .importing import import_urls
from .lists import ListLayoutAdmin, game_and_language, published, status, updated
from .pickers import EntryPickerAdmin, EntryPickerUrls
from .preview import MarkdownPreviewAdmin
from .releases import ReleaseAdmin  # noqa: F401 - registers the releases admin
from .translations import TranslationsAdmin, mark_up_to_date


@admin.register(Game)
class GameAdmin(ModeratedAdmin):
    list_display = ["name", "slug", "publisher", "year"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Source)
class SourceAdmin(ModeratedAdmin):
    # A URL typed without a scheme is an https:// one (Django 6's default, chosen now).
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = ["title", "game", "language", "kind", "version", "official"]
    list_filter = ["game", "language", "kind", "official"]
    search_fields = ["title"]


class CrossReferenceInline(admin.TabularInline):
    """What each "see also" label and [[link]] resolves to (read-only: they are edited
    as text in the entry's fields and re-derived on every save)."""

    model = CrossReference
    fk_name = "entry"
    fields = ["label", "resolves_to", "in_body"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = _("cross-references (resolved automatically)")

    def get_queryset(self, request):
        # The entry too: each row is shown as "entry → label" (its __str__), and the
        # formset gives its rows the entry's id only, so it was read once a row. Of the
        # two entries only what a row shows (their __str__): an entry's stored JSON (its
        # relations, its HTML) was decoded once a row for nothing. tests/admin/
        # test_entry_editing.py holds the form's queries to the same count for any number
        # of rows (the XSS corpus's entry, 157 rows: 169 queries and 1.4-1.7 s to render
        # in the test client, 12 and 0.3 s now).
        shown = [f"{entry}__{field}" for entry in ("entry", "target") for field in ("number", "title")]
        return super().get_queryset(request).select_related("target", "entry").only("label", "order", "in_body", *shown)

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description=_("resolves to"))
    def resolves_to(self, ref):
        if ref.target_id is None:
            return _("nothing yet: wanted (published entries with this title or alias resolve it)")
        url = reverse("admin:rules_entry_change", args=[ref.target_id])
        return format_html('<a href="{}">{}</a>', url, ref.target)


@admin.register(Entry)
class EntryAdmin(ListLayoutAdmin, EntryPickerUrls, TranslationsAdmin, MarkdownPreviewAdmin, ModeratedAdmin):
    form = EntryAdminForm
    list_display = ["__str__", status, game_and_language, "kind", updated]
    list_filter = ["status", "game", "language", "kind", "is_fragment"]
    search_fields = ["title", "slug", "body"]
    list_select_related = ["game"]
    raw_id_fields = ["parent", "source"]
    # Linked and unlinked on the translations panel, never typed by hand.
    readonly_fields = ["translation_key"]
    inlines = [CrossReferenceInline]
    actions = [*STATUS_ACTIONS, mark_up_to_date]
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
class ErratumAdmin(ListLayoutAdmin, EntryPickerAdmin, MarkdownPreviewAdmin, ModeratedAdmin):
    form = AboutEntriesForm
    list_display = ["title", status, game_and_language, "kind", published]
    list_filter = ["status", "game", "language", "kind"]
    search_fields = ["title", "corrected_text", "original_text"]
    entry_picker_fields = ("affects",)
    raw_id_fields = ["source"]
    actions = STATUS_ACTIONS
