from django.conf import settings
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from research.landing import landing

from .health import healthz
from .media import serve_media

# A database out of reach answers 503 with Retry-After, not a bare 500.
handler500 = "paracrowd.health.server_error"
# Over-limit bodies: a page (JSON on the API) that says which limit, not a bare 400.
handler400 = "paracrowd.request_text.bad_request"

urlpatterns = [
    # Browsers ask for /favicon.ico on pages that name no icon (the admin's).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("", landing, name="home"),
    path("healthz", healthz, name="healthz"),
    # Before the admin's own: its log-in form would be a second one, in another style.
    path("admin/", include("crowd.admin_urls")),
    path("admin/", admin.site.urls),
    path("accounts/", include("crowd.account_urls")),
    path("scores/", include("scoring.urls")),
    path("review/", include("review.urls")),
    path("review/", include("review.segment_urls")),
    path("", include("review.page_urls")),
    path("api/", include("research.api_urls")),
    path("research/", include("research.urls")),
    path("", include("annotations.urls")),
    path("", include("crowd.urls")),
    path("", include("collector.urls")),
]

if settings.SERVE_MEDIA:
    urlpatterns.append(path(f"{settings.MEDIA_URL.strip('/')}/<path:path>", serve_media))
