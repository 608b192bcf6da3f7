"""Scoring jobs through the API, run to the end in this process (the worker's own service)."""

from django.urls import reverse

from research import services


def post_and_run(api, body) -> dict:
    """POST ``body`` to the scoring endpoint, run the job it queued, GET it back."""
    response = api.post(reverse("research-api:system-scores"), body, format="json")
    assert response.status_code == 202, response.content
    job = response.json()
    assert response["Location"] == job["url"]
    services.system_score_job_run(job_id=job["id"])
    done = api.get(job["url"])
    assert done.status_code == 200
    return done.json()


def only_system(api, body) -> dict:
    """The result row of a one-system job."""
    job = post_and_run(api, body)
    assert job["state"] == "done", job["error"]
    (row,) = job["result"]["systems"]
    return row
