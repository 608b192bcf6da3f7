"""A worker paraphrases a sentence in a real browser, and a copy is refused on the way."""

import pytest
from playwright.sync_api import expect

from collector.models import Paraphrase
from tests.factories import make_paraphrase_source, make_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SENTENCE = "A man is slicing a tomato."


def log_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("correct horse battery")
    page.get_by_role("button", name="Log in").click()


def test_a_worker_paraphrases_a_sentence_and_a_copy_is_refused_first(page):
    make_paraphrase_source(SENTENCE)
    make_worker(username="petra")
    log_in(page, "petra")
    page.get_by_role("button", name="Paraphrase a sentence · Tier 1").click()
    page.wait_for_function(
        "() => location.pathname.startsWith('/paraphrase/') && document.readyState === 'complete'"
    )
    # What a person reads: the sentence (the canary's hidden line is no text to them).
    expect(page.locator("#source-sentence")).to_contain_text(SENTENCE)
    box = page.get_by_label("The same meaning in your own words")

    # The browser says what is wrong before anything is sent.
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.locator("#id_text_error")).to_have_text(
        "Write the sentence again, with the same meaning, in your own words."
    )
    # A copy passes the browser's checks; the server refuses it and keeps what was typed.
    box.fill("A man is slicing a tomato")
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.locator("#id_text_error")).to_contain_text("This is the sentence you were given")
    expect(box).to_have_value("A man is slicing a tomato")
    assert not Paraphrase.objects.exists()

    page.get_by_label("The same meaning in your own words").fill(
        "Someone cuts a tomato into slices."
    )
    page.get_by_role("button", name="Submit and back to my work").click()
    expect(page.get_by_text("Thank you! Your paraphrase was saved.")).to_be_visible()
    expect(page.locator("#count-paraphrased")).to_have_text("1")
    paraphrase = Paraphrase.objects.get()
    assert (paraphrase.text, paraphrase.language) == ("Someone cuts a tomato into slices.", "en")
