"""One account of every role and an object of every kind behind the site's pages, for the
whole-site tests (tests/paracrowd/test_site.py, tests/browser/test_every_page.py): every detail
page then has something to show, and every task page a task of its worker's own."""

from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.contrib.auth.tokens import default_token_generator
from django.core.files import File
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from annotations import services as annotations
from collector import services as collector
from collector.models import Segment
from crowd import services as crowd
from crowd.models import Campaign, HitType, Tier
from paracrowd_metrics.ratings_analysis import AnalysisOptions
from paracrowd_metrics.testing import simulated_ratings
from research import services as research
from research.correlation import correlation_parameters
from research.exports.base import ExportOptions
from review.services import worker_signals_refresh
from tests.factories import (
    make_mturk_campaign,
    make_paraphrase,
    make_paraphrase_source,
    make_proposal,
    make_researcher,
    make_segment,
    make_staff,
    make_submitted_description,
    make_worker,
)
from tests.research.ratings import make_batch, rate_next

CLIP = Path(__file__).resolve().parents[1] / "demo" / "clip.webm"
ROLES = ("anonymous", "tier1", "tier2", "staff", "researcher")
# The pages of a worker's own task, by URL name, and the kind of task each shows.
TASK_PAGES = {
    "collector:describe": HitType.Kind.DESCRIPTION,
    "collector:propose": HitType.Kind.VIDEO_COLLECTION,
    "collector:paraphrase": HitType.Kind.PARAPHRASE,
    "annotations:align": HitType.Kind.ALIGNMENT,
    "research:rate": HitType.Kind.RATING,
    "crowd:skip": HitType.Kind.DESCRIPTION,
}
SENTENCES = [
    "A man is playing a guitar on a small stage.",
    "A man plays the guitar.",
    "Someone strums an old guitar for a crowd.",
]


@dataclass
class Site:
    users: dict  # role → account (None: a visitor not logged in)
    arguments: dict  # URL name → keyword arguments, the same for every role
    tasks: dict = field(default_factory=dict)  # worker role → {URL name: their own task's}

    def arguments_for(self, role: str) -> dict:
        """Every URL's arguments as ``role`` opens them: a worker their own tasks, anyone else
        the Tier-1 worker's (which they may not open)."""
        return {**self.arguments, **self.tasks.get(role, self.tasks["tier1"])}


