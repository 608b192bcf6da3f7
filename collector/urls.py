from django.urls import path

app_name = "collector"
urlpatterns = []
