"""Every page of the site, opened as every role in headless Chromium at a laptop's width and a
phone's: no console error, nothing the Content-Security-Policy blocks, no control without a
name, nothing wider than its box, no label over another label or a control not its own; and
a page a role may not see answers the one refusal page (a visitor: the site's log-in).

"Every page" is the URLconf: each pattern is walked or named below with the reason it is not,
so a new page is walked from the day its URL is added."""

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse
from playwright.sync_api import Error as PlaywrightError

from tests.browser.test_layout import FAKE_YOUTUBE
from tests.site_objects import ROLES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1280, 390)

# Patterns the walk does not open, by URL name (or route, if unnamed), each with the reason.
NOT_WALKED = {
    # Not pages: files, JSON and redirects to them.
    "favicon.ico": "a redirect to the static icon",
    "healthz": "JSON for the load balancer",
    "media/<path:path>": "the media files themselves (video clips)",
    "collector:video_link": "JSON for the marking tool's link field",
    "review:ledger_csv": "a CSV download",
    "research:ratings_csv": "a CSV download",
    "research:rating_batch_csv": "a CSV download",
    "research:rating_batch_consensus_csv": "a CSV download",
    "research:release_file": "a release's files, downloads",
    "admin:crowd_campaign_sheet": "a CSV download for Prolific",
    "admin:crowd_campaign_state": "JSON for the campaign page's own script",
    # Where the admin sends whoever it will not serve: the campaign pages' refusals walk it,
    # and staff it sends on to Django's own admin index.
    "admin_log_in": "a redirect, or the refusal page",
    # POST only: forms on the walked pages send to them (each answers GET with 405, checked).
    "logout": "POST only, and it would end the role's session",
    "crowd:task_next": "POST only",
    "crowd:skip": "POST only",
    "crowd:platform_hooks": "POST only (a crowd platform's signed events)",
    "scoring:reference_curve": "POST only",
    "scoring:paraphrase_comparison": "POST only",
    "review:overview_refresh": "POST only",
    "review:standing": "POST only",
    "review:bonus": "POST only",
    "review:payout": "POST only",
    "review:gold_make": "names the work to make gold of: a review page opens it (test_gold.py)",
    "review:gold_retire": "POST only",
    "research:export_start": "POST only",
    "research:comparison_start": "POST only",
    "research:release_start": "POST only",
    "research:correlation_store_combined": "POST only",
    "research:token_reset": "POST only",
    "annotations:pair_trial": "POST only",
    "admin:crowd_campaign_confirm": "POST only",
    "admin:crowd_campaign_action": "POST only",
    "review_pages:ratings": "POST only (a batch's page lists its ratings to review)",
}
POST_ONLY = {key for key, reason in NOT_WALKED.items() if reason.startswith("POST only")}
# Whole namespaces left out: the research API answers JSON (tests/research/test_research_api.py),
# and its Swagger page is drf-spectacular's own.
NOT_WALKED_NAMESPACES = {"research-api": "the research API, JSON"}
# Django's own admin views (index, change lists and forms of every model, its log-in): not
# pages of ours. The admin views the project wrote itself (the campaign pages) are walked.
DJANGO_ADMIN = "django."

# Reports every violation of the page's Content-Security-Policy on the console, where the
# walk collects errors (the site's policy names no report-uri; see test_the_policy_...).
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => console.error(
  `Refused by the Content-Security-Policy: ${event.violatedDirective} ${event.blockedURI} ` +
  `at ${event.sourceFile}:${event.lineNumber}`));
"""
# The page's problems at the current width, as sentences.
CHECKS = (Path(__file__).parent / "page_checks.js").read_text()


def url_patterns(patterns=None, route="", namespace=""):
    """(key, namespace, route, callback module, parameter names) of every URL pattern."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = pattern.namespace
            yield from url_patterns(
                pattern.url_patterns,
                route + str(pattern.pattern),
                f"{namespace}:{inner}" if namespace and inner else inner or namespace,
            )
            continue
        full = route + str(pattern.pattern)
        name = pattern.name and (f"{namespace}:{pattern.name}" if namespace else pattern.name)
        module = pattern.callback.__module__
        yield name or full, namespace, full, module, set(pattern.pattern.regex.groupindex)


