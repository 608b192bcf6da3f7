"""Several systems scored side by side in one Celery job: the API accepts the job, a worker
scores it, and each system (and the corpus's own descriptions) is compared with a baseline."""

import itertools
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

import paracrowd_metrics as metrics
from research import services
from research.models import SystemScoreJob
from research.splits import SplitOptions, video_key
from research.system_comparison import HUMAN
from research.tasks import STALLED_AFTER, sweep_system_score_jobs
from tests.conftest import wait_for
from tests.factories import make_description, make_researcher, make_segment, make_worker
from tests.research.system_jobs import post_and_run

SEED = 5
WAYS = ("quickly", "slowly", "carefully")
# Where each test starts looking for test videos: their ids never repeat within a run.
NAMES = itertools.count(0, 100_000)


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def make_test_segments(count: int) -> list:
    """``count`` test-split segments of three descriptions each. The side depends on the
    video alone, so test videos are picked before anything is stored."""
    split = SplitOptions(seed=SEED)
    videos = (f"cmp{n:08d}" for n in itertools.count(next(NAMES)))
    found = []
    for video in videos:
        if len(found) == count:
            return found
        if split.side(video_key("youtube", video)) != "test":
            continue
        segment = make_segment(youtube_id=video)
        for way in WAYS:
            make_description(segment, f"A person {way} peels fruit number {segment.pk}.")
        found.append(segment)


def source_of(segment) -> str:
    return f"A person quickly peels fruit number {segment.pk}."


def three_systems(segments) -> list[dict]:
    def outputs(write):
        return [{"source": source_of(s), "output": write(s)} for s in segments]

    return [
        {"name": "copy", "pairs": outputs(source_of)},
        {"name": "reword", "pairs": outputs(lambda s: f"Somebody peels fruit number {s.pk}.")},
        {"name": "unrelated", "pairs": outputs(lambda s: "The weather is nice today.")},
    ]


def finished(job_id):
    job = SystemScoreJob.objects.get(pk=job_id)
    return None if job.is_pending else job


def test_three_systems_are_compared_with_significance_by_a_celery_worker(live_worker):
    segments = make_test_segments(6)
    api = client_for(make_researcher())
    body = {"systems": three_systems(segments), "baseline": "copy", "seed": SEED}

    response = api.post(reverse("research-api:system-scores"), body, format="json")

    assert response.status_code == 202, response.content
    job = response.json()
    assert job["state"] == "queued" and job["result"] is None
    assert response["Location"] == job["url"]
    wait_for(lambda: finished(job["id"]))
    job = api.get(response["Location"]).json()
    assert job["state"] == "done", job["error"]
    result = job["result"]
    assert [row["name"] for row in result["systems"]] == ["copy", "reword", "unrelated"]
    assert all(row["scored"] == 6 for row in result["systems"])
    copy, reword, unrelated = result["systems"]
    assert copy["pinc"] == 0 and reword["pinc"] > 0
    assert unrelated["mean_bleu"] < reword["mean_bleu"]
    assert result["human"]["name"] == HUMAN and result["human"]["scored"] == 6
    assert set(result["comparisons"]) == {"reword", "unrelated", HUMAN}
    pinc = result["comparisons"]["reword"]["pinc"]
    # Every item gains PINC over the copy, so no resample reaches zero.
    assert pinc["items"] == 6 and pinc["difference"] == pytest.approx(reword["pinc"])
    assert 0 < pinc["low"] <= pinc["difference"] <= pinc["high"]
    assert pinc["p_value"] < 0.01
    assert set(result["comparisons"]["unrelated"]) == {"bleu", "pinc", "combined", "meteor"}


def test_the_same_job_gives_the_same_figures_every_time(db):
    segments = make_test_segments(4)
    api = client_for(make_researcher())
    body = {"systems": three_systems(segments), "baseline": "reword", "seed": SEED}

    first = post_and_run(api, body)["result"]
    second = post_and_run(api, body)["result"]

    assert first == second
    assert first["baseline"] == "reword" and first["samples"] == 1000


def test_the_human_row_scores_another_description_against_the_rest_of_its_cluster(db):
    (segment,) = make_test_segments(1)
    api = client_for(make_researcher())
    body = {
        "pairs": [{"source": source_of(segment), "output": "Someone peels a fruit."}],
        "seed": SEED,
        "per_pair": True,
    }

    human = post_and_run(api, body)["result"]["human"]

    (score,) = human["scores"]
    assert score["references"] == 1  # the third description; the chosen one is left out
    others = [f"A person {way} peels fruit number {segment.pk}." for way in WAYS[1:]]
    possible = {
        metrics.sentence_bleu(output, [reference]) for output, reference in (others, others[::-1])
    }
    assert score["bleu"] in possible


@pytest.mark.parametrize(
    "change, field",
    [
        ({"pairs": [{"source": "a", "output": "b"}]}, "systems"),
        ({"baseline": "nobody"}, "baseline"),
        ({"systems": [{"name": "same", "pairs": [{"source": "a", "output": "b"}]}] * 2}, "systems"),
        ({"systems": [{"name": HUMAN, "pairs": [{"source": "a", "output": "b"}]}]}, "systems"),
        (
            {
                "systems": [
                    {"name": f"s{n}", "pairs": [{"source": "a", "output": "b"}]} for n in range(9)
                ]
            },
            "systems",
        ),
        ({"bootstrap_samples": 0}, "bootstrap_samples"),
        ({"test_fraction": 0.6, "dev_fraction": 0.4}, "dev_fraction"),
    ],
)
def test_bad_requests_are_refused_with_the_field_named_and_no_job_stored(db, change, field):
    api = client_for(make_researcher())
    body = {"systems": [{"name": "a", "pairs": [{"source": "x", "output": "y"}]}], **change}

    response = api.post(reverse("research-api:system-scores"), body, format="json")

    assert response.status_code == 400 and field in response.json(), response.json()
    assert not SystemScoreJob.objects.exists()


