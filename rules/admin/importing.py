"""Import a document from the admin: upload or paste → preview → import or cancel, each
step run in the background (``rules.jobs``) and shown on the import's own page.

- **Upload**: the form's values and the document's bytes become an ``ImportJob`` in the
  database (not the moderator's session: a worker process reads them), and the browser
  goes to the job's page. A small document (up to ``PREVIEW_INLINE_BYTES`` and
  ``PREVIEW_INLINE_LINES``) is previewed at once, in the request, since a dry run writes
  nothing and takes a moment; a larger one is previewed by the worker while the page
  shows how far it got.
- **Preview**: what the import would create (with each item's text), change (a word
  diff), leave alone and delete, warnings first, Import and Cancel at the top and the
  bottom. It is the importer's own dry run, which writes nothing (``rules.importing.rows``).
- **Import**: always by the worker, in batches that never hold the database for long;
  the page shows the rows written so far, then what was done. The job imports the very
  bytes that were previewed; the same values always give the same options.
- **New items are drafts by default** (the form's "Status"): nothing an import creates
  reaches the site, the API or the feeds until a moderator publishes it.

Per-game scoping (``rules.moderation.permissions``): the game list offers only the games the user
may edit, a new game can be created here only by users who edit every game, and the
confirmation checks the game again (a role may change between preview and import). A
job is its moderator's: another user's job is a 404.
"""

from collections import Counter
from datetime import timedelta
from functools import partial
from pathlib import PurePath

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.core.exceptions import FieldDoesNotExist, PermissionDenied
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import filesizeformat
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from ..content.models import Entry, Erratum, Game, Source
from ..content.querysets import Status
from ..content.releases import KINDS, Release, ReleaseChange, counts_text
from ..importing import ImportRulesError
from ..importing.report import ImportReport, Outcome, Repair, Warning
from ..importing.titles import problem as numbered_title_problem
from ..jobs.models import ImportJob
from ..jobs.tasks import STAGES, preview_import, run_import
from ..moderation.permissions import can_edit_game, editable_games, edits_every_game
from ..shared.diffing import word_diff_html
from ..shared.languages import CONTENT_LANGUAGE_CODES, CONTENT_LANGUAGES
from ..shared.validators import ProhibitUnstorableCharactersValidator

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
# A preview this small is made in the request (at most a few tenths of a second for the
# worst text bench/worst_case.py found: one token repeated); a larger one by the worker.
# It was 256 KB: up to 2 s of a request thread on the worst such text. Lines count too:
# each may be an item, and 64 KiB of one word a line (10,900 lines) took 1.5 s.
PREVIEW_INLINE_BYTES = 64 * 1024
PREVIEW_INLINE_LINES = 2_000
LISTED = 1000  # items listed per section of a preview; the rest are counted
ABANDONED_AFTER = timedelta(days=1)  # a preview nobody imported or cancelled: its bytes go
REFRESH_SECONDS = 2  # the job page reloads itself while the worker runs

KIND_CHOICES = [
    ("auto", _("Detect automatically")),
    ("glossary", _("Glossary")),
    ("rulebook", _("Rulebook (numbered rules)")),
    ("faq", _("FAQ")),
]
REMOVAL_CHOICES = [
    (
        "archive",
        _("archived: no longer public, kept with their history; their pages say in which version they were removed"),
    ),
    ("delete", _("deleted for good, with their history")),
]
STATUS_CHOICES = [
    (Status.DRAFT, _("Draft: nothing new is public until published")),
    (Status.REVIEW, _("In review")),
    (Status.PUBLISHED, _("Published at once")),
]

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
KIND_LABELS = dict(ReleaseChange.Kind.choices)
OLD_KINDS = {"changed": "reworded"}  # a kind a job kept before kinds were split
TYPE_LABELS = {
    "game": _("game"),
    "entry": _("entry"),
    "erratum": _("erratum"),
    "question": _("FAQ question"),
    "source": _("source"),
}


