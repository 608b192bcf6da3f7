from django.urls import path

from . import views

app_name = "research"
urlpatterns = [
    path("", views.home, name="home"),
    path("exports/", views.export_start, name="export_start"),
    path("comparisons/", views.comparison_start, name="comparison_start"),
    path("correlations/", views.correlations, name="correlations"),
    path("correlations/<int:pk>/", views.correlation, name="correlation"),
    path(
        "correlations/<int:pk>/store-combined/",
        views.correlation_store_combined,
        name="correlation_store_combined",
    ),
    path("token/", views.token_reset, name="token_reset"),
]
