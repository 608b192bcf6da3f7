"""What a researcher tries on the demo ``make run`` loads: a release under the demo's own
licence, a comparison of systems on the test split, and the site's analysis of the ratings
the site itself exports."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from collector.models import Description
from research import services
from research.models import CorrelationReport, SystemScoreJob
from research.splits import SplitOptions

pytestmark = pytest.mark.django_db

MAKEFILE = Path(django_settings.BASE_DIR) / "Makefile"


def demo_setting(name: str) -> str:
    """What ``make run`` sets ``name`` to when the environment does not (the Makefile)."""
    return re.search(rf"^DEMO_{name} := (.+)$", MAKEFILE.read_text(), re.MULTILINE).group(1)


@pytest.fixture
def demo(media_root):
    call_command("load_demo", verbosity=0)


@pytest.fixture
def researcher(client, demo):
    client.force_login(get_user_model().objects.get(username="researcher"))
    return client


def test_make_run_gives_the_demo_a_release_licence_that_says_it_is_the_demos(
    demo, settings, tmp_path
):
    settings.RELEASE_LICENSE = demo_setting("RELEASE_LICENSE")
    settings.RELEASE_CITATION = demo_setting("RELEASE_CITATION")

    call_command("release", "--output", str(tmp_path / "release"), "--format", "jsonl")

    manifest = json.loads((tmp_path / "release" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["licence"] == "other" and manifest["counts"]["descriptions"] == 16
    card = (tmp_path / "release" / "README.md").read_text(encoding="utf-8")
    assert "for trying releases only" in card


def test_the_demo_has_described_videos_on_the_test_side_of_the_default_split(demo):
    split = SplitOptions()
    sides = {
        description.pk: split.side_of_segment(description.segment)
        for description in Description.objects.accepted().select_related("segment")
    }
    assert list(sides.values()).count("test") >= 4
    assert "train" in sides.values()


def test_a_system_is_compared_on_the_demos_test_split_with_the_page_defaults(researcher):
    split = SplitOptions()
    sources = [
        description.text
        for description in Description.objects.accepted().select_related("segment")
        if split.side_of_segment(description.segment) == "test"
    ]
    copy = "\n".join(f"{source}\t{source}" for source in sources)
    form = {"outputs": [SimpleUploadedFile("copy.tsv", copy.encode())], "seed": 0}
    form["test_fraction"] = split.test_fraction

    response = researcher.post(reverse("research:comparison_start"), form)

    assert response.status_code == 302
    job = SystemScoreJob.objects.get()
    services.system_score_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.state == "done", job.error
    (system,) = job.result["systems"]
    assert system["scored"] == len(sources) and not system["unscored"]


def test_every_rating_the_demo_exports_is_analysed_by_the_sites_own_analysis(researcher):
    exported = researcher.get(reverse("research:ratings_csv"))
    text = b"".join(exported.streaming_content)
    # The page's defaults (five folds), with fewer draws and resamples to stay quick.
    form = {"references": "1,2,4,8,16,all", "folds": "5", "draws": "2", "bootstrap": "50"}
    form |= {"seed": "1", "consensus": "mean", "ratings": SimpleUploadedFile("ratings.csv", text)}

    response = researcher.post(reverse("research:correlations"), form)

    assert response.status_code == 302, response.content.decode()
    report = CorrelationReport.objects.latest("pk")
    services.correlation_report_run(report_id=report.pk)
    report.refresh_from_db()
    assert report.state == CorrelationReport.State.DONE, report.error
    assert report.result["pairs"] >= 5
