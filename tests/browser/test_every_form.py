"""Every form of the site, submitted once through the browser by every role that is shown it:
filled as a person would (typed, clicked), sent with its own button, and the answer is no 5xx,
nothing the Content-Security-Policy refuses, and the result on screen.

"Every form" is what the pages show: the walk opens every page of test_every_page.py as each
role, and every page a submission lands on, and collects their ``form`` elements. Each is
known by the view it is sent to (and its method); a form with no driver in
tests/browser/form_drivers.py, and not in SKIPPED with the reason, fails the test."""

import re
from collections import deque
from urllib.parse import urlparse

import pytest
from django.urls import Resolver404, resolve
from playwright.sync_api import Error as PlaywrightError

from crowd.platforms import ENTRANCES
from tests.browser.form_drivers import DRIVERS, LAST, Visit
from tests.browser.test_every_page import (
    check_at_two_widths,
    open_tab,
    pages_to_walk,
    session_cookie,
    url_patterns,
)
from tests.site_objects import ROLES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The forms of the page: where each is sent, how, and whether a person can send it.
# Read as attributes: a field named "action" or "method" hides the form's own properties.
FORMS = """() => [...document.forms].map((form) => ({
  action: new URL(form.getAttribute("action") || "", location.href).href,
  method: form.getAttribute("method") || "get",
  name: (form.getAttribute("aria-label") || (form.getAttribute("aria-labelledby") || "")
    .split(/\\s+/).map((id) => document.getElementById(id)?.textContent || "").join(" "))
    .replace(/\\s+/g, " ").trim(),
  sendable: [...form.querySelectorAll("button, input[type=submit], input[type=image]")]
    .some((button) => button.type !== "button" && !button.disabled),
}))"""


def form_key(action, method):
    """A form as the walk knows it: its method and the name of the view it is sent to, with
    the action a campaign's admin page does (one view does several)."""
    match = resolve(urlparse(action).path)
    action_name = match.kwargs.get("action")
    return f"{method.upper()} {match.view_name}" + (f"[{action_name}]" if action_name else "")


def forms_of(page):
    """(key, index among the page's forms, sendable) of every form on the page."""
    found = []
    for index, form in enumerate(page.evaluate(FORMS)):
        try:
            key = form_key(form["action"], form["method"])
        except Resolver404:
            key = f"{form['method'].upper()} {urlparse(form['action']).path} (no view)"
        # Two forms sent to one view are told apart by their names, as a screen reader's
        # user tells them apart (paraphrase_sources: from the corpus, from a file).
        name = f" ({form['name']})" if form["name"] else ""
        found.append((key + name, index, form["sendable"]))
    return found


def test_every_form_as_every_role(browser, live_server, walked_site):
    problems, sent = [], {}
    for role in ROLES:
        context = browser.new_context(base_url=live_server.url)
        user = walked_site.users[role]
        if user:
            context.add_cookies([session_cookie(user, live_server.url)])
        try:
            page = open_tab(context, role, problems)
            page.on("response", lambda answer, role=role: server_error(role, answer, problems))
            visit = Visit(page=page, role=role, site=walked_site, live_server=live_server)
            sent[role] = submit_every_form(
                visit, pages_to_walk(walked_site.arguments_for(role)).values(), problems
            )
        finally:
            context.close()
    print("\n".join(f"{role}: {sorted(keys)}" for role, keys in sent.items()))
    assert not problems, "\n".join(problems)


def server_error(role, answer, problems):
    if answer.status >= 500:
        problems.append(f"{role} {answer.request.method} {answer.url}: {answer.status}")


