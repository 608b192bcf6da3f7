"""Export jobs: started through the API or the researcher page, run by a Celery worker, their
files handed only to whoever asked (and staff)."""

import urllib.request
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from research import services
from research.exports import ExportOptions
from research.models import ExportJob
from research.tasks import sweep_export_jobs
from tests.conftest import wait_for
from tests.factories import make_description, make_researcher, make_segment, make_worker

TEXTS = ["A man plays a guitar.", "Someone strums a guitar."]


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def make_corpus():
    segment = make_segment()
    for text in TEXTS:
        make_description(segment, text)
    return segment


def finished(job_id):
    job = ExportJob.objects.get(pk=job_id)
    return job if job.is_finished else None


def download(client, link):
    response = client.get(link)
    if response.status_code == 302:
        with urllib.request.urlopen(response["Location"]) as answer:  # noqa: S310 (moto, local)
            return answer.read()
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def test_an_export_started_through_the_api_gives_its_owner_a_download_link(
    live_worker, media_root, tmp_path
):
    make_corpus()
    researcher, other = make_researcher(), make_researcher()
    api = client_for(researcher)

    created = api.post(reverse("research-api:exports"), {"format": "msvd-csv"}, format="json")
    assert created.status_code == 201 and created.json()["state"] == "queued"
    wait_for(lambda: finished(created.json()["id"]))
    job = ExportJob.objects.get(pk=created.json()["id"])

    body = api.get(reverse("research-api:export", args=[job.pk])).json()
    assert body["state"] == "done" and body["report"]["descriptions"] == 2
    assert body["report"]["files"] == {"corpus.csv": 2} and str(media_root) not in str(body)
    (file,) = body["files"]
    assert file["name"] == "corpus.csv"
    call_command(
        "export_corpus", str(tmp_path / "c.csv"), "--format", "msvd-csv", stdout=StringIO()
    )
    assert download(api, file["url"]) == (tmp_path / "c.csv").read_bytes()
    # Someone else's job and its files do not exist, as far as they can tell.
    stranger = client_for(other)
    assert stranger.get(reverse("research-api:export", args=[job.pk])).status_code == 404
    assert stranger.get(file["url"]).status_code == 404
    assert stranger.get(reverse("research-api:exports")).json()["results"] == []
    assert client_for(make_worker().user).get(file["url"]).status_code == 403


def test_exports_on_s3_storage_are_handed_out_as_presigned_links(live_worker, s3_server, settings):
    endpoint, client, bucket = s3_server
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"bucket_name": bucket, "endpoint_url": endpoint},
        },
    }
    make_corpus()
    api = client_for(make_researcher())

    created = api.post(
        reverse("research-api:exports"), {"format": "split", "test_fraction": 0.5}, format="json"
    )
    wait_for(lambda: finished(created.json()["id"]))
    job = ExportJob.objects.get(pk=created.json()["id"])

    assert job.state == "done", job.error
    body = api.get(reverse("research-api:export", args=[job.pk])).json()
    files = {file["name"]: file["url"] for file in body["files"]}
    assert set(files) == {"train.tsv", "test.jsonl"}
    response = api.get(files["train.tsv"])
    assert response.status_code == 302 and "Signature" in response["Location"]
    tsv, jsonl = download(api, files["train.tsv"]), download(api, files["test.jsonl"])
    assert b"source\tparaphrase" in tsv and (TEXTS[0].encode() in tsv + jsonl)
    keys = {item["Key"] for item in client.list_objects_v2(Bucket=bucket)["Contents"]}
    assert f"{job.folder}/train.tsv" in keys


@pytest.mark.django_db
def test_running_a_job_twice_exports_once_and_leaves_it_done(media_root):
    make_corpus()
    job = services.export_job_create(user=make_researcher(), options=ExportOptions("jsonl"))

    # Inside the test's transaction: run it directly, as the task does.
    assert services.export_job_run(job_id=job.pk) is not None
    assert services.export_job_run(job_id=job.pk) is None
    job.refresh_from_db()
    assert (job.state, job.files) == ("done", ["clusters.jsonl"])
    assert (media_root / job.folder / "clusters.jsonl").read_text().count("\n") == 1


@pytest.mark.django_db
def test_a_failing_export_is_marked_failed_with_its_error(media_root, monkeypatch):
    job = services.export_job_create(user=make_researcher(), options=ExportOptions("jsonl"))

    def broken(**kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(services, "corpus_export", broken)
    assert services.export_job_run(job_id=job.pk) is None
    job.refresh_from_db()
    assert job.state == "failed" and job.error == "OSError: disk full" and job.finished_at


@pytest.mark.django_db
def test_bad_export_requests_are_refused_with_the_field_named(media_root):
    api = client_for(make_researcher())

    for body, field in [
        ({"format": "xml"}, "format"),
        ({"format": "pairs", "pairs_per_sentence": 0}, "pairs_per_sentence"),
        ({"format": "split", "test_fraction": 1.5}, "test_fraction"),
        ({"format": "jsonl", "filter": {"tier": ["3"]}}, "filter"),
    ]:
        response = api.post(reverse("research-api:exports"), body, format="json")
        assert response.status_code == 400 and field in response.json(), body
    assert not ExportJob.objects.exists()


def test_the_sweep_queues_jobs_whose_message_was_lost(live_worker, media_root):
    make_corpus()
    job = ExportJob.objects.create(
        requested_by=make_researcher(),
        format="pairs",
        parameters=ExportOptions("pairs").as_dict(),
        folder="exports/lost",
    )
    ExportJob.objects.filter(pk=job.pk).update(created_at=job.created_at - services_stall())

    assert sweep_export_jobs() == 1
    wait_for(lambda: finished(job.pk))
    assert ExportJob.objects.get(pk=job.pk).state == "done"


def services_stall():
    from research.tasks import STALLED_AFTER

    return STALLED_AFTER * 2
