"""How a worker's texts were typed, aggregated: the "typing" signal of the qualification queue
and the worker's page, and the per-text provenance on the review pages."""

import itertools
import re

import pytest
from django.urls import reverse

from collector.provenance import TypingRecord
from review import worker_signals as signals
from review.services import worker_signals_refresh
from review.worker_signals import Submission
from tests.factories import (
    make_paraphrase,
    make_paraphrase_source,
    make_submitted_description,
    make_worker,
)

pytestmark = pytest.mark.django_db
_ids = itertools.count(1)

SENTENCES = [
    "A man is playing a guitar on a stage.",
    "A woman slices a tomato on a board.",
    "Two dogs run across a wide field.",
    "A boy rides his bicycle down the street.",
]


def typed(text: str) -> TypingRecord:
    return TypingRecord(
        key_presses=len(text),
        pastes=0,
        pasted_characters=0,
        first_key_ms=3_000,
        writing_ms=len(text) * 200,
        focus_losses=0,
        background_ms=0,
    )


def pasted(text: str) -> TypingRecord:
    return TypingRecord(
        key_presses=2,
        pastes=1,
        pasted_characters=len(text),
        first_key_ms=9_000,
        writing_ms=0,
        focus_losses=0,
        background_ms=0,
    )


def submission(typing) -> Submission:
    number = next(_ids)
    return Submission(
        id=number, segment_id=number, text="A dog runs.", language="en", typing=typing
    )


def test_a_worker_without_any_typing_record_is_unknown_not_clean():
    found = signals.typing([submission(("unknown",)), submission(("unknown",))])
    assert (found.value, found.flagged) == (None, False)
    assert "Not recorded" in found.explanation and "not the same as typed" in found.explanation


def test_a_worker_whose_texts_are_mostly_pasted_is_flagged_with_examples():
    found = signals.typing(
        [submission(("pasted",)), submission(("pasted", "too_fast")), submission(())]
    )
    assert found.flagged and found.value == pytest.approx(2 / 3)
    assert "2 of 3 descriptions with a typing record" in found.explanation
    assert "most of the text was pasted (2)" in found.explanation
    assert [example["note"] for example in found.examples] == [
        "most of the text was pasted",
        "most of the text was pasted; typed faster than a person types",
    ]


def test_one_paste_among_many_typed_texts_is_not_flagged_and_unknowns_are_counted_apart():
    found = signals.typing(
        [submission(("pasted",))] + [submission(())] * 9 + [submission(("unknown",))]
    )
    assert not found.flagged and found.value == pytest.approx(0.1)
    assert "1 have no record (unknown)" in found.explanation


@pytest.fixture
def staff(client, admin_user):
    client.force_login(admin_user)
    return admin_user


@pytest.fixture
def paster():
    worker = make_worker(username="paula")
    for text in SENTENCES[:3]:
        make_submitted_description(worker, text, typing=pasted(text))
    make_submitted_description(worker, SENTENCES[3])  # without a record: unknown
    make_paraphrase(worker, make_paraphrase_source(), "Someone cuts a tomato.", typing=None)
    worker_signals_refresh(worker_id=worker.pk)
    return worker


@pytest.fixture
def typist():
    worker = make_worker(username="tess")
    for text in SENTENCES:
        make_submitted_description(worker, text, typing=typed(text))
    worker_signals_refresh(worker_id=worker.pk)
    return worker


def test_the_queue_flags_the_paster_and_not_the_typist(client, staff, paster, typist):
    page = client.get(reverse("review:queue")).content.decode()
    assert "How texts were typed" in page
    rows = dict(re.findall(r">(paula|tess)</a>(.*?)</tr>", page, re.S))
    column = 3 + list(signals.SIGNALS).index("typing")  # after submitted, languages, gold

    def typing_cell(name):
        attributes, figure = re.findall(r"<td([^>]*)>(.*?)</td>", rows[name], re.S)[column]
        return "flagged" in attributes, figure

    flagged, figure = typing_cell("paula")
    assert flagged and figure.endswith("Flagged:</span> 100%")
    assert typing_cell("tess") == (False, "0.0%")
    flagged = client.get(reverse("review:queue"), {"signal": "typing"}).content.decode()
    assert "paula" in flagged and "tess" not in flagged


def test_the_worker_page_shows_the_signal_and_counts_descriptions_and_paraphrases(
    client, staff, paster
):
    page = client.get(reverse("review:worker", args=[paster.pk])).content.decode()
    assert 'id="signal-typing"' in page
    assert "3 of 3 descriptions with a typing record (100%)" in page
    summary = page.split('id="typing-summary"')[1].split("</table>")[0]
    descriptions = summary.split('id="typing-descriptions"')[1].split("</tr>")[0]
    numbers = re.findall(r'<td class="number[^"]*">(\d+)</td>', descriptions)
    # texts, typed on the page, no record, pasted, too fast, in the background, then the
    # review-only signals (none here) and the canary
    assert numbers == ["4", "0", "1", "3", "0", "0", *["0"] * 7]
    paraphrases = summary.split('id="typing-paraphrases"')[1].split("</tr>")[0]
    assert re.findall(r'<td class="number[^"]*">(\d+)</td>', paraphrases)[6:] == ["0"] * 7
    assert re.findall(r'<td class="number[^"]*">(\d+)</td>', paraphrases)[:6] == [
        "1",
        "0",
        "1",
        "0",
        "0",
        "0",
    ]


def test_the_review_pages_show_each_texts_provenance_and_never_call_unknown_clean(
    client, staff, paster, typist
):
    page = client.get(reverse("review:descriptions")).content.decode()
    for description in paster.descriptions.all():
        cell = page.split(f'id="typing-{description.pk}"')[1].split("</td>")[0]
        if description.typing_record is None:
            assert "Not recorded" in cell and "Typed on the page" not in cell
        else:
            assert "⚑</span> Most of the text was pasted" in cell and "1 paste " in cell
    for description in typist.descriptions.all():
        cell = page.split(f'id="typing-{description.pk}"')[1].split("</td>")[0]
        assert "Typed on the page" in cell and "⚑" not in cell
    paraphrases = client.get(reverse("review_pages:paraphrases")).content.decode()
    assert "How it was typed:" in paraphrases and "Not recorded" in paraphrases
