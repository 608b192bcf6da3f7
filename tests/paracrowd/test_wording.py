"""Counts read as English: "1 HIT", never "1 HITs", on pages, in messages and commands."""

import pytest
from django.template.loader import render_to_string

from paracrowd.wording import counted, shortened
from tests.factories import make_description, make_segment


@pytest.mark.parametrize(
    "number, words, read",
    [
        (1, ("HIT",), "1 HIT"),
        (0, ("HIT",), "0 HITs"),
        (2, ("description",), "2 descriptions"),
        (1204, ("description",), "1,204 descriptions"),
        (1, ("analysis", "analyses"), "1 analysis"),
        (3, ("analysis", "analyses"), "3 analyses"),
    ],
)
def test_a_count_takes_the_singular_only_for_one(number, words, read):
    assert counted(number, *words) == read


def test_the_agreement_page_counts_one_link_item_in_one_sentence_pair():
    brockett = {"items": 1, "sentence_pairs": 1, "kappa": 0.5, "annotators": ["A", "B"]}
    page = render_to_string("annotations/agreement_brockett.html", {"brockett": brockett})
    assert "over 1 link item in the 1 sentence pair\n" in page


def test_the_corpus_page_counts_one_cluster_of_one_description():
    summary = {"descriptions": 1, "scored": 1, "clusters": 1, "languages": []}
    page = render_to_string("scoring/corpus.html", {"summary": summary})
    assert "1 accepted description in the corpus" in page and "in 1 cluster (" in page


@pytest.mark.parametrize(
    "text, read",
    [
        ("A squirrel eats a nut.", "A squirrel eats a nut."),
        ("A squirrel is eating a peanut in its shell", "A squirrel is eating a…"),
        ("A squirrel is eating a, peanut", "A squirrel is eating a…"),
        ("Asquirrelisalwayseatingpeanuts", "Asquirrelisalwayseatin…"),
        ("A squirrel   is\neating", "A squirrel is eating"),
    ],
)
def test_a_shortened_sentence_ends_at_a_word_with_an_ellipsis(text, read):
    assert shortened(text, 23) == read
    assert len(shortened(text, 23)) <= 23


@pytest.mark.django_db
def test_a_description_in_the_admin_lists_is_cut_at_a_word_with_an_ellipsis():
    description = make_description(
        make_segment(), "A woman carefully snips the faded flowers from a rose bush by the path."
    )
    assert str(description) == "A woman carefully snips the faded flowers from a rose bush…"
