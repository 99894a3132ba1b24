from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RulesConfig(AppConfig):
    name = "rules"
    verbose_name = _("Rules")

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from .builds.tasks import withdraw
        from .content import journal
        from .content.models import HELD_BY_IMPORT, RENDERED_FIELDS, Entry, Erratum, Game, Source
        from .derived import pipeline
        from .search.index import connect_signals

        # Every write to content is recorded (rules.content.journal), and each unit of work's
        # changes bring derived data up to date through the one pipeline.
        journal.watch(Game, journal.Change.Kind.GAME)
        journal.watch(Source, journal.Change.Kind.SOURCE)
        journal.watch(
            Entry, journal.Change.Kind.ENTRY, ignore=(*RENDERED_FIELDS["entry"], "body_checked_at", HELD_BY_IMPORT)
        )
        journal.watch(
            Erratum, journal.Change.Kind.ERRATUM, ignore=(*RENDERED_FIELDS["erratum"], HELD_BY_IMPORT),
            links=[Erratum.affects],
        )
        journal.on_flush(pipeline.run)
        # A booklet or sitemap showing what was just withdrawn is not served as last built.
        journal.on_flush(withdraw)
        connect_signals()  # a game's deletion takes its search documents' words along
        from .api import (
            bulk,  # noqa: F401 - the API's bulk data files, a kind of built file
            stored,
            views,
        )
        from .derived.models import FeedKind

        # Each public item's JSON is stored when it changes (rules.derived.stored_json),
        # made by its list's viewset; faq registers its questions. Not sources: their
        # signature does not cover the releases their JSON lists.
        for kind, viewset in ((FeedKind.GAME, views.GameViewSet), (FeedKind.ENTRY, views.EntryViewSet),
                              (FeedKind.ERRATUM, views.ErratumViewSet)):  # fmt: skip
            stored.register(kind, viewset)
        # Stored HTML, relations and the rest of derived data missing or out of date (a new
        # RENDERER_VERSION, rows from before they were stored) once the schema is complete.
        post_migrate.connect(pipeline.refresh_after_migrate, sender=self)
        from .pages import stored_pages

        # Entry pages as readers get them are stored by the worker after each unit of work.
        pipeline.finished.connect(stored_pages.schedule, dispatch_uid="rules.pages.stored_pages")