def pages_to_walk(arguments):
    """The address of every pattern not left out above, from ``arguments`` (URL name →
    keyword arguments); fails on a pattern neither walked nor left out with a reason."""
    pages, unknown = {}, []
    for key, namespace, route, module, parameters in url_patterns():
        if key in NOT_WALKED or namespace in NOT_WALKED_NAMESPACES:
            continue
        if namespace == "admin" and module.startswith(DJANGO_ADMIN):
            continue
        if key == route:
            unknown.append(f"{route} has no name: walk it or say in NOT_WALKED why not")
        elif parameters != set(arguments.get(key, {})):
            unknown.append(f"{key} needs {sorted(parameters)} from tests/site_objects.py")
        else:
            pages[key] = reverse(key, kwargs=arguments.get(key))
    assert not unknown, "\n".join(unknown)
    return pages


def session_cookie(user, url):
    client = Client()
    client.force_login(user)
    value = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": value, "url": url}


def console_problem(role, page, message, problems):
    """An error on the console, or anything the Content-Security-Policy refused; not the
    document's own status (a refusal's 403), which answer_of judges."""
    own_status = message.location.get("url") == page.url and message.text.startswith(
        "Failed to load resource"
    )
    if (message.type == "error" or "Refused to" in message.text) and not own_status:
        problems.append(f"{role} {page.url}: console: {message.text}")


def answer_of(role, answer, page):
    """What ``role`` got: "page", "log-in", "refused 403" (or 404, …) or a problem in words."""
    path = urlparse(page.url).path
    if answer.status >= 500:
        return f"problem: {answer.status}"
    if answer.status >= 400:
        styled = page.locator("#refusal").count() == 1
        return f"refused {answer.status}" if styled else f"problem: a bare {answer.status}"
    if path == reverse("admin:login"):
        return "problem: the admin's log-in instead of the site's"
    if path == reverse("login") and "next=" in page.url:
        return "log-in" if role == "anonymous" else "problem: sent to log in although logged in"
    return "page"


# The pages whose text carries the canary's invisible line (collector.canary): the tasks that
# ask for a sentence of one's own. Measured on every page the walk opens, as every role.
CANARY_PAGES = {
    "collector:describe",
    "collector:paraphrase",
    "collector:platform_describe",
    "collector:platform_paraphrase",
}
TAG_CHARACTERS = "() => /[\\u{E0020}-\\u{E007E}]/u.test(document.documentElement.outerHTML)"


def test_every_page_as_every_role_at_two_widths(browser, live_server, walked_site):
    matrix, problems, carriers = {}, [], set()
    for role in ROLES:
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": WIDTHS[0], "height": 800}
        )
        if walked_site.users[role]:
            context.add_cookies([session_cookie(walked_site.users[role], live_server.url)])
        try:
            pages = pages_to_walk(walked_site.arguments_for(role))
            walk(context, role, pages, matrix, problems, carriers)
        finally:
            context.close()

    report = "\n".join(
        f"{key:40} " + " | ".join(f"{role}: {got}" for role, got in row.items())
        for key, row in matrix.items()
    )
    print(f"{len(matrix)} pages × {len(ROLES)} roles\n{report}")
    print(f"pages carrying the canary's line: {sorted(carriers)}")
    assert not problems, "\n".join(problems)
    never_shown = [key for key, row in matrix.items() if "page" not in row.values()]
    assert not never_shown, f"no role saw these pages (wrong arguments?): {never_shown}"
    for key, row in matrix.items():
        assert row["anonymous"] in ("page", "log-in"), f"a visitor opening {key}: {row}"
    assert carriers == CANARY_PAGES


