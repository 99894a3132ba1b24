"""Import a document from the admin: upload or paste → dry-run preview → import or cancel.

The preview is a real dry run of the importer (it writes and rolls back), so it shows
exactly what the import would do. Between the preview and the confirmation the
document's bytes wait in the moderator's session under a random token, not in the page:

- a session is server-side (database-backed here), so the confirmation imports the very
  bytes that were previewed and nothing the browser sends back can swap them;
- a PDF round-tripped through a hidden field would travel twice more, grow by a third as
  base64, and hit Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB of non-file form data)
  on the way back;
- the token is single-use (taken out of the session on import or cancel), and each
  preview has its own, so two previews in two tabs don't mix.

The bytes are compressed before they go into the session, and only the few newest
previews are kept, so an abandoned preview costs little and does not pile up.

Per-game scoping (``rules.permissions``): the game list offers only the games the user
may edit, a new game can be created here only by users who edit every game, and the
confirmation checks the game again (a role may change between preview and import).
"""

import base64
import secrets
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import PurePath

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.core.exceptions import FieldDoesNotExist, PermissionDenied
from django.shortcuts import redirect, render
from django.template.defaultfilters import filesizeformat
from django.urls import path, reverse
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from ..diffing import word_diff_html
from ..importing import ImportOptions, ImportRulesError, import_document
from ..importing.pipeline import SourceInfo
from ..languages import CONTENT_LANGUAGE_CODES, CONTENT_LANGUAGES
from ..models import Entry, Erratum, Game, Source
from ..permissions import can_edit_game, editable_games, edits_every_game
from ..validators import ProhibitUnstorableCharactersValidator

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
SESSION_KEY = "rules_import_pending"
PENDING_LIMIT = 5  # previews kept per session; older ones are dropped

KIND_CHOICES = [
    ("auto", _("Detect automatically")),
    ("glossary", _("Glossary")),
    ("rulebook", _("Rulebook (numbered rules)")),
    ("faq", _("FAQ")),
]
# A new source's kind, from the document's kind (an existing source keeps its own).
SOURCE_KIND = {"rulebook": Source.Kind.RULEBOOK, "faq": Source.Kind.FAQ}

DETECTED_KIND_LABELS = {
    "glossary": _("glossary"),
    "rulebook": _("rulebook"),
    "faq": _("FAQ"),
    "canonical": _("canonical export"),
}
FORMAT_LABELS = {
    "text": _("plain text"),
    "markdown": _("Markdown"),
    "pdf": _("PDF"),
    "json": _("rulesite JSON export"),
}
TYPE_LABELS = {
    "game": _("game"),
    "entry": _("entry"),
    "erratum": _("erratum"),
    "question": _("FAQ question"),
    "source": _("source"),
}


# --- The form -----------------------------------------------------------------------


