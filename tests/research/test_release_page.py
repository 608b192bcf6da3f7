"""Releases on the research page: researchers and staff make them (a Celery worker writes
them), everyone of them sees and downloads them; nobody else does, unless the operator makes a
release public."""

import json
import re
import shutil
import threading

import pytest
from django.urls import reverse

from research.models import Release
from research.releases import services
from research.releases.options import ReleaseOptions
from research.tasks import STALLED_AFTER, sweep_releases
from tests.conftest import wait_for
from tests.factories import make_description, make_researcher, make_segment, make_staff, make_worker
from tests.research.releases import download, make_corpus, make_release


@pytest.fixture(autouse=True)
def site_licence(settings):
    settings.RELEASE_LICENSE = "cc-by-sa-4.0"
    settings.RELEASE_CITATION = "Our paper, 2026."


def finished(number):
    release = Release.objects.filter(number=number).first()
    return release if release and release.is_finished else None


def test_a_researcher_makes_a_release_on_the_page_and_everyone_of_them_downloads_it(
    client, live_worker, media_root
):
    make_corpus()
    researcher = make_researcher()
    client.force_login(researcher)

    response = client.post(
        reverse("research:release_start"),
        {
            "language": "en",
            "release-formats": ["msvd-json"],
            "release-seed": "0",
            "release-test_fraction": "0",
            "release-dev_fraction": "0",
        },
    )

    assert response.status_code == 302 and "language=en" in response["Location"]
    wait_for(lambda: finished(1))
    release = Release.objects.get()
    assert (release.state, release.created_by) == ("done", researcher)
    assert release.manifest["filter"]["language"] == ["en"]
    assert release.file_names == [
        "README.md",
        "data/train-00000.parquet",
        "msvd-json/train.json",
        "manifest.json",
    ]
    # Another researcher sees it listed, with its files to download.
    client.force_login(make_researcher())
    page = client.get(reverse("research:home")).content.decode()
    link = reverse("research:release_file", args=[1, "manifest.json"])
    assert 'id="releases"' in page and f'href="{link}"' in page and "cc-by-sa-4.0" in page
    assert json.loads(download(client, link)) == release.manifest
    card = download(client, reverse("research:release_file", args=[1, "README.md"])).decode()
    assert 'license: "cc-by-sa-4.0"' in card and "Our paper, 2026." in card
    assert str(media_root) not in page
    # Only the release's own files: nothing else in the storage is reachable through it.
    (media_root / release.folder / "other.txt").write_text("not part of it")
    for name in ("other.txt", "../1/manifest.json", "missing.json"):
        response = client.get(reverse("research:release_file", args=[1, name]))
        assert response.status_code == 404, name
    assert client.get(reverse("research:release_file", args=[2, "README.md"])).status_code == 404


@pytest.mark.django_db
def test_workers_are_refused_and_visitors_sent_to_log_in(client, media_root):
    make_corpus()
    services.release_create(user=make_staff(), options=ReleaseOptions(), queue=False)
    services.release_run(release_id=Release.objects.get().pk)
    start = reverse("research:release_start")
    file = reverse("research:release_file", args=[1, "manifest.json"])

    assert client.post(start).status_code == 302 and client.get(file).status_code == 302
    client.force_login(make_worker().user)
    assert client.post(start, {"release-seed": "0"}).status_code == 403
    assert client.get(file).status_code == 403
    assert Release.objects.count() == 1
    client.force_login(make_staff())
    assert client.get(file).status_code == 200


@pytest.mark.django_db
def test_bad_release_requests_are_shown_with_the_reason_and_nothing_is_made(
    client, media_root, settings
):
    make_corpus()
    client.force_login(make_researcher())
    start = reverse("research:release_start")
    good = {"release-seed": "0", "release-test_fraction": "0.1", "release-dev_fraction": "0"}

    response = client.post(start, {**good, "release-formats": ["pharaoh"]})
    assert response.status_code == 400
    assert "Select a valid choice. pharaoh is not one of" in response.content.decode()
    response = client.post(start, {**good, "release-dev_fraction": "0.95"})
    assert response.status_code == 400
    assert "test_fraction and dev_fraction together must stay below 1" in response.content.decode()
    response = client.post(start, {**good, "language": "xx"})
    assert response.status_code == 400
    assert "No release made: nothing to release" in response.content.decode()
    settings.RELEASE_LICENSE = ""
    response = client.post(start, good)
    assert response.status_code == 400 and "RELEASE_LICENSE" in response.content.decode()
    assert 'id="no-release-licence"' in client.get(reverse("research:home")).content.decode()
    assert not Release.objects.exists()


