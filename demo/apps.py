from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo that `make run` loads. It sits above every app and nothing imports it."""

    name = "demo"
    verbose_name = "Demo"
