"""The qualification queue in a real browser: at a laptop's width every column is on screen,
the flagged ones included; on a phone the table scrolls in its box and the worker's name
stays in sight."""

import pytest
from playwright.sync_api import expect

from review.models import WorkerSignals
from tests.browser.test_layout import log_in
from tests.factories import make_description, make_segment, make_staff, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Names as long as real sign-ups choose, so that the name column is as wide as it gets.
NAMES = [
    f"{first}.{last}"
    for first, last in zip(
        ["maria", "oluwaseun", "katarzyna", "jean-baptiste", "ngozi", "siddharth"],
        ["fernandez-garcia", "adeyemi", "wisniewska", "lefebvre", "okonkwo", "venkataraman"],
        strict=True,
    )
]
FLAGGED_COLUMNS = ["Time spent", "Own wording", "Rejections"]


@pytest.fixture
def queue():
    segment = make_segment()
    for n, name in enumerate(NAMES):
        worker = make_worker(username=name)
        for m in range(12 - n):
            make_description(segment, f"A man plays guitar, take {m}.", worker=worker, tier=1)
        # The figures as the background job leaves them, the widest each column shows.
        WorkerSignals.objects.create(
            worker=worker,
            descriptions=12 - n,
            languages=["en", "es", "de"],
            spelling_error_rate=0.125,
            shape_problem_rate=0.333,
            language_mismatch_rate=0.0,
            duplicate_rate=0.5,
            mean_bleu=12.34,
            cluster_mean_bleu=45.67,
            mean_pinc=88.8,
            cluster_mean_pinc=55.5,
            median_time_ratio=0.42,
            typing_flag_rate=0.25,
            rejection_rate=0.667,
            flags=["speed", "pinc", "rejections", "duplicates"],
        )
    staff = make_staff(username="ada")
    return staff


def test_every_column_of_the_queue_is_on_screen_at_a_laptops_width(page, queue):
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in(page, "ada", then="/review/workers/")
    table = page.get_by_role("table")
    for name in FLAGGED_COLUMNS:
        expect(table.get_by_role("columnheader", name=name)).to_be_in_viewport(ratio=1)
    width = page.evaluate("innerWidth")
    headers = table.get_by_role("columnheader")
    for n in range(headers.count()):
        box = headers.nth(n).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, headers.nth(n).inner_text()
    scroll = page.locator(".table-scroll")
    assert scroll.evaluate("box => box.scrollWidth <= box.clientWidth")


def test_the_workers_name_stays_in_sight_when_the_queue_scrolls_on_a_phone(page, queue):
    page.set_viewport_size({"width": 390, "height": 800})
    log_in(page, "ada", then="/review/workers/")
    scroll = page.locator(".table-scroll")
    assert scroll.evaluate("box => box.scrollWidth > box.clientWidth"), "nothing to scroll"
    scroll.evaluate("box => { box.scrollIntoView(); box.scrollLeft = box.scrollWidth; }")
    assert scroll.evaluate("box => box.scrollLeft") > 0
    name = page.get_by_role("rowheader").first
    expect(name).to_be_in_viewport(ratio=1)
    box, cell = scroll.bounding_box(), name.bounding_box()
    assert box["x"] - 1 <= cell["x"] and cell["x"] + cell["width"] <= box["x"] + box["width"]
    # Drawn over the cells that scroll under it, not behind them.
    middle = (cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2)
    assert name.evaluate(
        "(cell, [x, y]) => cell.contains(document.elementFromPoint(x, y))", list(middle)
    )
    expect(name.get_by_role("link")).to_have_text(NAMES[0])
