"""Alignment HITs: pairs drawn from clusters, pre-aligned, annotated once per worker."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotations import prealigner, services
from annotations.models import AlignerModel, Alignment, SentencePair
from collector import services as collector_services
from crowd import services as crowd
from crowd.models import Assignment, HitType, Tier
from paracrowd_metrics.alignment import parse_pharaoh, train_aligner
from tests.factories import make_segment, make_worker

pytestmark = pytest.mark.django_db

CLUSTER = [
    "A man is playing a guitar.",
    "A man plays the guitar.",
    "Someone strums a guitar.",
    "A man is playing a guitar.",  # a verbatim copy of the first: never paired with it
]


def describe(segment, texts):
    for text in texts:
        worker = make_worker()
        assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
        assert assignment.hit.item.segment == segment
        collector_services.description_submit(
            assignment_id=assignment.pk, worker=worker, text=text, language="en"
        )


@pytest.fixture
def pair():
    describe(make_segment(), CLUSTER[:2])
    (pair,) = services.pairs_sample(per_cluster=1, seed=0)
    return pair


def claim(worker):
    return crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)


def test_sampling_is_seeded_and_skips_near_identical_pairs():
    describe(make_segment(), CLUSTER)
    pairs = services.pairs_sample(per_cluster=10, seed=7, open_hits=False)
    texts = {(" ".join(p.tokens_a), " ".join(p.tokens_b)) for p in pairs}
    assert len(pairs) == 5  # 6 pairings less the verbatim copy
    assert ("A man is playing a guitar .", "A man is playing a guitar .") not in texts
    again = services.pairs_sample(per_cluster=10, seed=7, open_hits=False)
    assert sorted(p.pk for p in again) == sorted(p.pk for p in pairs)
    assert SentencePair.objects.count() == 5


def test_the_tokens_shown_are_the_tokens_stored(pair):
    assert pair.tokens_a == ["A", "man", "is", "playing", "a", "guitar", "."]


def test_each_pair_is_offered_to_two_annotators_per_tier(pair):
    assert {h.max_assignments for h in pair.hits.all()} == {2}
    first, second, third = make_worker(), make_worker(), make_worker()
    assert claim(first).hit.item.sentencepair == pair
    assert claim(second).hit.item.sentencepair == pair
    assert claim(third) is None


def test_an_alignment_is_stored_once_with_the_cells_changed_from_the_pre_alignment(pair):
    SentencePair.objects.filter(pk=pair.pk).update(pre_alignment="0-0 1-1 5-3")
    worker = make_worker()
    assignment = claim(worker)
    # Keeps 0-0, drops 5-3, makes 1-1 possible, adds 3-2 sure: three cells changed.
    alignment, created = services.alignment_submit(
        assignment_id=assignment.pk, worker=worker, links="0-0 1p1 3-2"
    )
    again, created_again = services.alignment_submit(
        assignment_id=assignment.pk, worker=worker, links="0-0"
    )
    assert (created, created_again) == (True, False) and again == alignment
    assert alignment.changed_cells == 3
    assert parse_pharaoh(alignment.links) == parse_pharaoh("0-0 1p1 3-2")
    assert Alignment.objects.count() == 1


@pytest.mark.parametrize(
    "links, message",
    [("0-0 zz", "could not be read"), ("0-99", "past the end"), ("99-0", "past the end")],
)
def test_bad_links_are_refused_and_store_nothing(pair, links, message):
    worker = make_worker()
    assignment = claim(worker)
    with pytest.raises(crowd.WorkRefused, match=message):
        services.alignment_submit(assignment_id=assignment.pk, worker=worker, links=links)
    assert not Alignment.objects.exists()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.ASSIGNED


def test_the_task_page_shows_the_pre_alignment_and_stores_the_submission(client, pair):
    SentencePair.objects.filter(pk=pair.pk).update(pre_alignment="0-0 1-1")
    worker = make_worker()
    client.force_login(worker.user)
    response = client.post(
        reverse("crowd:task_next"), {"tier": "1", "kind": "alignment"}, follow=True
    )
    page = response.content.decode()
    assert '"preAlignment": "0-0 1-1"' in page
    assignment = worker.assignments.get()
    response = client.post(reverse("annotations:align", args=[assignment.pk]), {"links": "0-0"})
    assert response.status_code == 302
    assert Alignment.objects.get().links == "0-0"


def test_bad_links_through_the_page_get_a_message(client, pair):
    worker = make_worker()
    client.force_login(worker.user)
    assignment = claim(worker)
    response = client.post(reverse("annotations:align", args=[assignment.pk]), {"links": "9-x"})
    assert response.status_code == 400
    assert "could not be read" in response.content.decode()


def test_charlie_cannot_open_alices_alignment_task(client, pair):
    alice, charlie = make_worker(), make_worker()
    assignment = claim(alice)
    client.force_login(charlie.user)
    assert client.get(reverse("annotations:align", args=[assignment.pk])).status_code == 404


def test_a_description_assignment_is_not_an_alignment_task(client):
    make_segment()
    worker = make_worker()
    client.force_login(worker.user)
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    assert client.get(reverse("annotations:align", args=[assignment.pk])).status_code == 404


def test_an_aligner_trained_on_too_few_pairs_pre_aligns_nothing(settings):
    settings.ALIGNER_MIN_TRAINING_PAIRS = 1000
    describe(make_segment(), CLUSTER[:3])
    model = services.aligner_train(iterations=2)
    assert model.training_pairs < 1000
    pairs = services.pairs_sample(per_cluster=3, seed=0)
    assert pairs and all(pair.pre_alignment == "" and pair.aligner is None for pair in pairs)
    assert prealigner.pairs_prealign(aligner_model=model) == 0
    out = StringIO()
    call_command("train_aligner", "--iterations", "1", stdout=out)
    assert "no pair is pre-aligned" in out.getvalue()


def test_the_trained_aligner_pre_aligns_new_pairs(settings):
    settings.ALIGNER_MIN_TRAINING_PAIRS = 1
    describe(make_segment(), CLUSTER[:3])
    model = services.aligner_train(iterations=2)
    assert isinstance(model, AlignerModel) and model.training_pairs > 0
    pairs = services.pairs_sample(per_cluster=3, seed=0)
    assert all(pair.aligner == model for pair in pairs)
    # Identical words align to themselves: "guitar" in both sentences.
    pair = next(p for p in pairs if "guitar" in p.tokens_a and "guitar" in p.tokens_b)
    link = (pair.tokens_a.index("guitar"), pair.tokens_b.index("guitar"))
    assert link in parse_pharaoh(pair.pre_alignment).sure
    # Punctuation is never linked to a word.
    for pair in pairs:
        for i, j in parse_pharaoh(pair.pre_alignment).possible:
            assert (pair.tokens_a[i] == ".") == (pair.tokens_b[j] == ".")


def test_a_submitted_task_reopens_showing_what_was_submitted(client, pair):
    SentencePair.objects.filter(pk=pair.pk).update(pre_alignment="0-0 1-1")
    worker = make_worker()
    client.force_login(worker.user)
    assignment = claim(worker)
    client.post(reverse("annotations:align", args=[assignment.pk]), {"links": "2p2"})
    page = client.get(reverse("annotations:align", args=[assignment.pk])).content.decode()
    assert '"links": "2p2"' in page and "You submitted this alignment on" in page


def test_sampling_filters_drop_pairs_by_length_and_ratio_and_count_them():
    describe(
        make_segment(),
        [
            "A man plays a guitar.",  # 6 tokens
            "Guitar.",  # 2 tokens: too short for the default minimum of 3
            "A man in a red shirt and a hat is sitting on a chair and playing an old guitar.",
        ],
    )

    draw = services.pairs_draw(
        per_cluster=3, seed=0, open_hits=False, filters=services.PairFilters(max_ratio=2.5)
    )

    # Pairings: 6–2 tokens (too short), 2–19 (too short), 6–19 (ratio 3.2 > 2.5).
    assert draw.pairs == []
    assert draw.dropped == {"too short": 2, "too long": 0, "length ratio": 1, "near-duplicate": 0}
    assert SentencePair.objects.count() == 0


def test_sample_pairs_prints_what_each_filter_dropped():
    describe(make_segment(), CLUSTER)
    out = StringIO()

    call_command(
        "sample_pairs", "--per-cluster", "10", "--no-hits", "--max-length", "6", stdout=out
    )

    # Only "Someone strums a guitar ." (5 tokens) with "A man plays the guitar ." (6) fits.
    assert "1 sentence pairs drawn" in out.getvalue()
    assert "too long 5" in out.getvalue()


@pytest.mark.parametrize(
    "args, message",
    [(["--min-length", "0"], "lengths"), (["--max-ratio", "0.5"], "length ratio")],
)
def test_sample_pairs_refuses_impossible_filters(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("sample_pairs", *args, stdout=StringIO())


def test_every_alignment_task_links_the_guidelines_which_anyone_may_read(client, pair):
    worker = make_worker()
    client.force_login(worker.user)
    page = client.get(reverse("annotations:align", args=[claim(worker).pk])).content.decode()
    assert f'href="{reverse("annotations:guidelines")}"' in page

    client.logout()
    guidelines = client.get(reverse("annotations:guidelines")).content.decode()
    for case in ["Names", "Articles", "Tense", "Verb groups", "particle", "Possessives",
                 "Pronouns", "Typos", "Punctuation"]:  # fmt: skip
        assert case in guidelines


def test_the_page_says_when_no_aligner_was_good_enough_to_pre_align(client, pair, settings):
    worker = make_worker()
    client.force_login(worker.user)
    assignment = claim(worker)
    notice = "No automatic aligner is good enough to pre-align this pair yet"
    assert notice in client.get(reverse("annotations:align", args=[assignment.pk])).text

    settings.ALIGNER_MIN_TRAINING_PAIRS = 1
    aligner = train_aligner([(pair.tokens_a, pair.tokens_b)], iterations=1)
    model = AlignerModel.objects.create(parameters=aligner.to_dict(), training_pairs=1)
    assert prealigner.pairs_prealign(aligner_model=model) == 1
    assert notice not in client.get(reverse("annotations:align", args=[assignment.pk])).text
