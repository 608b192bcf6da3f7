"""Gold items of every kind: made from existing work in one click, handed out hidden, and each
answer checked against what is known."""

import pytest
from django.urls import reverse

from annotations import services as annotations
from collector import services as collector
from collector.models import Description
from crowd import services as crowd
from crowd.models import AuditEntry, GoldItem, HitType, QualityCheck, Tier
from research.models import Rating
from research.ratings.services import rating_submit
from review.gold import gold_answer_check, gold_answers_unchecked, gold_from_work
from tests.factories import make_description, make_segment, make_staff, make_worker
from tests.research.ratings import make_batch

pytestmark = pytest.mark.django_db

REFERENCES = [
    "A man is slicing a tomato.",
    "Someone cuts a tomato with a knife.",
    "A man slices a red tomato on a board.",
]


def _all_gold(kind):
    HitType.objects.for_kind(kind)
    HitType.objects.filter(kind=kind).update(gold_percent=100)


@pytest.fixture
def gold_segment():
    segment = make_segment()
    described = [make_description(segment, text) for text in REFERENCES]
    gold_from_work(kind=HitType.Kind.DESCRIPTION, work_id=described[0].pk, created_by=None)
    _all_gold(HitType.Kind.DESCRIPTION)
    return segment


def _describe(worker, text, language="en"):
    assignment = crowd.assignment_claim(worker=worker, tier=Tier.ONE)
    collector.description_submit(
        assignment_id=assignment.pk, worker=worker, text=text, language=language
    )
    return assignment


def test_a_gold_description_passes_when_on_topic_in_its_language(gold_segment):
    assignment = _describe(make_worker(), "A man is cutting a tomato with a knife.")
    assert assignment.hit.item_id == gold_segment.item_id
    check = gold_answer_check(assignment_id=assignment.pk)
    assert check.passed and check.details["references"] == 3


@pytest.mark.parametrize(
    "text, why",
    [
        ("Purple elephants dance quietly under bright moonlight.", "bleu"),
        ("Un homme coupe une tomate avec un couteau sur la table.", "reads_as"),
    ],
)
def test_a_gold_description_fails_off_topic_or_in_another_language(gold_segment, text, why):
    assignment = _describe(make_worker(), text)
    check = gold_answer_check(assignment_id=assignment.pk)
    assert not check.passed
    assert why in check.details


def test_an_answer_in_a_language_no_reference_is_written_in_is_not_checked(gold_segment):
    assignment = _describe(make_worker(), "Un homme coupe une tomate.", language="fr")
    assert gold_answer_check(assignment_id=assignment.pk) is None


def test_checking_twice_records_once_and_the_sweep_finds_only_unchecked(gold_segment):
    assignment = _describe(make_worker(), "A man is cutting a tomato.")
    assert gold_answers_unchecked(limit=10) == [assignment.pk]
    gold_answer_check(assignment_id=assignment.pk)
    gold_answer_check(assignment_id=assignment.pk)
    assert QualityCheck.objects.count() == 1
    assert gold_answers_unchecked(limit=10) == []


def test_ordinary_work_is_never_checked():
    make_segment()
    assignment = _describe(make_worker(), "A dog runs.")
    assert gold_answer_check(assignment_id=assignment.pk) is None


def test_a_gold_alignment_is_checked_by_f1_against_its_links():
    segment = make_segment()
    for text in ("A man plays the guitar.", "A man is playing a guitar."):
        _describe(make_worker(), text)
    (pair,) = annotations.pairs_sample(per_cluster=1, seed=0)
    staff_worker = make_worker()
    assignment = crowd.assignment_claim(
        worker=staff_worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT
    )
    right = "0-0 1-1 2-2 3-4"
    alignment, _ = annotations.alignment_submit(
        assignment_id=assignment.pk, worker=staff_worker, links=right
    )
    gold_from_work(kind=HitType.Kind.ALIGNMENT, work_id=alignment.pk, created_by=None)
    _all_gold(HitType.Kind.ALIGNMENT)
    verdicts = []
    for links in (right, "0-4"):
        worker = make_worker()
        claimed = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
        assert claimed.hit.item_id == pair.item_id
        annotations.alignment_submit(assignment_id=claimed.pk, worker=worker, links=links)
        verdicts.append(gold_answer_check(assignment_id=claimed.pk).passed)
    assert verdicts == [True, False]
    assert segment  # the cluster the pair came from


def test_a_gold_rating_passes_within_its_range():
    make_batch(judges=1)
    judge = make_worker()
    first = crowd.assignment_claim(worker=judge, tier=Tier.ONE, kind=HitType.Kind.RATING)
    values = {"semantic": 4, "dissimilarity": 2, "overall": 3}
    rating, _ = rating_submit(assignment_id=first.pk, worker=judge, values=values)
    gold = gold_from_work(kind=HitType.Kind.RATING, work_id=rating.pk, created_by=None)
    assert gold.answer["ranges"]["semantic"] == [3, 4]
    _all_gold(HitType.Kind.RATING)
    verdicts = []
    for values in ((3, 3, 4), (1, 2, 3)):
        worker = make_worker()
        claimed = crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=HitType.Kind.RATING)
        assert claimed.hit.item_id == rating.item.item_id
        rating_submit(
            assignment_id=claimed.pk,
            worker=worker,
            values=dict(zip(Rating.DIMENSIONS, values, strict=True)),
        )
        verdicts.append(gold_answer_check(assignment_id=claimed.pk).passed)
    assert verdicts == [True, False]


