from django.urls import path

from . import review_views

app_name = "segment_review"
urlpatterns = [
    path("segments/", review_views.queue, name="queue"),
    path("segments/<int:pk>/", review_views.proposal, name="proposal"),
    path("videos/", review_views.videos, name="videos"),
    path("videos/<int:pk>/", review_views.video, name="video"),
]
