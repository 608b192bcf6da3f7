from django.urls import path

from . import paraphrase_views, views

app_name = "collector"
urlpatterns = [
    path("dashboard/", views.dashboard, name="dashboard"),
    path("describe/<int:pk>/", views.describe, name="describe"),
    path("propose/<int:pk>/", views.propose, name="propose"),
    path("propose/video-link/", views.video_link, name="video_link"),
    path("external/describe/", views.platform_describe, name="platform_describe"),
    path("external/collect/", views.platform_collect, name="platform_collect"),
    path("paraphrase/<int:pk>/", paraphrase_views.paraphrase, name="paraphrase"),
    path("paraphrase/sentences/", paraphrase_views.paraphrase_sources, name="paraphrase_sources"),
    path("external/paraphrase/", paraphrase_views.platform_paraphrase, name="platform_paraphrase"),
]
