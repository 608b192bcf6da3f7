"""Releases for tests: a small corpus, a finished release of it in the site's storage (the
site's licence must be set), and a download of one of its files."""

from research.models import Release
from research.releases import services
from research.releases.options import ReleaseOptions
from tests.factories import make_description, make_segment


def make_corpus():
    for video in ("pageAAAAAAA", "pageBBBBBBB"):
        segment = make_segment(youtube_id=video)
        make_description(segment, f"{video} is shown.")
        make_description(segment, f"{video} plays.")


def make_release(by=None, options: ReleaseOptions | None = None) -> Release:
    """A finished release of the corpus, in the site's storage."""
    release = services.release_create(user=by, options=options or ReleaseOptions(), queue=False)
    services.release_run(release_id=release.pk)
    release.refresh_from_db()
    return release


def download(client, link) -> bytes:
    response = client.get(link)
    assert response.status_code == 200
    return b"".join(response.streaming_content)
