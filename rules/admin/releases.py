"""Releases in the admin: review what a new version changed, and publish it at once.

A release's page lists its changes the way a reviewer reads them: the warnings an
import left are on its job page; here its counts by kind, then the diffs first
(reworded, re-titled, renumbered, then added with their text and removed with their
last text), each with what changed in it (number, title, address), the item's status
now and a link to edit it (to publish or fix entry by entry), and a "Publish this
release" button at the top and the bottom that publishes every draft or in-review item
it lists (``rules.moderation.releases``).
A release **held for review** (the upload's default for a version) has changed nothing
yet: its page shows the plan, and "Publish this release" imports it now, its new items
published (``rules.importing.due.apply_release``). An upcoming release cannot be
published: its text is not the site's before its day.

Releases are made by imports only: no add, no edit, no delete here (deleting a source
deletes its releases). A per-game moderator sees the releases of their games' sources.
"""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..content.models import STATUS_CHOICES, Entry, Erratum
from ..content.querysets import Status
from ..content.releases import KINDS, Release, ReleaseChange, count_by_kind, counts_text
from ..importing import ImportRulesError
from ..importing.due import apply_release
from ..moderation.permissions import editable_games, edits_every_game
from ..moderation.releases import publish_release

# The order a reviewer reads a release in: what changed in place first.
REVIEW_ORDER = KINDS
# A section's heading on the review page.
HEADINGS = {
    ReleaseChange.Kind.REWORDED: _("Reworded"),
    ReleaseChange.Kind.RETITLED: _("Re-titled"),
    ReleaseChange.Kind.RENUMBERED: _("Renumbered"),
    ReleaseChange.Kind.ADDED: _("Added"),
    ReleaseChange.Kind.REMOVED: _("Removed"),
}


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    list_display = ["source", "version", "effective_on", "upcoming_flag", "change_counts"]
    list_filter = ["source__game", "source__language", "pending"]
    search_fields = ["version", "source__title"]
    list_select_related = ["source__game"]
    ordering = ["-created_at", "-pk"]

    def get_queryset(self, request):
        # One count per kind, in the list's one query.
        releases = (
            super()
            .get_queryset(request)
            .for_reading()
            .annotate(
                change_total=Count("changes"),
                **{f"count_{kind}": Count("changes", filter=Q(changes__change=kind)) for kind in KINDS},
            )
        )
        if not edits_every_game(request.user):
            releases = releases.filter(source__game__in=editable_games(request.user))
        return releases

    @admin.display(description=_("upcoming"), boolean=True)
    def upcoming_flag(self, release):
        return release.upcoming

    @admin.display(description=_("changes"), ordering="change_total")
    def change_counts(self, release):
        """How many of each kind: "reworded: 2, re-titled: 0, renumbered: 6, …"."""
        return counts_text({kind: getattr(release, f"count_{kind}", 0) for kind in KINDS})

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # read only: the review page below is where a moderator acts

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("rules.view_entry") or request.user.has_perm("rules.change_entry")

    def get_urls(self):
        review = self.admin_site.admin_view(self.review_view)
        return [path("<int:pk>/review/", review, name="rules_release_review"), *super().get_urls()]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return redirect("admin:rules_release_review", pk=object_id)

    def review_view(self, request, pk):
        release = get_object_or_404(self.get_queryset(request).select_related("source__game"), pk=pk)
        if request.method == "POST":
            return self._publish(request, release)
        changes = list(release.changes.all())
        items = _current_items(release, changes)
        sections = []
        for kind in REVIEW_ORDER:
            rows = [c for c in changes if c.change == kind]
            for change in rows:
                change.current = items.get((change.item_type, change.item_id))
            if rows:
                sections.append((kind, rows))
        waiting = (
            len(changes)
            if release.held
            else sum(1 for item in items.values() if item["status"] in (Status.DRAFT, Status.REVIEW))
        )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"{release.source.title} {release.label}",
            "release": release,
            "counts": counts_text(count_by_kind(changes)),
            "sections": [(kind, HEADINGS[kind], rows) for kind, rows in sections],
            "waiting": waiting,
            "can_publish": request.user.has_perm("rules.change_entry") and (release.held or not release.pending),
        }
        return render(request, "admin/rules/release_review.html", context)

    def _publish(self, request, release):
        if not request.user.has_perm("rules.change_entry"):
            raise PermissionDenied
        if release.held:
            return self._apply(request, release)
        if release.pending:
            messages.error(request, _("This release takes effect later: it cannot be published before its day."))
            return redirect("admin:rules_release_review", pk=release.pk)
        done = publish_release(release, request.user)
        messages.success(
            request,
            ngettext("%(count)d item published.", "%(count)d items published.", done.changed) % {"count": done.changed},
        )
        if done.already:
            messages.info(
                request,
                ngettext(
                    "%(count)d item was published already.", "%(count)d items were published already.", done.already
                )
                % {"count": done.already},
            )
        if done.withheld:
            messages.warning(
                request,
                ngettext(
                    "%(count)d archived item was left archived.",
                    "%(count)d archived items were left archived.",
                    done.withheld,
                )
                % {"count": done.withheld},
            )
        return redirect("admin:rules_release_review", pk=release.pk)

    def _apply(self, request, release):
        """Publish a release held for review: import its document now, new items published."""
        try:
            report = apply_release(release, status=Status.PUBLISHED, user=request.user)
        except ImportRulesError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, _apply_message(report))
        return redirect("admin:rules_release_review", pk=release.pk)


def _apply_message(report) -> str:
    return _("Version %(version)s is published: %(counts)s.") % {
        "version": report.release,
        "counts": counts_text(count_by_kind(report.changes)),
    }


def _current_items(release: Release, changes: list[ReleaseChange]) -> dict[tuple[str, int], dict]:
    """(type, id) → the item as it is now: its status, body and admin URL (three queries);
    a removed item only while it is kept (archived)."""
    ids: dict[str, list[int]] = {"entry": [], "erratum": [], "question": []}
    for change in changes:
        if change.item_id is not None:
            ids.setdefault(change.item_type, []).append(change.item_id)
    found = {}
    tables = [
        ("entry", Entry.objects.filter(pk__in=ids["entry"]), "body", "admin:rules_entry_change"),
        ("erratum", Erratum.objects.filter(pk__in=ids["erratum"]), "corrected_text", "admin:rules_erratum_change"),
        (
            "question",
            release.source.game.faq_questions.filter(pk__in=ids["question"]),
            "answer",
            "admin:faq_question_change",
        ),
    ]
    for type_, queryset, text, view in tables:
        for pk, status, body in queryset.values_list("pk", "status", text):
            found[(type_, pk)] = {
                "status": status,
                "status_label": dict(STATUS_CHOICES).get(status, status),
                "text": body,
                "url": reverse(view, args=[pk]),
            }
    return found
