"""The Content-Security-Policy header (django-csp), with the site's own policy built once.

django-csp builds the header again from settings for every response, a third of a
millisecond. Most responses carry the site's policy exactly as settings give it: no view
changed it (csp_update, csp_replace, csp_exempt), no template asked for a nonce, and there is
no report-only policy nor excluded prefix. Their header is the same string every time, so it is
built once (and again when the settings change, as tests do). Every other response goes
through django-csp as before.
"""

import csp.middleware
from csp.constants import HEADER
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed

# What django-csp's decorators set on a response to change or drop its policy.
_VIEW_CHANGES = (
    "_csp_config",
    "_csp_update",
    "_csp_replace",
    "_csp_exempt",
    "_csp_config_ro",
    "_csp_update_ro",
    "_csp_replace_ro",
    "_csp_exempt_ro",
)
_site_policy = {}


def _forget_policy(*, setting, **kwargs):
    if setting.startswith("CONTENT_SECURITY_POLICY"):
        _site_policy.clear()


setting_changed.connect(_forget_policy)


class CSPMiddleware(csp.middleware.CSPMiddleware):
    def process_response(self, request, response):
        if not _has_site_policy(request, response):
            return super().process_response(request, response)
        if "policy" not in _site_policy:
            _site_policy["policy"] = build_policy()
        if _site_policy["policy"] and HEADER not in response:
            response[HEADER] = _site_policy["policy"]
        # As django-csp does: a nonce asked for once the header is written is an error.
        request.csp_nonce = csp.middleware.CheckableLazyObject(self._csp_nonce_post_response)
        return response


def _has_site_policy(request, response) -> bool:
    """Whether django-csp would give this response the site's policy, unchanged, alone."""
    policy = getattr(settings, "CONTENT_SECURITY_POLICY", None) or {}
    return not (
        getattr(request, "_csp_nonce", None) is not None
        or any(hasattr(response, name) for name in _VIEW_CHANGES)
        or getattr(settings, "CONTENT_SECURITY_POLICY_REPORT_ONLY", None)
        or policy.get("EXCLUDE_URL_PREFIXES")
        or (settings.DEBUG and response.status_code in (404, 500))
    )
