"""The demo's logins (an admin, two workers, a researcher) and the writers whose descriptions
fill the demo corpus (accounts with no password: nobody logs in as them)."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from crowd import services as crowd
from crowd.models import Tier, Worker
from research.services import researcher_create

LOGINS = [
    # username, password, role
    ("admin", "paracrowd-admin", "admin"),
    ("tier1", "paracrowd-tier1", "Tier-1 worker"),
    ("tier2", "paracrowd-tier2", "Tier-2 worker"),
    ("researcher", "paracrowd-research", "researcher"),
]
PASSWORDS = {username: password for username, password, _ in LOGINS}
# The demo writers (demo/data/descriptions.tsv) and the tier each writes in.
WRITERS = {"ana": Tier.ONE, "ben": Tier.ONE, "chen": Tier.ONE, "dee": Tier.TWO}
WRITER_PREFIX = "demo-writer-"


@dataclass(frozen=True)
class Accounts:
    admin: object
    researcher: object
    writers: dict[str, Worker]


def accounts_load() -> Accounts:
    admin = _admin()
    _worker("tier1", PASSWORDS["tier1"])
    tier2 = _worker("tier2", PASSWORDS["tier2"])
    crowd.qualification_grant(
        worker=tier2, tier=Tier.TWO, granted_by=admin, reason="Demo Tier-2 worker."
    )
    researcher = get_user_model().objects.filter(username="researcher").first()
    if researcher is None:
        researcher = researcher_create(username="researcher", password=PASSWORDS["researcher"])
    writers = {}
    for name, tier in WRITERS.items():
        writer = _worker(f"{WRITER_PREFIX}{name}", None)
        if tier == Tier.TWO:
            crowd.qualification_grant(
                worker=writer, tier=Tier.TWO, granted_by=admin, reason="Demo Tier-2 writer."
            )
        writers[name] = writer
    return Accounts(admin=admin, researcher=researcher, writers=writers)


def _admin():
    User = get_user_model()
    admin = User.objects.filter(username="admin").first()
    if admin is None:
        admin = User.objects.create_superuser("admin", "admin@example.org", PASSWORDS["admin"])
    return admin


def _worker(username: str, password: str | None) -> Worker:
    worker = Worker.objects.filter(user__username=username).first()
    return worker or crowd.worker_create(username=username, password=password)