@pytest.mark.django_db
def test_running_a_release_twice_writes_it_once_and_leaves_it_done(media_root):
    make_corpus()
    release = services.release_create(user=None, options=ReleaseOptions(), queue=False)

    assert services.release_run(release_id=release.pk) is not None
    written = (media_root / release.folder / "manifest.json").read_bytes()
    assert services.release_run(release_id=release.pk) is None
    release.refresh_from_db()
    assert release.state == "done"
    assert (media_root / release.folder / "manifest.json").read_bytes() == written


@pytest.mark.django_db
def test_a_release_whose_place_was_written_to_meanwhile_fails_and_keeps_its_number(media_root):
    make_corpus()
    release = services.release_create(user=None, options=ReleaseOptions(), queue=False)
    (media_root / release.folder).mkdir(parents=True)
    (media_root / release.folder / "someone.txt").write_text("else")

    assert services.release_run(release_id=release.pk) is None
    release.refresh_from_db()
    assert release.state == "failed" and "was written to" in release.error
    assert release.file_names == []
    assert services.release_create(user=None, options=ReleaseOptions(), queue=False).number == 2


def test_the_sweep_queues_releases_whose_message_was_lost(live_worker, media_root):
    make_corpus()
    release = services.release_create(user=None, options=ReleaseOptions(), queue=False)
    Release.objects.filter(pk=release.pk).update(created_at=release.created_at - 2 * STALLED_AFTER)

    assert sweep_releases() == 1
    wait_for(lambda: finished(1))
    assert Release.objects.get().state == "done"


@pytest.mark.django_db
def test_the_database_refuses_to_change_add_to_or_delete_a_release_once_made(media_root):
    from django.db import IntegrityError, connection, transaction

    from research.models import ReleaseDescription

    make_corpus()
    release = services.release_create(user=None, options=ReleaseOptions(), queue=False)
    services.release_run(release_id=release.pk)
    held = ReleaseDescription.objects.count()
    unreleased = make_description(make_segment(youtube_id="pageCCCCCCC"), "Made afterwards.")

    def insert_with_sql():
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO research_releasedescription (release_id, description_id, split) "
                "VALUES (%s, %s, 'train')",
                [release.pk, unreleased.pk],
            )

    for change in (
        lambda: Release.objects.filter(pk=release.pk).update(error="edited"),
        lambda: Release.objects.filter(pk=release.pk).delete(),
        lambda: ReleaseDescription.objects.filter(release=release).update(split="test"),
        lambda: ReleaseDescription.objects.filter(release=release).delete(),
        lambda: ReleaseDescription.objects.create(
            release=release, description_id=unreleased.pk, split="train"
        ),
        insert_with_sql,
    ):
        with pytest.raises(IntegrityError, match="never changes"), transaction.atomic():
            change()
    assert Release.objects.get().error == ""
    assert set(ReleaseDescription.objects.values_list("split", flat=True)) == {"train"}
    assert ReleaseDescription.objects.count() == held
    # What the next release counts as removed since this one stays what this one held.
    second = services.release_create(user=None, options=ReleaseOptions(), queue=False)
    services.release_run(release_id=second.pk)
    second.refresh_from_db()
    assert second.manifest["changes"]["splits"] == {"train": {"added": 1, "removed": 0}}


@pytest.mark.django_db(transaction=True)
def test_a_description_added_while_its_release_is_being_finished_waits_and_is_refused(
    media_root,
):
    from django.db import IntegrityError, connection, transaction
    from django.utils import timezone

    from research.models import ReleaseDescription

    make_corpus()
    release = services.release_create(user=None, options=ReleaseOptions(), queue=False)
    late = make_description(make_segment(youtube_id="pageCCCCCCC"), "Made meanwhile.")
    refused = []

    def add_the_late_description():
        try:
            ReleaseDescription.objects.create(
                release_id=release.pk, description_id=late.pk, split="train"
            )
        except IntegrityError as error:
            refused.append(str(error))
        finally:
            connection.close()

    def waiting_for_the_release() -> bool:
        with connection.cursor() as cursor:
            # Inside a transaction the activity view is a snapshot, taken at the first look.
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO %%releasedescription%%'"
            )
            return cursor.fetchone()[0] == 1

    adding = threading.Thread(target=add_the_late_description)
    with transaction.atomic():
        # As release_run holds the release while it writes, then finishes it.
        Release.objects.select_for_update().get(pk=release.pk)
        adding.start()
        wait_for(waiting_for_the_release)
        Release.objects.filter(pk=release.pk).update(
            state="done", manifest={}, finished_at=timezone.now()
        )
    adding.join()

    assert len(refused) == 1 and "never changes" in refused[0]
    assert not ReleaseDescription.objects.filter(release=release).exists()