def make_site() -> Site:
    """Every role's account and the objects behind the pages. A hosted clip and an export are
    stored in MEDIA_ROOT: the caller points it at a temporary folder (the media_root fixture)."""
    tier1, tier2 = make_worker(username="wanda"), make_worker(tier=Tier.TWO, username="tomas")
    staff = make_staff(username="ada")
    staff.is_superuser = True
    staff.save()
    researcher = make_researcher(username="rita")
    # A cluster of descriptions by other workers: the measures, review and alignment pages.
    segment = make_segment(title="A man plays guitar")
    for n, text in enumerate(SENTENCES):
        writer = make_worker(username=f"author{n}")
        assignment = crowd.assignment_claim(worker=writer, tier=Tier.ONE)
        collector.description_submit(
            assignment_id=assignment.pk, worker=writer, text=text, language="en"
        )
        worker_signals_refresh(worker_id=writer.pk)
    make_submitted_description(tier1, "A dog catches a red ball in the park.")
    worker_signals_refresh(worker_id=tier1.pk)
    (pair, *_) = annotations.pairs_sample(per_cluster=2, seed=0)
    batch = make_batch(created_by=researcher)
    # Work waiting for review: an alignment, a rating, a paraphrase.
    author = make_worker(username="author-of-work")
    aligned = crowd.assignment_claim(worker=author, tier=Tier.ONE, kind=HitType.Kind.ALIGNMENT)
    annotations.alignment_submit(assignment_id=aligned.pk, worker=author, links="0-0 1-1")
    rate_next(author)
    make_paraphrase(author, make_paraphrase_source(), "A man cuts up a tomato.")
    make_paraphrase_source("A woman is cutting an onion.")
    tasks = {role: _tasks(worker, tier) for role, worker, tier in _workers(tier1, tier2)}
    analysis = _correlation_report(researcher)
    export = research.export_job_create(user=researcher, options=ExportOptions(format="msvd-csv"))
    research.export_job_run(job_id=export.pk)
    with CLIP.open("rb") as clip:
        video = collector.video_upload(
            file=File(clip, name="clip.webm"), title="A clip", uploaded_by=staff
        )
    with CLIP.open("rb") as clip:
        make_segment(
            source=Segment.Source.FILE,
            youtube_id="",
            video_file=File(clip, name="clip.webm"),
            start=2,
            end=3,
        )
    gold = crowd.gold_item_create(
        item=make_segment().item, answer={"references": []}, source="test", created_by=staff
    )
    campaign = make_mturk_campaign(created_by=staff)
    crowd.campaign_create(
        name="Autumn study",
        platform=Campaign.Platform.STUDY_LINK,
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        size=1,
        lifetime=timedelta(days=7),
        created_by=staff,
    )
    arguments = {
        "crowd:platform_hooks": {"platform": "prolific"},
        "research:rating_batch": {"pk": batch.pk},
        "review_pages:ratings": {"pk": batch.pk},
        "research:rating_batch_csv": {"pk": batch.pk},
        "research:rating_batch_consensus_csv": {"pk": batch.pk},
        "annotations:pair": {"pk": pair.pk},
        "annotations:pair_trial": {"pk": pair.pk},
        "scoring:cluster": {"segment_id": segment.pk},
        "review:worker": {"pk": tier1.pk},
        "review:standing": {"pk": tier1.pk},
        "review:bonus": {"pk": tier1.pk},
        "review:gold_retire": {"pk": gold.pk},
        "segment_review:proposal": {"pk": make_proposal().pk},
        "segment_review:video": {"pk": video.pk},
        "password_reset_confirm": {
            "uidb64": urlsafe_base64_encode(force_bytes(tier1.user.pk)),
            "token": default_token_generator.make_token(tier1.user),
        },
        "research:correlation": {"pk": analysis.pk},
        "research:correlation_store_combined": {"pk": analysis.pk},
        "research:release_file": {"number": 1, "name": "README.md"},
        "admin:crowd_campaign_change": {"object_id": campaign.pk},
        "admin:crowd_campaign_confirm": {"pk": campaign.pk},
        "admin:crowd_campaign_state": {"pk": campaign.pk},
        "admin:crowd_campaign_sheet": {"pk": campaign.pk, "sheet": "participants"},
        "admin:crowd_campaign_action": {"pk": campaign.pk, "action": "publish"},
    }
    users = {
        "anonymous": None,
        "tier1": tier1.user,
        "tier2": tier2.user,
        "staff": staff,
        "researcher": researcher,
    }
    return Site(users=users, arguments=arguments, tasks=tasks)


def _workers(tier1, tier2):
    return [("tier1", tier1, Tier.ONE), ("tier2", tier2, Tier.TWO)]


def _tasks(worker, tier) -> dict:
    """A task of every kind held by ``worker`` in ``tier`` (in Tier 1 when the kind is not
    offered in ``tier``: rating batches are), by the URL name of its page."""
    held = {
        kind: crowd.assignment_claim(worker=worker, tier=tier, kind=kind)
        or crowd.assignment_claim(worker=worker, tier=Tier.ONE, kind=kind)
        for kind in set(TASK_PAGES.values())
    }
    assert all(held.values()), f"no task for {worker}: {held}"
    return {name: {"pk": held[kind].pk} for name, kind in TASK_PAGES.items()}


def _correlation_report(researcher):
    # Ratings that a centre and slope fit, so that staff are offered to store them.
    ratings = "source,candidate,rating,judge,references\n" + "".join(
        f"{record.source},{record.candidate},{record.ratings['overall']},{record.judge},"
        f"{' ||| '.join(record.references)}\n"
        for record in simulated_ratings(count=40, references=4)
    )
    analysis = research.correlation_report_create(
        user=researcher,
        name="ratings.csv",
        ratings_csv=ratings,
        parameters=correlation_parameters(
            text=ratings,
            name="ratings.csv",
            options=AnalysisOptions(draws=2, resamples=20, folds=3),
            dimension=None,
            meteor=False,
        ),
    )
    research.correlation_report_run(report_id=analysis.pk)
    return analysis
