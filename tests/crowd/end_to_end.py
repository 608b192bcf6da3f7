"""What the end-to-end stories of a campaign share: participants driven through the real task
pages (the Django test client), what each page stated of the pay, and the researcher's
``campaign reconcile --json`` read back as the command prints it."""

import io
import json
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from django.core.management import call_command
from django.test import Client
from django.urls import reverse

URL = reverse("collector:platform_describe")
STATED_PAY = re.compile(
    r"This session pays (?P<reward>\S+) for (?P<minimum>\d+) tasks?"
    r"(?:, and a bonus of (?P<bonus>\S+) for each further task up to (?P<limit>\d+))?"
)


def cents(stated: str) -> int:
    """What a page wrote as "$0.60" or "60¢", in minor units."""
    if stated.endswith("¢"):
        return int(stated[:-1])
    whole, _, fraction = stated.lstrip("$").partition(".")
    return int(whole.replace(",", "")) * 100 + int(fraction or 0)


@dataclass(eq=False)
class Participant:
    """One participant's browser: the query their platform opens the task page with, and the
    pages they were shown."""

    query: dict
    client: Client = field(default_factory=Client)
    pages: list = field(default_factory=list)
    last: object = None

    def arrive(self):
        return self._seen(self.client.get(URL, self.query))

    def describe(self, text: str):
        """Write ``text`` for the task on the page in front of them; the next page follows."""
        answer = self.client.post(URL, {"token": self._token(), "text": text, "language": "en"})
        return self._follow(answer)

    def finish(self):
        """End the session now (past its minimum)."""
        return self._follow(self.client.post(URL, {"token": self._token(), "finish": "1"}))

    def stated_pay(self) -> set[tuple]:
        """Every different (reward, minimum, bonus, limit) the task pages stated, in cents."""
        stated = set()
        for page in self.pages:
            found = STATED_PAY.search(page)
            if found is None:
                continue
            bonus = found["bonus"]
            stated.add(
                (
                    cents(found["reward"]),
                    int(found["minimum"]),
                    cents(bonus) if bonus else 0,
                    int(found["limit"] or found["minimum"]),
                )
            )
        return stated

    def task_pages(self) -> list[str]:
        return [page for page in self.pages if 'name="token"' in page]

    def _token(self) -> str:
        page = self.last.content.decode()
        return page.split('name="token" value="', 1)[1].split('"', 1)[0]

    def _follow(self, answer):
        if answer.status_code == 302 and answer["Location"].startswith("/"):
            return self._seen(self.client.get(answer["Location"]))
        return self._seen(answer)

    def _seen(self, response):
        self.last = response
        if response.status_code == 200:
            self.pages.append(response.content.decode())
        return response


def completion_code(response) -> str:
    """The code a finished session sends the participant back to their platform with."""
    assert response.status_code == 302, response.content.decode()[:500]
    return parse_qs(urlsplit(response["Location"]).query)["cc"][0]


def reconciled(campaign) -> dict:
    """``manage.py campaign reconcile CAMPAIGN --json``, as the researcher runs it."""
    out = io.StringIO()
    call_command("campaign", "reconcile", str(campaign.pk), "--json", stdout=out)
    return json.loads(out.getvalue())
