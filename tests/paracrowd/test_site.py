"""Whole-site checks: every page each kind of user can open has one <h1> and labelled controls."""

from collections import Counter
from html.parser import HTMLParser

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from annotations import services as annotations
from collector import services as collector
from collector.models import VideoFile
from crowd import services as crowd
from crowd.models import HitType, Tier
from paracrowd_metrics.ratings_analysis import AnalysisOptions
from research import services as research
from research.correlation import correlation_parameters
from tests.factories import (
    make_paraphrase_source,
    make_proposal,
    make_researcher,
    make_segment,
    make_staff,
    make_worker,
)
from tests.research.ratings import make_batch

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
def site(settings):
    """One of each kind of user, and an object behind every page that needs one."""
    settings.RELEASE_LICENSE = "cc-by-4.0"  # so that the research page shows the release form
    worker = make_worker(tier=Tier.TWO)
    segment = make_segment()
    for text in ("A man is playing a guitar.", "A man plays the guitar."):
        writer = make_worker()
        assignment = crowd.assignment_claim(worker=writer, tier=Tier.ONE)
        collector.description_submit(
            assignment_id=assignment.pk, worker=writer, text=text, language="en"
        )
    (pair,) = annotations.pairs_sample(per_cluster=1, seed=0)
    description = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    video_collection = crowd.assignment_claim(
        worker=worker, tier=Tier.ONE, kind=HitType.Kind.VIDEO_COLLECTION
    )
    alignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
    rating_batch = make_batch()
    rating = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.RATING)
    make_paraphrase_source()
    paraphrase = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.PARAPHRASE)
    staff = make_staff()
    researcher = make_researcher()
    ratings = "source,candidate,rating,references\n" + "".join(
        f"a man sings,a man sings {n},{1 + n % 4},a man is singing ||| someone sings\n"
        for n in range(6)
    )
    analysis = research.correlation_report_create(
        user=researcher,
        name="ratings.csv",
        ratings_csv=ratings,
        parameters=correlation_parameters(
            text=ratings,
            name="ratings.csv",
            options=AnalysisOptions(draws=2, resamples=20, folds=3),
            dimension=None,
            meteor=False,
        ),
    )
    research.correlation_report_run(report_id=analysis.pk)
    video = VideoFile.objects.create(file="videos/clip.webm", title="A clip", uploaded_by=staff)
    gold = crowd.gold_item_create(
        item=make_segment().item, answer={"references": []}, source="test", created_by=None
    )
    arguments = {
        "collector:describe": {"pk": description.pk},
        "collector:propose": {"pk": video_collection.pk},
        "collector:paraphrase": {"pk": paraphrase.pk},
        "crowd:skip": {"pk": description.pk},
        "annotations:align": {"pk": alignment.pk},
        "research:rate": {"pk": rating.pk},
        "research:rating_batch": {"pk": rating_batch.pk},
        "review_pages:ratings": {"pk": rating_batch.pk},
        "research:rating_batch_csv": {"pk": rating_batch.pk},
        "research:rating_batch_consensus_csv": {"pk": rating_batch.pk},
        "annotations:pair": {"pk": pair.pk},
        "annotations:pair_trial": {"pk": pair.pk},
        "scoring:cluster": {"segment_id": segment.pk},
        "review:worker": {"pk": worker.pk},
        "review:standing": {"pk": worker.pk},
        "review:bonus": {"pk": worker.pk},
        "review:gold_retire": {"pk": gold.pk},
        "segment_review:proposal": {"pk": make_proposal().pk},
        "segment_review:video": {"pk": video.pk},
        "password_reset_confirm": {"uidb64": "MQ", "token": "set-password"},
        "research:correlation": {"pk": analysis.pk},
        "research:correlation_store_combined": {"pk": analysis.pk},
        "research:release_file": {"number": 1, "name": "README.md"},
    }
    users = {
        "anonymous": None,
        "worker": worker.user,
        "staff": staff,
        "researcher": researcher,
    }
    return users, arguments


def pages(arguments):
    for name, parameters in url_names():
        assert parameters == set(arguments.get(name, {})), f"give {name} its {parameters}"
        yield reverse(name, kwargs=arguments.get(name))


def test_every_url_of_ours_is_known_to_the_site_test(site):
    _, arguments = site
    assert len(list(pages(arguments))) > 20


@pytest.mark.parametrize("user", ["anonymous", "worker", "staff", "researcher"])
def test_every_page_has_one_h1_and_a_label_for_every_control(client, site, user):
    users, arguments = site
    if users[user]:
        client.force_login(users[user])
    problems, seen = {}, 0
    for url in pages(arguments):
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
