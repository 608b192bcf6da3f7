from django.urls import path

from . import views

app_name = "annotations"
urlpatterns = [
    path("align/<int:pk>/", views.align, name="align"),
]