# --- The form -----------------------------------------------------------------------


def source_label(source: Source) -> str:
    """A source as a moderator tells it from the game's others: title, language, version."""
    version = f", {source.version}" if source.version else ""
    return f"{source.title} ({dict(CONTENT_LANGUAGES).get(source.language, source.language)}{version})"


class SourceSelect(forms.Select):
    """Each source's option carries its language (``data-language``), which the form's
    script sets the language to when the source is chosen."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        source = getattr(value, "instance", None)
        if source is not None:
            option["attrs"]["data-language"] = source.language
        return option


class SourceChoiceField(forms.ModelChoiceField):
    widget = SourceSelect

    def label_from_instance(self, source) -> str:
        return source_label(source)


def game_facts(game: Game) -> dict:
    """What the form brings with a game: its main content language (the one most of its
    published items are in; else any it has), every language it has, and its sources."""
    languages = game.content_languages() or list(
        game.sources.order_by("language").values_list("language", flat=True).distinct()
    )
    names = dict(CONTENT_LANGUAGES)
    return {
        "language": languages[0] if languages else "",
        "languages": [[code, str(names.get(code, code))] for code in languages],
        "sources": [
            {"id": source.pk, "label": source_label(source), "language": source.language}
            for source in game.sources.order_by("language", "title")
        ],
    }


def starting_game(request, games):
    """The game the import form starts with: ``?game=`` (a slug or an id), else the game of
    the user's latest import, else the user's only game; None for none (a new game)."""
    asked = request.GET.get("game", "").strip()[:100]
    if asked:
        found = games.filter(slug=asked).first() or (games.filter(pk=int(asked)).first() if asked.isdigit() else None)
        if found is not None:
            return found
    latest = ImportJob.objects.filter(user=request.user).order_by("-created_at").values_list("values", flat=True)
    slug = (latest.first() or {}).get("game")
    found = games.filter(slug=slug).first() if slug else None
    if found is None and games.count() == 1:
        found = games.first()
    return found


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
    source = SourceChoiceField(
        Source.objects.none(),
        label=_("Source"),
        required=False,
        empty_label=_("(a new source)"),
        help_text=_(
            "The game's document this one is: a new version of it, or the same again (its items are updated, "
            "not added again). Its language and title are the source's."
        ),
    )
    source_title = forms.CharField(
        label=_("New source's title"),
        required=False,
        max_length=300,
        validators=[ProhibitUnstorableCharactersValidator()],
        help_text=_("For a new source: the document's title. Default: the file name."),
        widget=forms.TextInput(attrs={"list": "import-source-titles", "class": "vTextField"}),
    )
    numbered_title = forms.CharField(
        label=_("Titles of numbered rules"),
        required=False,
        max_length=200,
        validators=[ProhibitUnstorableCharactersValidator()],
        help_text=_(
            "For a rulebook whose numbered rules have no title of their own: {number} is the rule's number, "
            "{parent} the title of its section, e.g. “Regel {number}”. Leave it empty to keep the source's own "
            "(a new source: “{parent} {number}”)."
        ),
        widget=forms.TextInput(attrs={"class": "vTextField", "placeholder": "{parent} {number}"}),
    )
    source_version = forms.CharField(
        label=_("Version"),
        required=False,
        max_length=100,
        validators=[ProhibitUnstorableCharactersValidator()],
        help_text=_(
            "The version this document is (e.g. 1.4 or 2026-03). A new version makes a release of the source: "
            "its page lists exactly which rules were added, changed, renumbered or removed."
        ),
    )
    hold = forms.BooleanField(
        label=_("Hold this version for review"),
        required=False,
        initial=True,
        help_text=_(
            "With a version: nothing on the site changes (not even the text of a published entry) until you "
            "publish the release on its review page. Unticked, the version is written at once, its new items "
            "with the status below."
        ),
    )
    effective_date = forms.DateField(
        label=_("Effective from"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("The day the version takes effect (default: today)."),
    )
    page = forms.CharField(
        label=_("Page"), required=False, max_length=32, validators=[ProhibitUnstorableCharactersValidator()]
    )
    status = forms.ChoiceField(
        label=_("Status of new items"),
        choices=STATUS_CHOICES,
        initial=Status.DRAFT,
        required=False,  # left out (a script's upload): a draft
        help_text=_("Items already on the site keep their status."),
    )
    prune = forms.BooleanField(
        label=_("Remove items of this source that the document no longer has"),
        required=False,
    )
    removal = forms.ChoiceField(
        label=_("Removed items are"),
        choices=REMOVAL_CHOICES,
        initial="archive",
        required=False,  # left out (a script's upload): archived
        widget=forms.RadioSelect,
    )

    fieldsets = [
        (_("Document"), {"fields": ["file", "text"]}),
        (_("Game"), {"fields": ["game", "new_game_slug", "new_game_name"]}),
        (_("Source"), {"fields": ["source", "source_title", "language", "kind", "numbered_title"]}),
        (
            _("Version"),
            {"fields": ["source_version", "hold", "effective_date"]},
        ),
        (_("Import"), {"fields": ["page", "status", "prune", "removal"]}),
    ]

    def __init__(
        self, *args, can_delete: bool = True, games=None, can_create_game: bool = True, game=None, **kwargs
    ):
        """``games``: the games the user may import into (default all); a new game only
        with ``can_create_game`` (users who edit every game, see rules.moderation.permissions).
        ``game``: the game the form starts with (its language and its sources offered)."""
        super().__init__(*args, **kwargs)
        self.can_delete = can_delete
        self.can_create_game = can_create_game
        self.games = Game.objects.all() if games is None else games
        self.fields["game"].queryset = self.games.order_by("name")
        # Bound, any source of the user's games (clean() checks it is the game's); unbound,
        # the sources of the game the form starts with.
        self.fields["source"].queryset = Source.objects.filter(game__in=self.games).order_by("language", "title")
        if not can_create_game:
            self.fields["game"].empty_label = None
            for name in ("new_game_slug", "new_game_name"):
                self.fields[name].disabled = True
                self.fields[name].help_text = _("Only moderators of every game can add a game.")
        if get_language() in CONTENT_LANGUAGE_CODES:
            self.fields["language"].initial = get_language()
        if game is not None and not self.is_bound:
            self.fields["game"].initial = game.pk
            self.fields["source"].queryset = self.fields["source"].queryset.filter(game=game)
            main = game_facts(game)["language"]
            if main:
                self.fields["language"].initial = main
        if not can_delete:
            self.fields["removal"].choices = REMOVAL_CHOICES[:1]
            self.fields["removal"].help_text = _("Deleting needs the permission to delete entries.")

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
        source = data.get("source")
        if source is not None:
            if game is None or source.game_id != game.pk:
                self.add_error("source", _("Choose a source of the chosen game, or “(a new source)”."))
            else:  # the source's own language and title
                data["language"], data["source_title"] = source.language, source.title
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

    def clean_numbered_title(self):
        pattern = self.cleaned_data.get("numbered_title", "").strip()
        if pattern and numbered_title_problem(pattern):
            raise forms.ValidationError(
                _(
                    "Write the pattern with {number} (the rule's number) and, if you like, {parent} "
                    "(its section's title)."
                )
            )
        return pattern

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
            "source_version": data.get("source_version") or "",
            "numbered_title": data.get("numbered_title") or "",
            "hold": bool(data.get("hold")) and bool(data.get("source_version")),
            "effective_date": data["effective_date"].isoformat() if data.get("effective_date") else None,
            "page": data["page"],
            "status": data.get("status") or Status.DRAFT,
            "prune": bool(data["prune"]),
            # Deleting only with the permission to delete; archiving is an edit.
            "removal": "delete" if data.get("removal") == "delete" and self.can_delete else "archive",
        }


def error_text(error: ImportRulesError) -> str:
    """The importer's own words, with the line where it has one."""
    return line_text(error.message, error.line)


