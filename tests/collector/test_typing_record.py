"""The record of how a text was typed, through the task pages: what the page sends is bounded
and stored with the text; without it (JavaScript off) the text is stored as unknown; a forged
record is refused; where staff forbid pasting, a pasted text is refused."""

import html

import pytest
from django.urls import reverse

from collector.models import Description, Paraphrase
from collector.provenance import MAX_COUNT, MAX_MILLISECONDS
from crowd import services as crowd
from crowd.models import Assignment, HitType, QualityCheck, Tier
from tests.factories import make_paraphrase_source, make_segment, make_worker
from tests.pages import task_shown

pytestmark = pytest.mark.django_db

TEXT = "A cook quickly slices four ripe tomatoes."
TYPED = {
    "typing_key_presses": "36",
    "typing_pastes": "0",
    "typing_pasted_characters": "0",
    "typing_first_key_ms": "4200",
    "typing_writing_ms": "6100",
    "typing_focus_losses": "0",
    "typing_background_ms": "0",
}
NAMES = list(TYPED)


@pytest.fixture
def task(client):
    worker = make_worker()
    client.force_login(worker.user)
    make_segment()
    return crowd.assignment_claim(worker=worker, tier=Tier.ONE)


def submit(client, assignment, **fields):
    data = {"text": TEXT, "language": "en", **fields}
    return client.post(reverse("collector:describe", args=[assignment.pk]), data)


def forbid_pasting(kind=HitType.Kind.DESCRIPTION):
    HitType.objects.for_kind(kind)
    HitType.objects.filter(kind=kind).update(paste_allowed=False)


def test_the_page_carries_the_hidden_record_fields_and_its_script(client, task):
    page = client.get(reverse("collector:describe", args=[task.pk])).content.decode()
    for name in NAMES:
        assert f'<input type="hidden" name="{name}"' in page
    assert "js/typing-record.js" in page
    assert 'data-paste="allowed"' in page and "Pasting is turned off" not in page


def test_a_record_sent_with_the_form_is_stored_with_the_description(client, task):
    assert submit(client, task, **TYPED).status_code == 302
    description = Description.objects.get()
    assert description.typing_key_presses == 36
    assert description.typing_first_key_ms == 4200
    assert description.typing_writing_ms == 6100
    assert description.typing_signals == []


def test_without_javascript_the_description_is_stored_and_its_provenance_is_unknown(client, task):
    # No record at all: a browser without scripts that drops hidden fields, or an old page.
    assert submit(client, task).status_code == 302
    description = Description.objects.get()
    assert description.typing_signals == ["unknown"]
    assert description.typing_record is None
    assert not description.typing_flagged


def test_the_empty_hidden_fields_of_a_page_without_scripts_store_unknown(client, task):
    assert submit(client, task, **dict.fromkeys(NAMES, "")).status_code == 302
    assert Description.objects.get().typing_signals == ["unknown"]


@pytest.mark.parametrize(
    "forged",
    [
        {"typing_pastes": "-1"},
        {"typing_pastes": "1.5"},
        {"typing_key_presses": "lots"},
        {"typing_writing_ms": "٣٠٠"},  # Arabic-Indic digits
        {"typing_background_ms": "9" * 21},
        {"typing_focus_losses": ""},  # one figure missing
    ],
)
def test_a_forged_or_broken_record_is_refused_and_nothing_is_stored(client, task, forged):
    response = submit(client, task, **{**TYPED, **forged})
    assert response.status_code == 200
    assert "record of how your text was typed could not be read" in html.unescape(
        response.content.decode()
    )
    assert not Description.objects.exists()
    assert Assignment.objects.get().status == Assignment.Status.ASSIGNED


def test_absurdly_large_figures_are_clamped_to_their_bounds(client, task):
    response = submit(
        client, task, **{**TYPED, "typing_key_presses": "9" * 20, "typing_writing_ms": "9" * 15}
    )
    assert response.status_code == 302
    description = Description.objects.get()
    assert description.typing_key_presses == MAX_COUNT
    assert description.typing_writing_ms == MAX_MILLISECONDS


