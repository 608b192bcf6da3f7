from django.urls import path

from . import views

app_name = "collector"
urlpatterns = [
    path("", views.home, name="home"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("tasks/next/", views.task_next, name="task_next"),
    path("tasks/<int:pk>/skip/", views.skip, name="skip"),
    path("describe/<int:pk>/", views.describe, name="describe"),
    path("propose/<int:pk>/", views.propose, name="propose"),
    path("propose/video-link/", views.video_link, name="video_link"),
    path("external/describe/", views.platform_describe, name="platform_describe"),
]