def test_a_gold_paraphrase_is_checked_against_the_sentence_and_its_paraphrases():
    from tests.factories import make_paraphrase, make_paraphrase_source

    source = make_paraphrase_source("A man is slicing a tomato.")
    first = make_paraphrase(make_worker(), source, "Someone is cutting a tomato into slices.")
    gold_from_work(kind=HitType.Kind.PARAPHRASE, work_id=first.pk, created_by=None)
    _all_gold(HitType.Kind.PARAPHRASE)
    good = make_paraphrase(make_worker(), source, "A tomato is being sliced by a man.")
    bad = make_paraphrase(make_worker(), source, "My cat enjoys sleeping on warm laptops.")
    assert gold_answer_check(assignment_id=good.assignment_id).passed
    assert not gold_answer_check(assignment_id=bad.assignment_id).passed


def test_rejected_work_cannot_become_gold():
    segment = make_segment()
    rejected = make_description(segment, "Nonsense.", status=Description.Status.REJECTED)
    with pytest.raises(crowd.WorkRefused, match="rejected"):
        gold_from_work(kind=HitType.Kind.DESCRIPTION, work_id=rejected.pk, created_by=None)
    assert not GoldItem.objects.exists()


def test_staff_make_gold_after_a_page_says_what_it_does_and_strangers_cannot(client):
    segment = make_segment()
    description = make_description(segment, REFERENCES[0])
    url = reverse("review:gold_make")
    data = {"kind": "description", "work": description.pk, "next": "/review/descriptions/"}
    client.force_login(make_worker().user)
    assert client.get(url, data).status_code == 403
    assert client.post(url, data).status_code == 403
    assert not GoldItem.objects.exists()
    client.force_login(make_staff())
    confirm = client.get(url, data).content.decode()
    assert not GoldItem.objects.exists()
    assert f"Make description {description.pk} gold?" in confirm
    assert "no longer handed out as ordinary work" in confirm
    assert 'id="gold-rate-zero"' in confirm and "<strong>0%</strong>" in confirm
    assert 'name="next" value="/review/descriptions/"' in confirm
    response = client.post(url, data)
    assert response.url == "/review/descriptions/"
    gold = GoldItem.objects.get()
    assert gold.source == f"description:{description.pk}"
    assert gold.answer["references"] == [{"text": REFERENCES[0], "language": "en"}]
    page = client.get(reverse("review:gold")).content.decode()
    assert f"<td>description {description.pk}</td>" in page
    assert f"description:{description.pk}" not in page
    told = [str(m) for m in response.wsgi_request._messages]
    assert told == [
        f"Description {description.pk} is now gold item {gold.pk}: the segment it describes is "
        "handed out as a check (0% of each worker's tasks, and to anyone with nothing else left)."
    ]


def test_the_confirmation_shows_the_rate_staff_set_and_no_warning(client):
    _all_gold(HitType.Kind.DESCRIPTION)
    description = make_description(make_segment(), REFERENCES[0])
    client.force_login(make_staff())
    page = client.get(
        reverse("review:gold_make"), {"kind": "description", "work": description.pk}
    ).content.decode()
    assert "<strong>100%</strong>" in page and 'id="gold-rate-zero"' not in page


def test_pasted_work_is_never_made_gold_nor_offered_the_button(client):
    from collector.models import Paraphrase
    from tests.factories import make_paraphrase, make_paraphrase_source

    source = make_paraphrase_source("A man is slicing a tomato.")
    typed = make_paraphrase(make_worker(), source, "Someone is cutting a tomato into slices.")
    pasted = make_paraphrase(make_worker(), source, "A tomato is being sliced by a man.")
    Paraphrase.objects.filter(pk=pasted.pk).update(typing_signals=["pasted"])
    Paraphrase.objects.update(status=Paraphrase.Status.PENDING)
    client.force_login(make_staff())
    page = client.get(reverse("review_pages:paraphrases")).content.decode()
    assert f"from paraphrase {typed.pk}<" in page
    assert f"from paraphrase {pasted.pk}<" not in page
    with pytest.raises(crowd.WorkRefused, match="flagged as not typed"):
        gold_from_work(kind=HitType.Kind.PARAPHRASE, work_id=pasted.pk, created_by=None)
    response = client.get(
        reverse("review:gold_make"), {"kind": "paraphrase", "work": pasted.pk}, follow=True
    )
    assert "flagged as not typed on the page" in response.content.decode()
    assert not GoldItem.objects.exists()


def test_a_bad_work_number_says_so_and_changes_nothing(client):
    client.force_login(make_staff())
    response = client.post(
        reverse("review:gold_make"), {"kind": "description", "work": "12x"}, follow=True
    )
    assert "Give the number of the work" in response.content.decode()
    assert not GoldItem.objects.exists()


def test_failed_gold_answers_warn_then_stop_the_worker(gold_segment):
    for _ in range(6):
        make_segment()
    worker = make_worker()
    for _ in range(5):
        gold_segment_item = make_segment()
        crowd.gold_item_create(
            item=gold_segment_item.item,
            answer={"references": [{"text": t, "language": "en"} for t in REFERENCES]},
            source="test",
            created_by=None,
        )
    for _ in range(5):
        assignment = _describe(worker, "Purple elephants dance quietly under the moon.")
        gold_answer_check(assignment_id=assignment.pk)
    actions = list(
        AuditEntry.objects.filter(worker=worker).order_by("pk").values_list("action", flat=True)
    )
    assert actions == ["warn", "block"]