def submit_every_form(visit, addresses, problems):
    """Open ``addresses`` in turn, and each page a submission lands on, submitting each form
    not submitted yet; the forms that end the session (LAST) once every other is done. The
    keys submitted; what went wrong goes in ``problems``."""
    page, role = visit.page, visit.role
    queue = deque((address, False) for address in addresses)
    seen_paths, found, done, last = set(), {}, set(), {}
    while queue:
        address, answer = queue.popleft()
        page.goto(address)
        path = urlparse(page.url).path
        if path not in seen_paths:
            seen_paths.add(path)
            if answer:  # test_every_page.py checks the others
                check_at_two_widths(page, f"{role} {page.url} (a form's answer)", problems)
        for key, index, sendable in forms_of(page):
            if key not in found or sendable and not found[key][1]:
                found[key] = (page.url, sendable)
            if key in done or key in last or not sendable:
                continue
            if key in LAST:
                last[key] = page.url
                continue
            done.add(key)
            drive(visit, key, page.locator("form").nth(index), problems)
            landed = page.url
            queue.appendleft((address, answer))  # the page's other forms, as it is now
            if urlparse(landed).path not in seen_paths:
                queue.appendleft((landed, True))
            break
    for key in LAST:
        if key in last:
            visit.restore_session()
            page.goto(last[key])
            for found_key, index, _ in forms_of(page):
                if found_key == key:
                    done.add(key)
                    drive(visit, key, page.locator("form").nth(index), problems)
                    break
    for key, (url, sendable) in found.items():
        if key in SKIPPED and sendable:
            problems.append(f"{role}: {key} on {url} can be sent now: drive it, not {SKIPPED[key]}")
        elif key not in done and key not in SKIPPED:
            button = "" if sendable else " (its button disabled)"
            problems.append(f"{role}: the form sent to {key} on {url} was not submitted{button}")
    return done


def drive(visit, key, form, problems):
    driver = DRIVERS.get(key)
    if driver is None:
        problems.append(f"{visit.role}: no driver for the form sent to {key} on {visit.page.url}")
        return
    try:
        driver(visit, form)
    except (AssertionError, PlaywrightError) as error:
        problems.append(f"{visit.role} {key} on {visit.page.url}: {error}")


# The platform task pages as anyone opens them are previews: their button is disabled until a
# crowd platform sends an assignment (tests/browser/test_platform_flow.py and
# test_prolific_session_flow.py submit them as a platform's worker).
PREVIEW = "a preview, its button disabled until a crowd platform sends an assignment"
SKIPPED = {
    **{f"POST {view}": PREVIEW for view in ENTRANCES.values()},
    # Django's change list wraps its table in a form for bulk actions and editable columns;
    # the campaign list has neither, so the form has no button to press.
    "POST admin:crowd_campaign_changelist": "Django's change list, with no action to send",
}


# Forms as the walk must tell them apart: a field named "action" (the worker page's standing
# form), two forms sent to one view with names of their own, a button disabled.
FORMS_PAGE = """
<form method="post" action="/review/workers/1/standing/"><input type="hidden" name="action">
  <button>Promote</button></form>
<form method="post" aria-label="From the corpus" action="/paraphrase/sentences/"><button>A</button>
</form>
<form method="post" aria-labelledby="file" action="/paraphrase/sentences/"><h2 id="file">From a
  file</h2><button>B</button></form>
<form method="post" action="/external/describe/"><button disabled>Submit</button></form>
<form><input name="q"><button type="button">Search</button></form>
"""


def test_the_walk_tells_each_form_apart(browser, live_server):
    page = browser.new_page(base_url=live_server.url)
    page.goto("/accounts/login/")
    page.set_content(FORMS_PAGE)
    found = forms_of(page)
    page.close()
    assert found == [
        ("POST review:standing", 0, True),
        ("POST collector:paraphrase_sources (From the corpus)", 1, True),
        ("POST collector:paraphrase_sources (From a file)", 2, True),
        ("POST collector:platform_describe", 3, False),
        ("GET login", 4, False),
    ]


def test_every_driver_and_skip_is_for_a_view_in_the_urlconf():
    views = {key for key, *_ in url_patterns()}
    named = {re.split(r"[ \[(]", key.split(" ", 1)[1])[0] for key in {*DRIVERS, *SKIPPED}}
    assert not named - views, f"no longer in the URLconf: {named - views}"
