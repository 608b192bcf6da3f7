"""Mounted at admin/ before Django's admin: its log-in answers as the site's pages do."""

from django.urls import path

from . import views

urlpatterns = [
    path("login/", views.admin_log_in, name="admin_log_in"),
]
