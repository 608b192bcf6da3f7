from django.urls import path

from . import segment_views

app_name = "segment_review"
urlpatterns = [
    path("segments/", segment_views.queue, name="queue"),
    path("segments/<int:pk>/", segment_views.proposal, name="proposal"),
    path("videos/", segment_views.videos, name="videos"),
    path("videos/<int:pk>/", segment_views.video, name="video"),
]
