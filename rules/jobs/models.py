"""The record of an import run for a moderator (``rules.jobs``)."""

import zlib

from django.conf import settings
from django.db import models
from django.utils import timezone


class ImportJob(models.Model):
    class State(models.TextChoices):
        PREVIEWING = "previewing"  # queued or running: the dry run
        PREVIEWED = "previewed"  # waiting for the moderator: import or cancel
        IMPORTING = "importing"  # queued or running: the import
        DONE = "done"
        FAILED = "failed"  # the document or the database refused it: ``error`` says why
        CANCELLED = "cancelled"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=16, choices=State.choices, default=State.PREVIEWING)
    filename = models.CharField(max_length=255, blank=True)  # none for pasted text
    data = models.BinaryField(blank=True)  # the document, zlib-compressed; emptied when done
    size = models.PositiveBigIntegerField(default=0)  # its bytes before compression
    values = models.JSONField(default=dict)  # the form's (rules.admin.importing.ImportForm)
    # Where it is: a stage ("reading", "writing" …) and, while writing, rows done of total.
    stage = models.CharField(max_length=32, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    preview = models.JSONField(default=dict, blank=True)  # the dry run's report (tasks.report_data)
    result = models.JSONField(default=dict, blank=True)  # the import's report
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    queued_at = models.DateTimeField(null=True, blank=True)  # handed to the worker
    started_at = models.DateTimeField(null=True, blank=True)  # taken up by it

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "import"

    def __str__(self) -> str:
        return f"{self.values.get('source_title', '')} ({self.state})"

    @property
    def document(self) -> bytes:
        return zlib.decompress(bytes(self.data)) if self.data else b""

    @document.setter
    def document(self, raw: bytes) -> None:
        self.data = zlib.compress(raw)
        self.size = len(raw)

    @property
    def running(self) -> bool:
        return self.state in (self.State.PREVIEWING, self.State.IMPORTING)

    def waiting_seconds(self) -> float:
        """How long a queued job has waited for a worker (0 once one took it up)."""
        if not self.running or self.queued_at is None:
            return 0.0
        if self.started_at is not None and self.started_at >= self.queued_at:
            return 0.0
        return (timezone.now() - self.queued_at).total_seconds()


class WorkerBeat(models.Model):
    """A background worker's sign of life: ``manage.py db_worker`` (the project's, in
    ``rules.management.commands``) writes its row every ``rules.jobs.heartbeat.BEAT``
    seconds, so the admin's front page and ``/readyz`` can tell when no worker has been
    seen for a while (every built file and import would then wait)."""

    worker_id = models.CharField(max_length=64, unique=True)
    host = models.CharField(max_length=255, blank=True)
    seen_at = models.DateTimeField()

    class Meta:
        verbose_name = "worker heartbeat"

    def __str__(self) -> str:
        return f"{self.worker_id} on {self.host or '?'}"
