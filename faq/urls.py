from django.urls import path

from . import views

app_name = "faq"

urlpatterns = [
    path("games/<slug:game>/faq/", views.question_list, name="list"),
]