def line_text(message: str, line: int | None) -> str:
    if not line:
        return gettext(message)
    return gettext("Line %(line)s: %(message)s") % {"line": line, "message": message}


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


def report_of(data: dict) -> ImportReport:
    """A job's stored report (``rules.jobs.tasks.report_data``) as an ImportReport."""
    report = ImportReport(data.get("detected_kind", ""), [], input_format=data.get("input_format", "text"))
    report.outcomes = [
        Outcome(type_, title, action, slug, {name: tuple(change) for name, change in (changes or {}).items()}, text)
        for type_, title, action, slug, changes, text in data.get("outcomes", [])
    ]
    report.repairs = [Repair(*repair) for repair in data.get("repairs", [])]
    report.warnings = [Warning(*warning) for warning in data.get("warnings", [])]
    return report


def counts(report) -> dict:
    by_action = Counter(outcome.action for outcome in report.outcomes)
    return {
        "created": by_action["created"],
        "updated": by_action["updated"],
        "unchanged": by_action["unchanged"],
        "archived": by_action["archived"],
        "deleted": by_action["deleted"],
        "repairs": len(report.repairs),
        "warnings": len(report.warnings),
    }


def summary_text(numbers: dict) -> str:
    return gettext(
        "new: %(created)s, changed: %(updated)s, unchanged: %(unchanged)s, archived: %(archived)s, "
        "deleted: %(deleted)s; repairs: %(repairs)s, warnings: %(warnings)s"
    ) % {"archived": 0, **numbers}