class ImportForm(forms.Form):
    required_css_class = "required"

    file = forms.FileField(
        label=_("File"),
        required=False,
        help_text=_("Text, Markdown, PDF or a rulesite JSON export."),
        # A hint for the browser's file chooser; the importer detects the format itself.
        widget=forms.ClearableFileInput(attrs={"accept": ".txt,.text,.md,.markdown,.pdf,.json,text/*"}),
    )
    text = forms.CharField(
        label=_("Or paste the text"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 12, "cols": 80, "class": "vLargeTextField"}),
    )
    game = forms.ModelChoiceField(
        Game.objects.order_by("name"),
        label=_("Game"),
        required=False,
        empty_label=_("(a new game)"),
    )
    new_game_slug = forms.SlugField(
        label=_("New game's slug"),
        required=False,
        max_length=100,
        help_text=_("Only for a game that is not in the list yet."),
    )
    new_game_name = forms.CharField(
        label=_("New game's name"), required=False, max_length=200, validators=[ProhibitUnstorableCharactersValidator()]
    )
    language = forms.ChoiceField(label=_("Language"), choices=CONTENT_LANGUAGES)
    kind = forms.ChoiceField(label=_("Kind"), choices=KIND_CHOICES, initial="auto")
    source_title = forms.CharField(
        label=_("Source title"),
        required=False,
        max_length=300,
        validators=[ProhibitUnstorableCharactersValidator()],
        help_text=_(
            "The document's title. Default: the file name. Use the same title for a revised "
            "edition, so its items are updated rather than added again."
        ),
        widget=forms.TextInput(attrs={"list": "import-source-titles", "class": "vTextField"}),
    )
    page = forms.CharField(
        label=_("Page"), required=False, max_length=32, validators=[ProhibitUnstorableCharactersValidator()]
    )
    prune = forms.BooleanField(
        label=_("Delete items of this source that the document no longer has"),
        required=False,
    )

    fieldsets = [
        (_("Document"), {"fields": ["file", "text"]}),
        (_("Game"), {"fields": ["game", "new_game_slug", "new_game_name"]}),
        (_("Import"), {"fields": ["language", "kind", "source_title", "page", "prune"]}),
    ]

    def __init__(self, *args, can_delete: bool = True, games=None, can_create_game: bool = True, **kwargs):
        """``games``: the games the user may import into (default all); a new game only
        with ``can_create_game`` (users who edit every game, see rules.permissions)."""
        super().__init__(*args, **kwargs)
        self.can_delete = can_delete
        self.can_create_game = can_create_game
        self.games = Game.objects.all() if games is None else games
        self.fields["game"].queryset = self.games.order_by("name")
        if not can_create_game:
            self.fields["game"].empty_label = None
            for name in ("new_game_slug", "new_game_name"):
                self.fields[name].disabled = True
                self.fields[name].help_text = _("Only moderators of every game can add a game.")
        if get_language() in CONTENT_LANGUAGE_CODES:
            self.fields["language"].initial = get_language()
        if not can_delete:
            self.fields["prune"].disabled = True
            self.fields["prune"].help_text = _(
                "You need the permission to delete entries for this."
            )

    @property
    def source_titles(self) -> list[str]:
        """Existing sources' titles, offered while typing (a <datalist>)."""
        sources = Source.objects.filter(game__in=self.games)
        return list(sources.order_by("title").values_list("title", flat=True).distinct())

    def clean_file(self):
        upload = self.cleaned_data.get("file")
        if upload and upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                _("The file is too large (%(size)s); the limit is %(limit)s."),
                params={
                    "size": filesizeformat(upload.size),
                    "limit": filesizeformat(MAX_UPLOAD_BYTES),
                },
            )
        return upload

    def clean(self):
        data = super().clean()
        upload, text = data.get("file"), data.get("text") or ""
        if upload and text.strip():
            raise forms.ValidationError(_("Upload a file or paste the text, not both."))
        if not upload and not text.strip() and "file" not in self.errors:
            raise forms.ValidationError(_("Upload a file or paste the text."))

        game, slug, name = data.get("game"), data.get("new_game_slug"), data.get("new_game_name")
        if not game and not self.can_create_game:
            if "game" not in self.errors:
                self.add_error("game", _("Choose one of the games you moderate."))
        elif game and (slug or name):
            self.add_error(
                "game", _("Choose a game from the list or give a new one, not both.")
            )
        elif not game and "new_game_slug" not in self.errors:
            if not slug:
                self.add_error("game", _("Choose a game, or give a new game's slug and name."))
            elif Game.objects.filter(slug=slug).exists():
                self.add_error(
                    "new_game_slug",
                    _("A game with this slug exists already: choose it in the list."),
                )
            elif not name:
                self.add_error("new_game_name", _("Give the new game's name."))

        if not data.get("source_title"):
            if upload:
                data["source_title"] = PurePath(upload.name).stem or upload.name
            elif text.strip():
                self.add_error(
                    "source_title", _("Give the source a title: pasted text has no file name.")
                )
        return data

    def add_import_error(self, error: ImportRulesError) -> None:
        self.add_error(None, error_text(error))

    def document(self) -> tuple[bytes, str | None]:
        """The bytes to import and their file name (None for pasted text)."""
        upload = self.cleaned_data.get("file")
        if upload:
            return b"".join(upload.chunks()), upload.name
        return self.cleaned_data["text"].encode("utf-8"), None

    def import_values(self) -> dict:
        """What the importer needs, as plain JSON-able values (they wait in the session)."""
        data = self.cleaned_data
        game = data["game"]
        return {
            "game": game.slug if game else data["new_game_slug"],
            "game_name": None if game else data["new_game_name"],
            "language": data["language"],
            "kind": data["kind"],
            "source_title": data["source_title"],
            "page": data["page"],
            "prune": bool(data["prune"]) and self.can_delete,
        }


def error_text(error: ImportRulesError) -> str:
    """The importer's own words, with the line where it has one."""
    if not error.line:
        return error.message
    return gettext("Line %(line)s: %(message)s") % {"line": error.line, "message": error.message}


