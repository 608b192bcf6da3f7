"""The rating task: claiming and submitting through the shared HIT machinery, the worker's
page, the platform entrance, review and payment."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from crowd import services as crowd
from crowd.models import Assignment, AuditEntry, HitType, LedgerEntry, Tier
from crowd.services import WorkRefused
from research.models import Rating
from research.ratings.services import rating_submit, ratings_auto_pay, ratings_review
from tests.crowd.test_entrance import mturk, prolific, token_from
from tests.factories import make_staff, make_worker
from tests.pages import task_shown
from tests.research.ratings import make_batch, rate_next

pytestmark = pytest.mark.django_db

RATING = HitType.Kind.RATING
GOOD = {"semantic": "4", "dissimilarity": "3", "overall": "3"}


def claim(worker):
    return crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=RATING)


def test_two_judges_get_the_same_item_and_a_third_does_not():
    make_batch(pairs=[("A man plays a guitar.", "Someone strums a guitar.")])
    first, second, third = make_worker(), make_worker(tier=Tier.TWO), make_worker()
    assert rate_next(first).item == rate_next(second).item
    assert claim(third) is None
    assert Rating.objects.count() == 2


def test_a_worker_never_rates_an_item_twice():
    make_batch(pairs=[("A man plays a guitar.", "Someone strums a guitar.")])
    worker = make_worker()
    assert rate_next(worker) is not None
    assert claim(worker) is None


def test_a_resubmission_stores_the_rating_once():
    make_batch()
    worker = make_worker()
    assignment = claim(worker)
    rating, created = rating_submit(assignment_id=assignment.pk, worker=worker, values=GOOD)
    again, created_again = rating_submit(
        assignment_id=assignment.pk, worker=worker, values={**GOOD, "overall": "1"}
    )
    assert (created, created_again) == (True, False)
    assert again.pk == rating.pk and again.overall == 3
    assert Rating.objects.count() == 1


@pytest.mark.parametrize(
    "values, message",
    [
        ({"semantic": "4", "dissimilarity": "3"}, "Choose a rating from 1 to 4 for overall"),
        ({**GOOD, "semantic": "5"}, "for meaning must be a whole number from 1 to 4"),
        ({**GOOD, "dissimilarity": "0"}, "difference in wording must be"),
        ({**GOOD, "overall": "two"}, "overall quality must be a whole number"),
    ],
)
def test_invalid_ratings_are_refused_with_a_message_and_nothing_is_stored(values, message):
    make_batch()
    worker = make_worker()
    assignment = claim(worker)
    with pytest.raises(WorkRefused, match=message):
        rating_submit(assignment_id=assignment.pk, worker=worker, values=values)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.ASSIGNED
    assert not Rating.objects.exists()
    assert assignment.hit.submitted_count == 0


def test_the_worker_rates_from_the_dashboard_and_goes_on_to_the_next_item(client):
    make_batch(pairs=[("<b>A man</b> plays.", "=HYPERLINK(1)"), ("Second.", "The second.")])
    worker = make_worker()
    client.force_login(worker.user)
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert "Rate paraphrases · Tier 1" in dashboard
    started = client.post(reverse("crowd:task_next"), {"kind": "rating", "tier": "1"})
    first = task_shown(started)
    text = started.content.decode()
    assert text.count("<h1>") == 1
    assert "&lt;b&gt;A man&lt;/b&gt;" in text and "<b>A man</b>" not in text
    following = task_shown(client.post(first, GOOD))
    assert following != first and following.startswith("/research/rate/")
    client.post(following, GOOD)
    assert Rating.objects.filter(worker=worker).count() == 2
    dashboard = client.get(reverse("collector:dashboard")).content.decode()
    assert 'id="count-ratings">2<' in dashboard


def test_a_bad_submission_shows_the_page_again_with_the_reason(client):
    make_batch()
    worker = make_worker()
    client.force_login(worker.user)
    url = reverse("research:rate", args=[claim(worker).pk])
    response = client.post(url, {"semantic": "4", "dissimilarity": "9"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "difference in wording must be a whole number from 1 to 4" in page
    assert 'value="4" id="semantic-4" required checked' in page  # what was chosen stays
    assert not Rating.objects.exists()


def test_another_workers_rating_task_answers_404(client):
    make_batch()
    owner, other = make_worker(), make_worker()
    assignment = claim(owner)
    client.force_login(other.user)
    url = reverse("research:rate", args=[assignment.pk])
    assert client.get(url).status_code == 404
    assert client.post(url, GOOD).status_code == 404
    assert not Rating.objects.exists()


def test_a_submitted_task_reopens_read_only_with_what_was_sent(client):
    make_batch()
    worker = make_worker()
    client.force_login(worker.user)
    assignment = claim(worker)
    rating_submit(assignment_id=assignment.pk, worker=worker, values=GOOD)
    page = client.get(reverse("research:rate", args=[assignment.pk])).content.decode()
    assert "can no longer change" in page
    assert 'value="3" id="overall-3" required checked' in page


URL = reverse("research:platform_rate")


@pytest.mark.usefixtures("platform_demo")
@pytest.mark.usefixtures("mturk_framing")
def test_a_mechanical_turk_worker_rates_an_item_and_is_sent_back_to_submit(client):
    make_batch()
    arrival = client.get(URL, mturk())
    assert arrival.status_code == 200
    done = client.post(
        URL, {"token": token_from(arrival), **GOOD, "turkSubmitTo": mturk()["turkSubmitTo"]}
    )
    assignment = Assignment.objects.get()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert assignment.rating.overall == 3
    assert "mturk/externalSubmit" in done.content.decode()


def test_a_platform_preview_shows_an_item_and_stores_nothing(client):
    make_batch()
    response = client.get(URL, {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "3HIT"})
    assert response.status_code == 200 and "This is a preview" in response.content.decode()
    assert not Assignment.objects.exists()


@pytest.mark.usefixtures("platform_demo")
def test_a_prolific_worker_with_a_bad_rating_sees_the_reason_and_nothing_is_stored(client):
    make_batch()
    arrival = client.get(URL, prolific())
    response = client.post(URL, {"token": token_from(arrival), "semantic": "4"})
    assert response.status_code == 400
    assert "Choose a rating from 1 to 4" in response.content.decode()
    assert not Rating.objects.exists()


def test_the_rating_kind_has_a_platform_entrance(settings):
    from crowd.platforms import entrance_url

    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example"
    assert entrance_url(RATING) == "https://paracrowd.example/research/external/rate/"


def test_staff_accept_and_pay_a_rating_and_reject_another_which_reopens_its_slot():
    make_batch(pairs=[("A man plays a guitar.", "Someone strums a guitar.")])
    staff = make_staff()
    paid, refused = rate_next(make_worker()), rate_next(make_worker())
    assert ratings_review(rating_ids=[paid.pk], accept=True, reviewer=staff, reason="") == 1
    with pytest.raises(WorkRefused, match="Give a reason"):
        ratings_review(rating_ids=[refused.pk], accept=False, reviewer=staff, reason=" ")
    ratings_review(rating_ids=[refused.pk], accept=False, reviewer=staff, reason="Random clicks")
    paid.refresh_from_db(), refused.refresh_from_db()
    assert (paid.status, refused.status) == ("accepted", "rejected")
    assert refused.review_reason == "Random clicks"
    entry = LedgerEntry.objects.get()
    assert (entry.worker, entry.amount_cents) == (paid.worker, 2)
    assert AuditEntry.objects.filter(action=AuditEntry.Action.REJECT).count() == 1
    # The rejected judge's slot is open again to a third worker.
    assert rate_next(make_worker()) is not None
    # Deciding again changes nothing.
    assert ratings_review(rating_ids=[paid.pk], accept=True, reviewer=staff, reason="") == 0


def test_ratings_nobody_reviewed_are_paid_and_accepted_after_the_delay_once():
    make_batch()
    rating = rate_next(make_worker())
    assert ratings_auto_pay() == 0
    later = timezone.now() + timedelta(days=4)
    assert ratings_auto_pay(now=later) == 1
    assert ratings_auto_pay(now=later) == 0
    rating.refresh_from_db()
    assert rating.status == Rating.Status.ACCEPTED
    assert LedgerEntry.objects.count() == 1


def test_the_review_page_is_for_staff_and_a_decision_is_made_there(client):
    batch = make_batch()
    rating = rate_next(make_worker())
    url = reverse("review_pages:ratings", args=[batch.pk])
    client.force_login(make_worker().user)
    assert client.post(url, {"rating": rating.pk, "decision": "accept"}).status_code == 403
    rating.refresh_from_db()
    assert rating.status == "pending"  # refused, nothing decided
    client.force_login(make_staff())
    client.post(url, {"rating": rating.pk, "decision": "accept"})
    rating.refresh_from_db()
    assert rating.status == "accepted"


def test_a_judge_who_misrates_a_copy_is_listed_first_and_not_paid_automatically(client):
    from research.ratings.services import rating_review_queue

    batch = make_batch(
        pairs=[
            ("A man plays a guitar.", "Someone strums a guitar."),
            ("A dog runs.", "A dog runs."),
        ]
    )
    careless, careful = make_worker(), make_worker()
    ratings = [rate_next(careless, (4, 4, 4)), rate_next(careless, (4, 4, 4))]
    ratings += [rate_next(careful, (4, 1, 1)), rate_next(careful, (4, 1, 1))]
    copy_misrated = next(r for r in ratings[:2] if r.item.candidate == r.item.source)
    queue = rating_review_queue(batch=batch)
    assert queue[0] == copy_misrated and queue[0].misrates_a_copy
    assert sum(rating.misrates_a_copy for rating in queue) == 1
    assert ratings_auto_pay(now=timezone.now() + timedelta(days=4)) == 3
    copy_misrated.refresh_from_db()
    assert copy_misrated.status == Rating.Status.PENDING
    client.force_login(make_staff())
    page = client.get(reverse("research:rating_batch", args=[batch.pk])).content.decode()
    assert "The candidate is a copy of its source" in page
