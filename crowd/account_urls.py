from django.contrib.auth.views import LoginView
from django.urls import include, path

from . import views
from .forms import LoginForm

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", LoginView.as_view(authentication_form=LoginForm), name="login"),
    # Before Django's own, which looks the address up while the visitor waits.
    path("password_reset/", views.PasswordReset.as_view(), name="password_reset"),
    path("", include("django.contrib.auth.urls")),
]
