from django.urls import path

from . import views

app_name = "annotations"
urlpatterns = [
    path("align/guidelines/", views.guidelines, name="guidelines"),
    path("align/trial/", views.trial, name="trial"),
    path("align/<int:pk>/", views.align, name="align"),
    path("external/align/", views.platform_align, name="platform_align"),
    path("scores/agreement/", views.agreement, name="agreement"),
    path("scores/pairs/<int:pk>/", views.pair_alignments, name="pair"),
    path("scores/pairs/<int:pk>/trial/", views.pair_trial, name="pair_trial"),
]
