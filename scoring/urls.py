from django.urls import path

from . import views

app_name = "scoring"
urlpatterns = [
    path("corpus/", views.corpus, name="corpus"),
    path("corpus/reference-curve/", views.reference_curve, name="reference_curve"),
    path(
        "corpus/paraphrase-comparison/",
        views.paraphrase_comparison,
        name="paraphrase_comparison",
    ),
    path("segments/<int:segment_id>/", views.cluster, name="cluster"),
]
