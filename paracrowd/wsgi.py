import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paracrowd.settings")
application = get_wsgi_application()
# The URLs, and with them every view, are imported now rather than on the first request: under
# `gunicorn --preload` (bin/run) once, before the workers are forked, so that no worker's first
# page waits for them; otherwise as each worker starts, not while a visitor waits.
get_resolver().url_patterns  # noqa: B018 (imports the URL configuration)