@pytest.mark.django_db
def test_a_releases_files_are_never_served_from_media_and_researchers_get_them_from_its_page(
    client, media_root
):
    make_corpus()
    release = make_release(by=make_staff())
    names = ["manifest.json", "README.md", "data/train-00000.parquet"]
    # Where release 1 would have been before its folder was made unguessable, as well.
    shutil.copytree(media_root / release.folder, media_root / "releases" / "1")
    direct = [
        f"/media/{folder}/{name}" for folder in (release.folder, "releases/1") for name in names
    ]

    for user in (None, make_worker().user, make_researcher(), make_staff()):
        if user:
            client.force_login(user)
        for address in direct:
            assert client.get(address).status_code == 404, (user, address)
    for name in names:
        link = reverse("research:release_file", args=[1, name])
        assert download(client, link) == (media_root / release.folder / name).read_bytes()


@pytest.mark.django_db
def test_a_release_folder_cannot_be_guessed_from_its_number(media_root):
    make_corpus()
    first, second = make_release(), make_release()

    assert re.fullmatch(r"releases/1-[\w-]{22}", first.folder)
    assert re.fullmatch(r"releases/2-[\w-]{22}", second.folder)
    assert first.folder.split("-", 1)[1] != second.folder.split("-", 1)[1]


@pytest.mark.django_db
def test_anyone_downloads_a_public_releases_files_and_only_researchers_a_private_ones(
    client, media_root
):
    make_corpus()
    make_release()
    public = make_release()
    Release.objects.filter(pk=public.pk).update(public=True)

    for user in (None, make_worker().user):
        if user:
            client.force_login(user)
        link = reverse("research:release_file", args=[2, "manifest.json"])
        assert json.loads(download(client, link)) == public.manifest
        assert (
            client.get(reverse("research:release_file", args=[2, "other.txt"])).status_code == 404
        )
        private = client.get(reverse("research:release_file", args=[1, "manifest.json"]))
        assert private.status_code == (403 if user else 302)
    # A number no release has is answered as a private release's: nobody learns which exist.
    client.logout()
    response = client.get(reverse("research:release_file", args=[3, "manifest.json"]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(make_researcher())
    page = client.get(reverse("research:home")).content.decode()
    assert "Public: anyone may download its files" in page and "Private: researchers" in page


@pytest.mark.django_db
def test_the_admin_shows_releases_to_read_and_changes_only_who_may_download_them(
    client, media_root
):
    from django.contrib.auth import get_user_model
    from django.db import IntegrityError, transaction

    make_corpus()
    release = make_release()
    client.force_login(get_user_model().objects.create_superuser("root", password="x" * 12))
    change = reverse("admin:research_release_change", args=[release.pk])

    page = client.get(change).content.decode()
    assert 'name="public"' in page and 'name="error"' not in page and 'name="number"' not in page
    response = client.post(change, {"public": "on", "error": "edited", "number": "7"})
    assert response.status_code == 302
    release.refresh_from_db()
    assert (release.public, release.number, release.error) == (True, 1, "")
    client.logout()
    assert download(client, reverse("research:release_file", args=[1, "README.md"]))
    # The database lets this one column change, from any code, and nothing else.
    release.public = False
    release.save()
    with pytest.raises(IntegrityError, match="never changes"), transaction.atomic():
        Release.objects.filter(pk=release.pk).update(public=True, error="edited")
    assert Release.objects.values_list("public", "error").get() == (False, "")
    client.force_login(get_user_model().objects.get(username="root"))
    assert (
        client.post(reverse("admin:research_release_delete", args=[release.pk])).status_code == 403
    )
