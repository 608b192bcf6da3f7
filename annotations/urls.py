from django.urls import path

from . import views

app_name = "annotations"
urlpatterns = [
    path("align/<int:pk>/", views.align, name="align"),
    path("scores/agreement/", views.agreement, name="agreement"),
    path("scores/pairs/<int:pk>/", views.pair_alignments, name="pair"),
]
