"""History pages a moderator can read, and one-step revert to any earlier version.

``ReadableHistoryAdmin`` sits before ``SimpleHistoryAdmin`` in the MRO and keeps its
history page (``history_view``), replacing what each row shows: when, who (the user, or
the change reason such as "import: SOURCE" when there is none), why, and a readable
diff from the previous version (``rules.content.history.changes_between``).

Revert: each older version links to ``<id>/history/<version>/revert/`` (URL name
``<app>_<model>_revert``): a GET shows exactly what will change (current → that version)
and a POST reverts in one step (``rules.content.history.revert``), logs it in the admin log and
returns to the change page. It needs ``has_change_permission(request, obj)`` and the
object must be in ``get_queryset(request)`` (so per-game scoping applies); bad ids are
404s. The confirmation page carries the version it was shown for: if the object changed
in between, the POST is refused and the page shows the fresh difference.

simple-history's own revert path (the "history form": a change form filled from the
old version, saved with the view *or* change permission, without our change reason and
with the live M2M values) is disabled: its URL redirects to our confirmation page, so
old links keep working and there is one revert path with one set of checks.

One admin save is one version: M2M fields simple-history tracks (``Erratum.affects``,
``Question.related_entries``) are saved with history paused and then written into the
version the save made, instead of one extra version per M2M signal.
"""

from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _

from ..content import history as history_service
from ..content.journal import unit_of_work
from ..shared.diffing import WORK_LIMIT, PageBudget

#: What the word diffs of one history page may spend in all: three diffs at their
#: worst (about half a second), any number of ordinary edits.
HISTORY_PAGE_WORK = 3 * WORK_LIMIT


class ReadableHistoryAdmin:
    object_history_template = "admin/moderated/object_history.html"
    object_history_list_template = "admin/moderated/object_history_list.html"
    revert_confirm_template = "admin/moderated/revert_confirm.html"

    # --- URLs ---------------------------------------------------------------------

    def get_urls(self):
        opts = self.model._meta
        urls = [
            path(
                "<path:object_id>/history/<str:version_id>/revert/",
                self.admin_site.admin_view(self.revert_view),
                name=f"{opts.app_label}_{opts.model_name}_revert",
            ),
        ]
        return urls + super().get_urls()

    # --- the history page ---------------------------------------------------------

    def set_history_delta_changes(self, request, historical_records, foreign_keys_are_objs=True):
        """Give each record on the page ``readable_changes`` (from its previous version).
        The page's word diffs share one budget (``HISTORY_PAGE_WORK``): a hundred
        versions of a 50,000-character text took 30 s of diffs; past the budget a change
        shows coarsely (the start and end kept, the middle replaced)."""
        records = list(historical_records)
        page = PageBudget(HISTORY_PAGE_WORK)
        for index, record in enumerate(records):
            previous = records[index + 1] if index + 1 < len(records) else history_service.previous_version(record)
            record.is_first_version = previous is None
            record.readable_changes = history_service.changes_between(previous, record, page) if previous else []
            record.who = history_service.who(record)

    def render_history_view(self, request, template, context, **kwargs):
        obj = context.get("object")
        if obj is not None and "page_obj" in context:
            latest = history_service.latest_version(obj)
            exists = obj.pk is not None and self.get_queryset(request).filter(pk=obj.pk).exists()
            context["can_revert"] = exists and self.has_change_permission(request, obj)
            context["latest_version_id"] = latest.history_id if latest else None
            context["revert_url_name"] = self._revert_url_name()
        return super().render_history_view(request, template, context, **kwargs)

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        """simple-history's form-based revert is replaced by ours (see the module docstring)."""
        return HttpResponseRedirect(
            reverse(self._revert_url_name(), args=[object_id, version_id], current_app=self.admin_site.name)
        )

    # --- one admin save, one version ----------------------------------------------

    def save_related(self, request, form, formsets, change):
        obj = form.instance
        tracked = history_service.tracked_m2m_fields(self.model)
        if not tracked:
            return super().save_related(request, form, formsets, change)
        before = {m2m.name: history_service.m2m_ids(obj, m2m) for m2m in tracked}
        with history_service.history_paused(obj):
            super().save_related(request, form, formsets, change)
        if {m2m.name: history_service.m2m_ids(obj, m2m) for m2m in tracked} != before:
            history_service.resnapshot_m2m(obj)

    # --- revert ---------------------------------------------------------------------

    def _revert_url_name(self) -> str:
        opts = self.model._meta
        return f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_revert"

    def revert_view(self, request, object_id, version_id):
        with unit_of_work():  # one write: its changes recorded, derived data once (rules.content.journal)
            return self._revert_view(request, object_id, version_id)

    def _revert_view(self, request, object_id, version_id):
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404(_("No such item."))
        if not self.has_change_permission(request, obj):
            raise PermissionDenied
        try:
            record = obj.history.get(history_id=int(version_id))
        except (ValueError, obj.history.model.DoesNotExist):
            raise Http404(_("No such version.")) from None
        opts = self.model._meta
        change_url = reverse(
            f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_change",
            args=[obj.pk],
            current_app=self.admin_site.name,
        )
        error = None
        if request.method == "POST":
            history_service.lock(obj)  # one revert (or save) at a time
            latest = history_service.latest_version(obj)
            shown = request.POST.get("_version", "")
            if latest is not None and shown != str(latest.history_id):
                error = _("This item was changed since you opened this page. Check the changes below again.")
            else:
                try:
                    changed = history_service.revert(obj, record, request.user)
                except ValidationError as exc:
                    error = " ".join(exc.messages)
                else:
                    values = {"obj": obj, "date": history_service.when(record)}
                    if changed:
                        self.log_change(request, obj, _("Reverted to the version of %(date)s.") % values)
                        self.message_user(
                            request, _("Reverted “%(obj)s” to the version of %(date)s.") % values, messages.SUCCESS
                        )
                    else:
                        self.message_user(
                            request, _("“%(obj)s” already equals the version of %(date)s.") % values, messages.INFO
                        )
                    return HttpResponseRedirect(change_url)
        if error:
            self.message_user(request, error, messages.ERROR)
        return self._render_revert_confirm(request, obj, record, change_url)

    def _render_revert_confirm(self, request, obj, record, change_url):
        opts = self.model._meta
        latest = history_service.latest_version(obj)
        changes = history_service.changes_between(obj, record)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Revert %(obj)s") % {"obj": obj},
            "subtitle": None,
            "opts": opts,
            "app_label": opts.app_label,
            "object": obj,
            "original": obj,
            "record": record,
            "record_who": history_service.who(record),
            "record_when": history_service.when(record),
            "changes": changes,
            "renames_entry": opts.label == "rules.Entry" and any(c.name == "title" for c in changes),
            "latest_version_id": latest.history_id if latest else "",
            "change_url": change_url,
            "history_url": reverse(
                f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_history",
                args=[obj.pk],
                current_app=self.admin_site.name,
            ),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.revert_confirm_template, context)
