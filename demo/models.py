from django.db import models


class LoadedDemo(models.Model):
    """The demo version (``demo.version.demo_version``) last loaded in full into this database:
    one row, written when ``load_demo`` finishes, so that ``make run`` loads the demo again only
    when the demo it would load differs (or the database is new)."""

    version = models.CharField(max_length=64)
    loaded_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"demo {self.version[:12]}, loaded {self.loaded_at:%Y-%m-%d %H:%M}"
