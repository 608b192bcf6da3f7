"""Whole-site checks: every page each kind of user can open has one <h1> and labelled controls."""

from collections import Counter
from html.parser import HTMLParser

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.site_objects import ROLES, make_site

pytestmark = pytest.mark.django_db

# Not pages of ours: Django's admin, and the research API (JSON, and Swagger's page for it).
NOT_OUR_PAGES = {"admin", "research-api"}
UNLABELLED_INPUT_TYPES = {"hidden", "submit", "button", "reset", "image"}


def url_names(patterns=None, namespace=""):
    """Every named URL of the project, as (name for reverse(), its keyword arguments)."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = pattern.namespace or ""
            if inner in NOT_OUR_PAGES:
                continue
            prefix = f"{namespace}{inner}:" if inner else namespace
            yield from url_names(pattern.url_patterns, prefix)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{namespace}{pattern.name}", set(pattern.pattern.regex.groupindex)


class PageChecker(HTMLParser):
    """Counts <h1>s and finds form controls no label names, and ids used twice (a label's
    ``for`` then names only the first control)."""

    def __init__(self):
        super().__init__()
        self.ids = Counter()
        self.h1s = 0
        self.label_for = set()
        self.open_labels = 0
        self.controls = []  # (description, id, wrapped in a label, has an aria name)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids[attrs["id"]] += 1
        if tag == "h1":
            self.h1s += 1
        elif tag == "label":
            self.open_labels += 1
            if attrs.get("for"):
                self.label_for.add(attrs["for"])
        elif tag in {"input", "select", "textarea"}:
            if tag == "input" and attrs.get("type", "text") in UNLABELLED_INPUT_TYPES:
                return
            if "hidden" in attrs:
                return
            self.controls.append(
                (
                    f"<{tag} name={attrs.get('name')!r} id={attrs.get('id')!r}>",
                    attrs.get("id"),
                    self.open_labels > 0,
                    bool(attrs.get("aria-label") or attrs.get("aria-labelledby")),
                )
            )

    def handle_endtag(self, tag):
        if tag == "label" and self.open_labels:
            self.open_labels -= 1

    def problems(self):
        found = []
        if self.h1s != 1:
            found.append(f"{self.h1s} <h1> elements")
        for control, control_id, wrapped, named in self.controls:
            if not (wrapped or named or (control_id and control_id in self.label_for)):
                found.append(f"{control} has no label")
        found += [f"id {name!r} is used {n} times" for name, n in self.ids.items() if n > 1]
        return found


@pytest.fixture
def site(settings, media_root):
    settings.RELEASE_LICENSE = "cc-by-4.0"  # so that the research page shows the release form
    return make_site()


def pages(arguments):
    for name, parameters in url_names():
        assert parameters == set(arguments.get(name, {})), f"give {name} its {parameters}"
        yield reverse(name, kwargs=arguments.get(name))


def test_every_url_of_ours_is_known_to_the_site_test(site):
    assert len(list(pages(site.arguments_for("tier1")))) > 20


@pytest.mark.parametrize("role", ROLES)
def test_every_page_has_one_h1_and_a_label_for_every_control(client, site, role):
    if site.users[role]:
        client.force_login(site.users[role])
    problems, seen = {}, 0
    for url in pages(site.arguments_for(role)):
        response = client.get(url)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        seen += 1
        checker = PageChecker()
        checker.feed(response.content.decode())
        if found := checker.problems():
            problems[url] = found
    assert seen >= 3
    assert problems == {}


def test_the_favicon_is_found_wherever_a_browser_looks(client):
    answer = client.get("/favicon.ico")
    assert answer.status_code == 301 and answer["Location"].endswith("favicon.svg")
    assert 'rel="icon"' in client.get(reverse("login")).content.decode()
