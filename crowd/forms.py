from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from paracrowd.wording import counted


class SignUpForm(UserCreationForm):
    email = forms.EmailField(label="Email (optional)", required=False)

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class LoginForm(AuthenticationForm):
    """The site's log-in form. A failed log-in says how many attempts are left before
    django-axes locks the account out from this address, so the lockout never comes unwarned."""

    def get_invalid_login_error(self):
        error = super().get_invalid_login_error()
        # django-axes counted this failure when authenticate() failed, on the request.
        failures = getattr(self.request, "axes_failures_since_start", None)
        if failures is None:
            return error
        left = max(settings.AXES_FAILURE_LIMIT - failures, 0)
        minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
        return forms.ValidationError(
            f"{error.message % error.params} {left} attempt{'' if left == 1 else 's'} left "
            f"before a lockout of {counted(minutes, 'minute')}.",
            code=error.code,
        )
