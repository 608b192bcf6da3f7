"""A Mechanical Turk worker does a task in the platform's frame and is sent back to submit it,
against a local stand-in of the platform's worker site."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlencode

import pytest
from django.core.files import File
from playwright.sync_api import expect

from collector.models import Description, Segment
from tests.conftest import wait_for
from tests.factories import make_segment

# The Mechanical Turk flow runs without a connector, so in demo mode.
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CLIP = Path(__file__).resolve().parents[2] / "demo" / "clip.webm"


class StandIn:
    """MTurk's worker site, reduced to what our page meets: a page framing the task, and the
    externalSubmit endpoint, which records what it is sent."""

    def __init__(self):
        self.task_url = ""
        self.submitted = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = (
                    "<!doctype html><title>HIT</title><h1>Your HIT</h1>"
                    f'<iframe src="{stand_in.task_url}" width="1000" height="900"></iframe>'
                )
                self._answer(body)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                if self.path == "/mturk/externalSubmit":
                    stand_in.submitted.append(parse_qs(self.rfile.read(length).decode()))
                self._answer("<!doctype html><title>Done</title><p>HIT submitted</p>")

            def _answer(self, body):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def platform(settings):
    with StandIn() as stand_in:
        settings.PLATFORM_FRAME_ANCESTORS = [*settings.PLATFORM_FRAME_ANCESTORS, stand_in.origin]
        yield stand_in


@pytest.fixture
def hosted_segment(media_root):
    with CLIP.open("rb") as clip:
        return make_segment(
            source=Segment.Source.FILE,
            youtube_id="",
            video_file=File(clip, name="clip.webm"),
            start=2,
            end=3,
        )


@pytest.mark.usefixtures("platform_demo")
def test_a_framed_worker_submits_and_the_platform_gets_the_assignment_without_a_click(
    page, live_server, platform, hosted_segment
):
    arrival = urlencode(
        {
            "workerId": "A1WORKER",
            "assignmentId": "3ASSIGN",
            "hitId": "3HIT",
            "turkSubmitTo": platform.origin,
        }
    )
    platform.task_url = f"{live_server.url}/external/describe/?{arrival}"
    page.goto(platform.origin + "/")
    task = page.frame_locator("iframe")
    task.get_by_label("Your one-sentence description").fill("A test card is shown with a tone.")
    task.get_by_role("button", name="Submit").click()

    expect(task.get_by_text("HIT submitted")).to_be_visible()
    wait_for(lambda: platform.submitted)
    description = Description.objects.get()
    assert platform.submitted == [
        {"assignmentId": ["3ASSIGN"], "paracrowd_assignment": [str(description.assignment_id)]}
    ]
