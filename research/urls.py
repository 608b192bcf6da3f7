from django.urls import path

from . import views
from .ratings import views as ratings

app_name = "research"
urlpatterns = [
    path("", views.home, name="home"),
    path("exports/", views.export_start, name="export_start"),
    path("comparisons/", views.comparison_start, name="comparison_start"),
    path("releases/", views.release_start, name="release_start"),
    path("releases/<int:number>/<path:name>", views.release_file, name="release_file"),
    path("correlations/", views.correlations, name="correlations"),
    path("correlations/<int:pk>/", views.correlation, name="correlation"),
    path(
        "correlations/<int:pk>/store-combined/",
        views.correlation_store_combined,
        name="correlation_store_combined",
    ),
    path("token/", views.token_reset, name="token_reset"),
    path("ratings/", ratings.batches, name="rating_batches"),
    path("ratings/ratings.csv", ratings.ratings_csv, name="ratings_csv"),
    path("ratings/<int:pk>/", ratings.batch, name="rating_batch"),
    path("ratings/<int:pk>/ratings.csv", ratings.ratings_csv, name="rating_batch_csv"),
    path(
        "ratings/<int:pk>/consensus.csv", ratings.consensus_csv, name="rating_batch_consensus_csv"
    ),
    path("rate/<int:pk>/", ratings.rate, name="rate"),
    path("external/rate/", ratings.platform_rate, name="platform_rate"),
]
