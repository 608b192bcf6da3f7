from django.urls import path

from . import platform_hooks, views

app_name = "crowd"
urlpatterns = [
    path("tasks/next/", views.task_next, name="task_next"),
    path("tasks/<int:pk>/skip/", views.skip, name="skip"),
    path("platforms/<str:platform>/hooks/", platform_hooks.receive, name="platform_hooks"),
]