def test_a_researcher_sees_only_their_own_jobs_and_a_worker_none(db):
    owner, other = make_researcher(), make_researcher()
    body = {"pairs": [{"source": "x", "output": "y"}]}
    job = client_for(owner).post(reverse("research-api:system-scores"), body, format="json")
    url = job.json()["url"]

    assert client_for(owner).get(url).status_code == 200
    assert client_for(other).get(url).status_code == 404
    assert client_for(other).get(reverse("research-api:system-scores")).json()["results"] == []
    assert client_for(make_worker().user).get(url).status_code == 403


def test_a_job_is_scored_once_and_a_dead_workers_claim_is_retaken(live_worker):
    make_test_segments(1)
    job = SystemScoreJob.objects.create(
        requested_by=make_researcher(),
        systems=[{"name": "s", "pairs": [["x", "y", None]]}],
        parameters={
            "baseline": "s",
            "filter": {},
            "split": {"seed": SEED, "test_fraction": 0.1},
            "centre": 40.0,
            "slope": 0.2,
            "samples": 10,
            "bootstrap_seed": 0,
            "per_pair": False,
        },
    )
    # A worker claimed it and died (its claim lock went with it); its message is gone.
    long_ago = timezone.now() - STALLED_AFTER - timedelta(minutes=1)
    SystemScoreJob.objects.filter(pk=job.pk).update(
        state="running", started_at=long_ago, requested_at=long_ago
    )

    assert sweep_system_score_jobs() == 1
    wait_for(lambda: finished(job.pk))

    job.refresh_from_db()
    assert job.state == "done" and job.result["systems"][0]["unscored"][0]["index"] == 1
    assert not services.system_score_job_run(job_id=job.pk)


def upload(name: str, lines: list[str]):
    return SimpleUploadedFile(name, "\n".join(lines).encode(), content_type="text/plain")


def test_systems_uploaded_on_the_page_are_compared_and_shown_side_by_side(client, db):
    segments = make_test_segments(3)
    client.force_login(make_researcher())
    copy = ["source\toutput", *[f"{source_of(s)}\t{source_of(s)}" for s in segments]]
    reword = [f"{source_of(s)}\tSomebody peels fruit number {s.pk}." for s in segments]
    form = {
        "outputs": [upload("copy.tsv", copy), upload("<i>reword.tsv", reword)],
        "baseline": "copy",
        "seed": SEED,
        "test_fraction": 0.1,
    }

    response = client.post(reverse("research:comparison_start"), form)

    assert response.status_code == 302
    job = SystemScoreJob.objects.get()
    assert job.system_names == ["copy", "<i>reword"] and job.state == "queued"
    services.system_score_job_run(job_id=job.pk)
    page = client.get(reverse("research:home")).content.decode()
    assert "copy (baseline)" in page and HUMAN in page
    assert "&lt;i&gt;reword" in page and "<i>reword" not in page
    assert "p=0.0" in page  # every item's PINC rises over the copy's
    # Three pairs: the p-value comes with a warning, and the differences with a forest plot.
    job.refresh_from_db()
    assert job.result["warning"].startswith("Small sample: 3 scored pairs.")
    assert f'id="small-sample-{job.pk}"' in page and "only 10 distinct resamples" in page
    assert "⚠ n=3" in page
    forest = page[page.index(f'id="forest-{job.pk}"') :]
    assert forest.count('<figure class="chart forest">') == 4
    assert 'class="zero"' in forest and "&lt;i&gt;reword: " in forest


def test_a_comparison_on_enough_pairs_carries_no_warning(db):
    from research.system_comparison import FEW_PAIRS, comparison_warning

    enough = {"comparisons": {"b": {"bleu": {"items": FEW_PAIRS}, "pinc": None}}}
    assert comparison_warning(enough) is None
    few = {"comparisons": {"b": {"bleu": {"items": FEW_PAIRS - 1}, "pinc": None}}}
    assert comparison_warning(few).startswith(f"Small sample: {FEW_PAIRS - 1} scored pairs.")


@pytest.mark.parametrize(
    "files, baseline, message",
    [
        ([("a.tsv", ["only one column"])], "", "a:1: expected source"),
        ([("a.tsv", ["x\ty"]), ("b.tsv", ["x\ty"])], "c", "Name one of the files"),
        ([("a.tsv", ["x\ty"]), ("a.txt", ["x\ty"])], "", "a name of its own"),
        ([("a.tsv", ["x\ty\tseven"])], "", "is not a segment id"),
    ],
)
def test_bad_uploads_are_refused_with_a_message_and_nothing_queued(
    client, db, files, baseline, message
):
    client.force_login(make_researcher())
    form = {
        "outputs": [upload(name, lines) for name, lines in files],
        "baseline": baseline,
        "seed": SEED,
        "test_fraction": 0.1,
    }

    response = client.post(reverse("research:comparison_start"), form)

    assert response.status_code == 400 and message in response.content.decode()
    assert not SystemScoreJob.objects.exists()


def test_a_worker_cannot_start_a_comparison(client, db):
    client.force_login(make_worker().user)
    assert client.post(reverse("research:comparison_start")).status_code == 403