def _listed(items: list) -> tuple[list, int]:
    """The first LISTED items, and how many more there are."""
    return items[:LISTED], max(len(items) - LISTED, 0)


def preview_tables(report) -> dict:
    """ImportReport → what the preview page lists, section by section (at most LISTED
    items each: a 20,000-entry document's page would be unreadable and megabytes long)."""

    def row(outcome) -> dict:
        return {"type": TYPE_LABELS.get(outcome.type, outcome.type), "title": outcome.title, "text": outcome.text}

    def diffs(outcome) -> list[dict]:
        return [
            {
                "label": _field_label(outcome.type, name),
                "diff": word_diff_html(before or "", after or "", context=12),
            }
            for name, (before, after) in outcome.changes.items()
        ]

    def of(action: str) -> list:
        return [outcome for outcome in report.outcomes if outcome.action == action]

    numbers = counts(report)
    created, more_created = _listed(of("created"))
    changed, more_changed = _listed(of("updated"))
    unchanged, more_unchanged = _listed(of("unchanged"))
    deleted, more_deleted = _listed(of("deleted"))
    archived, more_archived = _listed(of("archived"))
    return {
        "detected_kind": DETECTED_KIND_LABELS.get(report.detected_kind, report.detected_kind),
        "input_format": FORMAT_LABELS.get(report.input_format, report.input_format),
        "summary": summary_text(numbers),
        "counts": numbers,
        "created": [row(o) for o in created],
        "more_created": more_created,
        "changed": [{**row(o), "fields": diffs(o)} for o in changed],
        "more_changed": more_changed,
        "unchanged": [row(o) for o in unchanged],
        "more_unchanged": more_unchanged,
        "deleted": [row(o) for o in deleted],
        "more_deleted": more_deleted,
        "archived": [row(o) for o in archived],
        "more_archived": more_archived,
        "repairs": report.repairs,
        "warnings": [{"line": w.line, "message": gettext(w.message)} for w in report.warnings],
    }