def build_options(values: dict, *, dry_run: bool, user=None) -> ImportOptions:
    """The same values always give the same options: preview and import agree."""
    existing = Source.objects.filter(
        game__slug=values["game"], language=values["language"], title=values["source_title"]
    ).first()
    if existing:  # keep what the source already says about itself
        source = SourceInfo(
            title=existing.title,
            kind=existing.kind,
            version=existing.version,
            official=existing.official,
            url=existing.url,
            attribution=existing.attribution,
        )
    else:
        kind = SOURCE_KIND.get(values["kind"], Source.Kind.RULES_REFERENCE)
        source = SourceInfo(title=values["source_title"], kind=kind)
    return ImportOptions(
        game=values["game"],
        game_name=values["game_name"],
        language=values["language"],
        kind=values["kind"],
        source=source,
        page=values["page"],
        prune=values["prune"],
        dry_run=dry_run,
        user=user,  # the history versions name the moderator who imported
    )


# --- Between preview and confirmation: the session ------------------------------------


@dataclass
class PendingImport:
    data: bytes
    filename: str | None
    values: dict
    counts: dict = field(default_factory=dict)  # what the preview promised


def stash(session, pending: PendingImport) -> str:
    token = secrets.token_urlsafe(24)
    stored = dict(session.get(SESSION_KEY, {}))
    stored[token] = {
        "data": base64.b64encode(zlib.compress(pending.data)).decode("ascii"),
        "filename": pending.filename,
        "values": pending.values,
        "counts": pending.counts,
        "at": time.time(),
    }
    newest = sorted(stored.items(), key=lambda item: item[1]["at"], reverse=True)[:PENDING_LIMIT]
    session[SESSION_KEY] = dict(newest)
    return token


def take(session, token: str) -> PendingImport | None:
    """Remove the pending import from the session and return it (None if unknown)."""
    stored = dict(session.get(SESSION_KEY, {}))
    item = stored.pop(token, None)
    if item is None:
        return None
    session[SESSION_KEY] = stored
    data = zlib.decompress(base64.b64decode(item["data"]))
    return PendingImport(data, item["filename"], item["values"], item["counts"])


# --- The report, shaped for the preview table -----------------------------------------


_MODELS = {"game": Game, "entry": Entry, "erratum": Erratum, "source": Source}


def _field_label(item_type: str, name: str) -> str:
    model = _MODELS.get(item_type)
    if model is None and item_type == "question":
        from faq.models import Question

        model = Question
    try:
        return str(model._meta.get_field(name).verbose_name) if model else name
    except FieldDoesNotExist:
        return name


def counts(report) -> dict:
    by_action = Counter(outcome.action for outcome in report.outcomes)
    return {
        "created": by_action["created"],
        "updated": by_action["updated"],
        "unchanged": by_action["unchanged"],
        "deleted": by_action["deleted"],
        "repairs": len(report.repairs),
        "warnings": len(report.warnings),
    }


def summary_text(numbers: dict) -> str:
    return gettext(
        "new: %(created)s, changed: %(updated)s, unchanged: %(unchanged)s, deleted: %(deleted)s; "
        "repairs: %(repairs)s, warnings: %(warnings)s"
    ) % numbers


def preview_tables(report) -> dict:
    """ImportReport → what the preview page lists, section by section."""

    def row(outcome) -> dict:
        return {"type": TYPE_LABELS.get(outcome.type, outcome.type), "title": outcome.title}

    def diffs(outcome) -> list[dict]:
        return [
            {
                "label": _field_label(outcome.type, name),
                "diff": word_diff_html(before or "", after or "", context=12),
            }
            for name, (before, after) in outcome.changes.items()
        ]

    changed = [{**row(o), "fields": diffs(o)} for o in report.outcomes if o.action == "updated"]
    numbers = counts(report)
    return {
        "detected_kind": DETECTED_KIND_LABELS.get(report.detected_kind, report.detected_kind),
        "input_format": FORMAT_LABELS.get(report.input_format, report.input_format),
        "summary": summary_text(numbers),
        "counts": numbers,
        "created": [row(o) for o in report.outcomes if o.action == "created"],
        "changed": changed,
        "unchanged": [row(o) for o in report.outcomes if o.action == "unchanged"],
        "deleted": [row(o) for o in report.outcomes if o.action == "deleted"],
        "repairs": report.repairs,
        "warnings": report.warnings,
    }


# --- Views --------------------------------------------------------------------------

