"""Bulk status changes: draft, in review, published, archived, on many items at once.

Each item is saved on its own so that every change is a version in its history (with
who and why) and the search index and cross-references follow.
"""

from django.contrib import admin, messages
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..content.history import stamp
from ..content.querysets import Status
from ..content.version import lock_for_writing


def _set_status(modeladmin, request, queryset, status: str, reason: str) -> None:
    """Give every selected item ``status`` and say how many changed and how many had it.

    Both counts come from the rows locked and read here. ``queryset`` is the change
    list's, with its filters: counting it again after the change (``?status__exact=draft``
    no longer matches a row just published) said "-2 items already had that status".
    """
    with transaction.atomic():
        lock_for_writing()  # before the rows (rules.content.version)
        selected = list(queryset.select_for_update())
        changed = 0
        for obj in selected:
            if obj.status == status:
                continue
            obj.status = status
            stamp(obj, reason)
            obj.save()
            changed += 1
    unchanged = len(selected) - changed
    modeladmin.message_user(
        request,
        ngettext("%(count)d item changed.", "%(count)d items changed.", changed) % {"count": changed},
        messages.SUCCESS if changed else messages.INFO,
    )
    if unchanged:
        modeladmin.message_user(
            request,
            ngettext(
                "%(count)d item already had that status.", "%(count)d items already had that status.", unchanged
            )
            % {"count": unchanged},
            messages.INFO,
        )


@admin.action(description=_("Publish the selected items"), permissions=["change"])
def publish(modeladmin, request, queryset):
    _set_status(modeladmin, request, queryset, Status.PUBLISHED, "published")


@admin.action(description=_("Archive the selected items"), permissions=["change"])
def archive(modeladmin, request, queryset):
    _set_status(modeladmin, request, queryset, Status.ARCHIVED, "archived")


@admin.action(description=_("Send the selected items to review"), permissions=["change"])
def send_to_review(modeladmin, request, queryset):
    _set_status(modeladmin, request, queryset, Status.REVIEW, "sent to review")


@admin.action(description=_("Return the selected items to draft"), permissions=["change"])
def return_to_draft(modeladmin, request, queryset):
    _set_status(modeladmin, request, queryset, Status.DRAFT, "returned to draft")


STATUS_ACTIONS = [publish, send_to_review, return_to_draft, archive]