def version_changes(data: dict) -> dict:
    """A job's change list by identity (``rules.importing.releases``), for a version of a
    source: what the preview and the result show first, with its counts by kind."""
    if not data.get("release"):
        return {}
    lines = []
    for line in data.get("changes", []):
        if isinstance(line, list):  # a job kept before lines were objects
            line = dict(zip(("type", "change", "number", "previous_number", "title", "diff"), line, strict=False))
            line["change"] = OLD_KINDS.get(line["change"], line["change"])
        change = line["change"]
        stored = ReleaseChange(  # as the release will store it: what moved, what was re-titled
            change=change, number=line.get("number") or "", previous_number=line.get("previous_number") or "",
            title_changed=bool(line.get("title_changed")), slug=line.get("slug") or "",
            previous_slug=line.get("previous_slug") or "",
        )  # fmt: skip
        lines.append(
            {
                **line,
                "type": TYPE_LABELS.get(line["type"], line["type"]),
                "label": KIND_LABELS.get(change, change),
                "moved": stored.moved,
                "retitled": stored.retitled,
                "readdressed": stored.readdressed,
            }
        )
    counts = {OLD_KINDS.get(kind, kind): count for kind, count in data.get("change_counts", {}).items()}
    return {
        "version": data["release"],
        "upcoming": data.get("upcoming"),
        "version_counts": counts_text({kind: counts.get(kind, 0) for kind in KINDS}),
        "version_changes": lines,
    }


# --- Views --------------------------------------------------------------------------

FORM_TEMPLATE = "admin/rules/import_form.html"
JOB_TEMPLATE = "admin/rules/import_job.html"


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
        "removal_label": dict(REMOVAL_CHOICES).get(values.get("removal", "delete"), "") if values.get("prune") else "",
        "language_label": dict(CONTENT_LANGUAGES).get(values["language"], values["language"]),
        "status_label": dict(STATUS_CHOICES).get(values.get("status"), ""),
    }


def _context(request, model_admin, **extra) -> dict:
    return {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": _("Import a document"),
        **extra,
    }


def _enqueue(job: ImportJob, state: str, task) -> None:
    job.state, job.queued_at, job.stage, job.done, job.total = state, timezone.now(), "", 0, 0
    job.save(update_fields=["state", "queued_at", "stage", "done", "total", "updated_at"])
    task.enqueue(job.pk)


def import_view(request, model_admin):
    """The form; on a valid POST, the job, previewed at once when it is small."""
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
            # A preview nobody imported or cancelled for a day: its bytes are dropped.
            ImportJob.objects.filter(
                user=request.user, state=ImportJob.State.PREVIEWED, updated_at__lt=timezone.now() - ABANDONED_AFTER
            ).update(state=ImportJob.State.CANCELLED, data=b"")
            values = {**form.import_values(), "ui_language": get_language()}  # the preview's words
            job = ImportJob(user=request.user, filename=filename or "", values=values)
            job.document = data
            job.save()
            if job.size > PREVIEW_INLINE_BYTES or data.count(b"\n") > PREVIEW_INLINE_LINES:
                _enqueue(job, ImportJob.State.PREVIEWING, preview_import)
                return redirect("admin:rules_entry_import_job", job=job.pk)
            job.queued_at = timezone.now()
            job.save(update_fields=["queued_at"])
            preview_import.call(job.pk)  # a dry run writes nothing: quick for a small one
            job.refresh_from_db()
            if job.state != ImportJob.State.FAILED:
                return redirect("admin:rules_entry_import_job", job=job.pk)
            # Refused: said on the form, which still holds the moderator's choices.
            form.add_error(None, line_text(job.error, job.result.get("line")))
            job.delete()
    else:
        form = ImportForm(can_delete=can_delete, game=starting_game(request, scope["games"]), **scope)
    adminform = helpers.AdminForm(form, form.fieldsets, prepopulated_fields={})
    context = _context(request, model_admin, adminform=adminform, form=form, errors=form.errors)
    return render(request, FORM_TEMPLATE, context)


