"""The FAQ resource of API v1, merged into the API root by ``rulesite.api_urls``."""

from rest_framework.routers import SimpleRouter

from . import views

router = SimpleRouter()
router.register("faq", views.QuestionViewSet, basename="faq")

urlpatterns = router.urls
