"""The rules resources of API v1.

Registered on a plain router that ``rulesite.api_urls`` merges with the other apps'
routes under one API root; the route names (``api:entry-detail`` …) are what the
serializers' ``url`` fields reverse.
"""

from rest_framework.routers import SimpleRouter

from . import views

router = SimpleRouter()
router.register("games", views.GameViewSet, basename="game")
router.register("sources", views.SourceViewSet, basename="source")
router.register("entries", views.EntryViewSet, basename="entry")
router.register("errata", views.ErratumViewSet, basename="erratum")
router.register("releases", views.ReleaseViewSet, basename="release")

urlpatterns = router.urls