def job_view(request, model_admin, job):
    """An import's page: its progress, its preview (Import, Cancel), or what it did."""
    _check_permission(request, model_admin)
    job = ImportJob.objects.filter(pk=job).first()
    if job is None or (job.user_id != request.user.pk and not request.user.is_superuser):
        raise Http404("No such import")
    if request.method == "POST":
        return _decide(request, model_admin, job)
    context = _context(
        request,
        model_admin,
        job=job,
        values=job.values,
        filename=job.filename,
        stage_label=gettext(STAGES[job.stage]) if job.stage in STAGES else "",
        refresh=REFRESH_SECONDS if job.running else None,
        waiting=job.waiting_seconds(),
        error=line_text(job.error, job.result.get("line")) if job.state == ImportJob.State.FAILED else "",
        changelist=_changelist(job.values["game"]),
        **describe(job.values),
    )
    if job.state == ImportJob.State.PREVIEWED:
        context.update(preview_tables(report_of(job.preview)))
        context.update(version_changes(job.preview))
    elif job.state == ImportJob.State.DONE:
        context["summary"] = summary_text(counts(report_of(job.result)))
        context.update(version_changes(job.result))
        context["release"] = (
            Release.objects.for_reading()
            .filter(
                source__game__slug=job.values["game"],
                source__language=job.values["language"],
                source__title=job.values["source_title"],
                version=job.result.get("release") or None,
            )
            .first()
        )
        if counts(report_of(job.result)) != counts(report_of(job.preview)):
            context["differs"] = True
    return render(request, JOB_TEMPLATE, context)


def _decide(request, model_admin, job: ImportJob):
    """The moderator's answer to a preview: Import or Cancel."""
    page = redirect("admin:rules_entry_import_job", job=job.pk)
    if job.state != ImportJob.State.PREVIEWED:
        messages.error(request, _("This preview has expired or was used already. Upload the document again."))
        return page
    if "cancel" in request.POST:
        job.state, job.data = ImportJob.State.CANCELLED, b""
        job.save(update_fields=["state", "data", "updated_at"])
        messages.info(request, _("Import cancelled: nothing was written."))
        return redirect("admin:rules_entry_import")
    if job.values["prune"] and job.values.get("removal", "delete") == "delete":
        if not model_admin.has_delete_permission(request):
            raise PermissionDenied
    _check_game_scope(request, job.values)
    _enqueue(job, ImportJob.State.IMPORTING, run_import)
    return page


def _changelist(game_slug: str) -> str:
    changelist = reverse("admin:rules_entry_changelist")
    game = Game.objects.filter(slug=game_slug).values_list("pk", flat=True).first()
    return f"{changelist}?game__id__exact={game}" if game else changelist


def import_urls(model_admin) -> list:
    """URLs for EntryAdmin.get_urls(); admin_view() requires a logged-in staff member."""

    def wrap(view):
        return model_admin.admin_site.admin_view(partial(view, model_admin=model_admin))

    return [
        path("import/", wrap(import_view), name="rules_entry_import"),
        path("import/<int:job>/", wrap(job_view), name="rules_entry_import_job"),
        path("import/game/<int:game>/", wrap(game_view), name="rules_entry_import_game"),
    ]


def import_games(request, site) -> dict | None:
    """The admin front page's "Import a document" box: the games the user may import into
    (the latest one first chosen) and whether a new game may be made; None for a user
    who may not import."""
    from ..content.models import Entry

    model_admin = site.get_model_admin(Entry)
    if not (model_admin.has_add_permission(request) and model_admin.has_change_permission(request)):
        return None
    games = editable_games(request.user)
    chosen = starting_game(request, games)
    return {
        "games": list(games.order_by("name")),
        "chosen": chosen.pk if chosen else None,
        "can_create_game": edits_every_game(request.user),
    }


def game_view(request, model_admin, game):
    """The game's languages and sources as JSON, for the form's game picker
    (``static/js/admin-import-form.js``): a game the user may import into, else a 404."""
    _check_permission(request, model_admin)
    found = editable_games(request.user).filter(pk=game).first()
    if found is None:
        raise Http404("No such game")
    return JsonResponse(game_facts(found))