def test_a_pasted_description_is_stored_and_flagged(client, task):
    pasted = {**TYPED, "typing_key_presses": "2", "typing_pastes": "1"}
    pasted["typing_pasted_characters"] = str(len(TEXT))
    submit(client, task, **pasted)
    assert Description.objects.get().typing_signals == ["pasted"]


def test_where_pasting_is_forbidden_the_page_says_so(client, task):
    forbid_pasting()
    page = client.get(reverse("collector:describe", args=[task.pk])).content.decode()
    assert "Pasting is turned off for this task: type your description yourself." in page
    assert 'data-paste="forbidden"' in page


def test_where_pasting_is_forbidden_a_pasted_description_is_refused_to_be_typed_again(client, task):
    forbid_pasting()
    pasted = {**TYPED, "typing_pastes": "1", "typing_pasted_characters": str(len(TEXT))}
    response = submit(client, task, **pasted)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert "Pasting is turned off for this task, and text was pasted into the box." in page
    assert TEXT not in page  # the box is emptied, and so is the record
    assert '<input type="hidden" name="typing_pastes" value="1"' not in page
    assert not Description.objects.exists()
    # Typed this time, it is stored; so is a text sent without a record (scripts off).
    assert submit(client, task, **TYPED).status_code == 302
    assert Description.objects.get().typing_signals == []


def test_where_pasting_is_forbidden_a_description_without_a_record_is_stored_as_unknown(
    client, task
):
    forbid_pasting()
    assert submit(client, task).status_code == 302
    assert Description.objects.get().typing_signals == ["unknown"]


def test_a_paraphrase_stores_its_record_and_refuses_a_paste_where_forbidden(client):
    make_paraphrase_source("A man is slicing a tomato.")
    worker = make_worker()
    client.force_login(worker.user)
    shown = client.post(reverse("crowd:task_next"), {"kind": "paraphrase", "tier": "1"})
    page = task_shown(shown)
    assert 'name="typing_pastes"' in shown.content.decode()
    forbid_pasting(HitType.Kind.PARAPHRASE)
    data = {"text": "Someone cuts a tomato into slices.", "language": "en"}
    refused = client.post(page, {**data, **TYPED, "typing_pastes": "1"})
    assert "type your paraphrase yourself" in html.unescape(refused.content.decode())
    assert not Paraphrase.objects.exists()

    assert client.post(page, {**data, **TYPED}).status_code == 302
    paraphrase = Paraphrase.objects.get()
    assert (paraphrase.typing_key_presses, paraphrase.typing_signals) == (36, [])


def test_a_pasted_text_counts_against_the_worker_under_the_typing_rule(client, task):
    pasted = {**TYPED, "typing_key_presses": "1", "typing_pastes": "1"}
    pasted["typing_pasted_characters"] = str(len(TEXT))
    assert submit(client, task, **pasted).status_code == 302

    check = QualityCheck.objects.get()
    description = Description.objects.get()
    assert (check.kind, check.passed, check.source) == (
        "typing",
        False,
        f"description:{description.pk}",
    )
    assert check.details == {"signals": ["pasted"]}


@pytest.mark.parametrize("fields", [TYPED, {}], ids=["typed", "no record"])
def test_a_typed_or_unrecorded_text_is_no_evidence_either_way(client, task, fields):
    assert submit(client, task, **fields).status_code == 302
    assert Description.objects.exists() and not QualityCheck.objects.exists()


def test_text_written_by_an_input_method_is_stored_as_typed_and_not_flagged(client, task):
    # An IME's compositions, or a word per swipe: few or no key events, every character typed.
    ime = {**TYPED, "typing_key_presses": "0", "typing_input_method_characters": str(len(TEXT))}
    assert submit(client, task, **ime).status_code == 302
    description = Description.objects.get()
    assert description.typing_input_method_characters == len(TEXT)
    assert description.typing_signals == []
    assert not QualityCheck.objects.exists()


def test_a_page_opened_before_input_methods_were_counted_stores_none_written_by_one(client, task):
    assert "typing_input_method_characters" not in TYPED
    assert submit(client, task, **TYPED).status_code == 302
    description = Description.objects.get()
    assert description.typing_input_method_characters == 0
    assert description.typing_signals == []
