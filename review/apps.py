from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review and qualification"

    def ready(self):
        from . import dead_letters

        dead_letters.connect()