FORM_TEMPLATE = "admin/rules/import_form.html"
PREVIEW_TEMPLATE = "admin/rules/import_preview.html"


def _check_permission(request, model_admin) -> None:
    allowed = model_admin.has_add_permission(request) and model_admin.has_change_permission(request)
    if not allowed:
        raise PermissionDenied


def _check_game_scope(request, values: dict) -> None:
    """The game must still be one the user may import into (roles can change after a preview)."""
    game = Game.objects.filter(slug=values["game"]).values_list("pk", flat=True).first()
    allowed = edits_every_game(request.user) if game is None else can_edit_game(request.user, game)
    if not allowed:
        raise PermissionDenied


def describe(values: dict) -> dict:
    """The chosen game and language as a moderator names them, for the preview."""
    game = Game.objects.filter(slug=values["game"]).first()
    return {
        "game_label": game.name if game else values["game_name"],
        "new_game": game is None,
        "language_label": dict(CONTENT_LANGUAGES).get(values["language"], values["language"]),
    }


def _context(request, model_admin, **extra) -> dict:
    return {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": _("Import a document"),
        **extra,
    }


def import_view(request, model_admin):
    """The form; on a valid POST, the dry run and its preview."""
    _check_permission(request, model_admin)
    can_delete = model_admin.has_delete_permission(request)
    scope = {
        "games": editable_games(request.user),
        "can_create_game": edits_every_game(request.user),
    }
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES, can_delete=can_delete, **scope)
        if form.is_valid():
            data, filename = form.document()
            values = form.import_values()
            options = build_options(values, dry_run=True, user=request.user)
            try:
                report = import_document(data, options, filename=filename)
            except ImportRulesError as error:
                form.add_import_error(error)
            else:
                tables = preview_tables(report)
                pending = PendingImport(data, filename, values, tables["counts"])
                context = _context(
                    request,
                    model_admin,
                    token=stash(request.session, pending),
                    values=values,
                    filename=filename,
                    **describe(values),
                    **tables,
                )
                return render(request, PREVIEW_TEMPLATE, context)
    else:
        form = ImportForm(can_delete=can_delete, **scope)
    adminform = helpers.AdminForm(form, form.fieldsets, prepopulated_fields={})
    context = _context(request, model_admin, adminform=adminform, form=form, errors=form.errors)
    return render(request, FORM_TEMPLATE, context)


def confirm_view(request, model_admin):
    """Import the previewed bytes for real, or discard them."""
    _check_permission(request, model_admin)
    form_url = reverse("admin:rules_entry_import")
    if request.method != "POST":
        return redirect(form_url)
    pending = take(request.session, request.POST.get("token", ""))
    if pending is None:
        messages.error(
            request, _("This preview has expired or was used already. Upload the document again.")
        )
        return redirect(form_url)
    if "cancel" in request.POST:
        messages.info(request, _("Import cancelled: nothing was written."))
        return redirect(form_url)
    if pending.values["prune"] and not model_admin.has_delete_permission(request):
        raise PermissionDenied
    _check_game_scope(request, pending.values)
    options = build_options(pending.values, dry_run=False, user=request.user)
    try:
        report = import_document(pending.data, options, filename=pending.filename)
    except ImportRulesError as error:  # the database changed since the preview
        message = gettext("Nothing was imported: %(message)s") % {"message": error_text(error)}
        messages.error(request, message)
        return redirect(form_url)
    numbers = counts(report)
    game = Game.objects.filter(slug=pending.values["game"]).first()
    messages.success(
        request,
        gettext("Imported “%(source)s” into %(game)s: %(summary)s")
        % {
            "source": pending.values["source_title"],
            "game": game.name if game else pending.values["game"],
            "summary": summary_text(numbers),
        },
    )
    if numbers != pending.counts:
        messages.warning(
            request,
            _(
                "The result differs from the preview: someone changed these items in the "
                "meantime. Check them below."
            ),
        )
    changelist = reverse("admin:rules_entry_changelist")
    return redirect(f"{changelist}?game__id__exact={game.pk}" if game else changelist)


def import_urls(model_admin) -> list:
    """URLs for EntryAdmin.get_urls(); admin_view() requires a logged-in staff member."""
    def wrap(view):
        return model_admin.admin_site.admin_view(partial(view, model_admin=model_admin))

    return [
        path("import/", wrap(import_view), name="rules_entry_import"),
        path("import/confirm/", wrap(confirm_view), name="rules_entry_import_confirm"),
    ]
