from django import forms
from django.contrib.auth.forms import UserCreationForm


class SignUpForm(UserCreationForm):
    email = forms.EmailField(label="Email (optional)", required=False)

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")
