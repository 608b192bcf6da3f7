"""The main pages of every role at a phone's width and a laptop's: nothing wider than the
window (a wide table scrolls inside its own box), and no console error."""

from pathlib import Path

import pytest

from crowd import services as crowd
from crowd.models import Tier
from tests.factories import (
    make_researcher,
    make_segment,
    make_staff,
    make_submitted_description,
    make_worker,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (390, 1280)
FAKE_YOUTUBE = (Path(__file__).parent / "fake_youtube_iframe_api.js").read_text()


@pytest.fixture
def site():
    worker = make_worker(username="wanda")
    # Named here, not by the factories' counter: the page's width must not depend on how many
    # tests ran before (a username one digit longer pushed the review table out).
    for n in range(3):
        author = make_worker(username=f"author{n}")
        make_submitted_description(author, f"A man plays guitar number {n}.")
    make_segment()
    task = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    staff = make_staff(username="ada")
    staff.is_superuser = True
    staff.save()
    make_researcher(username="rita")
    return {
        None: ["/", "/accounts/login/", "/accounts/signup/"],
        "wanda": ["/dashboard/", f"/describe/{task.pk}/"],
        "ada": [
            "/review/",
            "/review/workers/",
            "/review/descriptions/",
            "/review/ledger/",
            "/review/audit/",
            "/scores/corpus/",
        ],
        "rita": ["/research/"],
    }


def log_in(page, username, then):
    page.goto(f"/accounts/login/?next={then}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_is_wider_than_the_window_or_logs_an_error(page, site, width):
    page.set_viewport_size({"width": width, "height": 800})
    page.context.route(
        "https://www.youtube.com/iframe_api",
        lambda route: route.fulfill(body=FAKE_YOUTUBE, content_type="text/javascript"),
    )
    problems = []
    page.on(
        "console",
        lambda message: message.type == "error" and problems.append(f"{page.url}: {message.text}"),
    )
    for username, paths in site.items():
        page.context.clear_cookies()
        if username:
            log_in(page, username, then=paths[0])
        for path in paths:
            answer = page.goto(path)
            assert answer.ok, f"{path} answered {answer.status}"
            overflow = page.evaluate(
                "() => document.documentElement.scrollWidth - window.innerWidth"
            )
            if overflow > 0:
                widest = page.evaluate(
                    "() => [...document.querySelectorAll('main *')]"
                    ".filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)"
                    ".filter(e => ![...e.children].some(c => c.getBoundingClientRect().right >"
                    " window.innerWidth + 1)).slice(0, 3).map(e => e.outerHTML.slice(0, 80))"
                )
                problems.append(f"{path} is {overflow}px wider than a {width}px window: {widest}")
    assert not problems, "\n".join(problems)


def test_radio_buttons_and_checkboxes_sit_beside_the_text_that_names_them(page):
    make_researcher(username="rita")
    log_in(page, "rita", then="/research/ratings/")
    radios = page.get_by_role("radio")
    assert radios.count() >= 2
    for n in range(radios.count()):
        radio = radios.nth(n).bounding_box()
        # Django puts each radio inside its option's label: it must open that label's line.
        option = radios.nth(n).get_attribute("id")
        text = page.locator(f"label[for='{option}']").bounding_box()
        assert radio["width"] < 40 and radio["x"] - text["x"] < 8
        assert (
            text["y"] - 2 <= radio["y"]
            and radio["y"] + radio["height"] <= text["y"] + text["height"] + 2
        )

    page.goto("/research/")
    boxes = page.get_by_role("checkbox")
    assert boxes.count() >= 2
    for n in range(boxes.count()):
        box = boxes.nth(n)
        mark = box.bounding_box()
        label = page.locator(f"label[for='{box.get_attribute('id')}']").bounding_box()
        assert 0 <= label["x"] - (mark["x"] + mark["width"]) < 24
        assert abs((label["y"] + label["height"] / 2) - (mark["y"] + mark["height"] / 2)) < 12