def open_tab(context, role, problems):
    """A tab of ``context`` off the network, whose console errors, script errors and anything
    the Content-Security-Policy refused go in ``problems``."""
    context.add_init_script(CSP_LISTENER)
    # No network: the YouTube player's script is a stand-in, anything else off-site empty.
    context.route(
        re.compile(r"^https?://(?!localhost|127\.0\.0\.1)"),
        lambda route: (
            route.fulfill(body=FAKE_YOUTUBE, content_type="text/javascript")
            if route.request.url == "https://www.youtube.com/iframe_api"
            else route.fulfill(status=204)
        ),
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("console", lambda message: console_problem(role, page, message, problems))
    page.on("pageerror", lambda error: problems.append(f"{role} {page.url}: script: {error}"))
    return page


def walk(context, role, pages, matrix, problems, carriers):
    """Open ``pages`` (URL name → address) in one tab as ``role``: what each answered goes in
    ``matrix``, what is wrong with it in ``problems``, and the names of pages whose text holds
    tag characters (the canary's line) in ``carriers``. Each page is checked once per role (a
    visitor's log-in page not forty times)."""
    page = open_tab(context, role, problems)
    checked = set()
    for key, url in pages.items():
        try:
            answer = page.goto(url)
        except PlaywrightError as error:
            status = context.request.get(url, max_redirects=0).status
            matrix.setdefault(key, {})[role] = f"problem: {status}, {error.message}"
            problems.append(f"{role} {url}: {status}, the browser shows nothing: {error}")
            continue
        outcome = matrix.setdefault(key, {})[role] = answer_of(role, answer, page)
        if outcome == "page" and page.evaluate(TAG_CHARACTERS):
            carriers.add(key)
        if outcome.startswith("problem"):
            problems.append(f"{role} {url}: {outcome}")
        shown = urlparse(page.url).path
        if shown in checked:
            continue
        checked.add(shown)
        check_at_two_widths(page, f"{role} {url}", problems)


def check_at_two_widths(page, where, problems):
    """What CHECKS finds on the page on screen, at each of WIDTHS, goes in ``problems``."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        problems += [f"{where} at {width}px: {problem}" for problem in page.evaluate(CHECKS)]
    page.set_viewport_size({"width": WIDTHS[0], "height": 800})


# A page with one of each problem the walk looks for, and the same things done right.
FLAWED_PAGE = """
<label for="named">Named</label><input id="named">
<input id="unnamed"><button><img src="data:," alt="Search"></button><button></button>
<label class="visually-hidden" style="position:absolute;width:1px;height:1px;overflow:hidden">
  Hidden label</label>
<div style="width:200px"><div id="too-wide" style="width:300px">wide</div></div>
<div style="width:200px;overflow-x:auto"><table><tr><td style="width:600px">a wide table</td>
  </tr></table></div>
<div style="position:relative;height:40px"><label for="b" style="position:absolute;top:0">Over
  the field</label><input id="a" style="position:absolute;top:0;left:0" aria-label="A"></div>
<label><input type="checkbox"> Own box</label>
<div style="position:relative;height:40px"><legend style="position:absolute">One</legend>
  <legend style="position:absolute">Two</legend></div>
<p style="width:100px">Averyveryverylongwordwithoutbreaks</p>
"""


def test_the_checks_find_each_problem_and_pass_what_is_right(browser):
    page = browser.new_page(viewport={"width": 390, "height": 800})
    page.set_content(FLAWED_PAGE)
    found = page.evaluate(CHECKS)
    page.close()
    assert found == [
        'a control without a name: <input id="unnamed">',
        "a control without a name: <button></button>",
        '100px wider than its box: <div id="too-wide" style="width:300px">wide</div>',
        'text wider than its box: <p style="width:100px">Averyveryverylongwordwithoutbreaks</p>',
        '<label for="b" style="position:absolute;top:0">Over the field</label> is over '
        '<input id="a" style="position:absolute;top:0;left:0" aria-label="A">',
        '<legend style="position:absolute">One</legend> is over '
        '<legend style="position:absolute">Two</legend>',
    ]


def test_the_pages_left_out_as_post_only_refuse_a_get(client, walked_site):
    client.force_login(walked_site.users["staff"])
    arguments = walked_site.arguments_for("tier1")
    for key in POST_ONLY:
        assert client.get(reverse(key, kwargs=arguments.get(key))).status_code == 405, key


def test_every_pattern_left_out_is_still_in_the_urlconf():
    left_out = set(NOT_WALKED) - {key for key, *_ in url_patterns()}
    assert not left_out, f"no longer in the URLconf, take them out of NOT_WALKED: {left_out}"


def test_the_policy_names_no_report_address_so_the_browser_event_is_the_report():
    # Were a report-uri added, the walk would have to read what it received as well.
    directives = settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]
    assert not {"report-uri", "report-to"} & set(directives)
