"""Which demo is loaded. ``make run`` skips loading the demo when this checkout's demo is the one
loaded last (a hash of every file under demo/: the data, the clip, the loaders and the commands)
and its logins are all there; a new database, a changed demo or a deleted demo login loads it
again. The loaders go through the site's services, so reloading a demo adds only what is missing:
skipping it when nothing changed saves its seconds and nothing else."""

import hashlib
from pathlib import Path

from django.contrib.auth import get_user_model

from .loaders.accounts import LOGINS
from .models import LoadedDemo

DEMO = Path(__file__).resolve().parent


def demo_version() -> str:
    """A hash of the names and contents of the files under demo/ (compiled files left out)."""
    digest = hashlib.sha256()
    files = sorted(
        path
        for path in DEMO.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )
    for path in files:
        digest.update(path.relative_to(DEMO).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def demo_loaded_record(*, version: str) -> None:
    LoadedDemo.objects.update_or_create(pk=1, defaults={"version": version})


def demo_is_loaded(*, version: str) -> bool:
    """True if ``version`` is the demo loaded last and every demo login exists."""
    usernames = [username for username, _, _ in LOGINS]
    return LoadedDemo.objects.filter(
        pk=1, version=version
    ).exists() and get_user_model().objects.filter(username__in=usernames).count() == len(usernames)
