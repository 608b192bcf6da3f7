"""Loads a small demo: three YouTube segments, one hosted clip that plays offline, and four
accounts (an admin, two workers, a researcher). Safe to run again: it only adds what is missing."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.management.base import BaseCommand
from django.db import transaction

from collector import services
from collector.models import Segment
from crowd import services as crowd
from crowd.models import Tier, Worker
from research.services import researcher_create

CLIP = Path(__file__).resolve().parents[3] / "demo" / "clip.webm"
YOUTUBE_SEGMENTS = [
    ("-4wsuPCjDBc", 5, 15, "A squirrel eating"),
    ("-7KMZQEsJW4", 205, 208, "Someone cooking"),
    ("-8y1Q0rA3n8", 108, 115, "An animal at play"),
]
LOGINS = [
    # username, password, role
    ("admin", "paracrowd-admin", "admin"),
    ("tier1", "paracrowd-tier1", "Tier-1 worker"),
    ("tier2", "paracrowd-tier2", "Tier-2 worker"),
    ("researcher", "paracrowd-research", "researcher"),
]


class Command(BaseCommand):
    help = "Load the demo segments and accounts (idempotent)."

    def handle(self, *args, **options):
        with transaction.atomic():
            admin = self._admin()
            self._worker("tier1", "paracrowd-tier1")
            tier2 = self._worker("tier2", "paracrowd-tier2")
            crowd.qualification_grant(
                worker=tier2, tier=Tier.TWO, granted_by=admin, reason="Demo Tier-2 worker."
            )
            self._researcher("researcher", "paracrowd-research")
            for youtube_id, start, end, title in YOUTUBE_SEGMENTS:
                if not Segment.objects.filter(youtube_id=youtube_id, start=start, end=end).exists():
                    services.segment_create(
                        source=Segment.Source.YOUTUBE,
                        youtube_id=youtube_id,
                        start=start,
                        end=end,
                        title=title,
                    )
            if not Segment.objects.filter(title="Demo clip (plays offline)").exists():
                with CLIP.open("rb") as clip:
                    services.segment_create(
                        source=Segment.Source.FILE,
                        video_file=File(clip, name="demo-clip.webm"),
                        start=2,
                        end=8,
                        title="Demo clip (plays offline)",
                    )
        self.stdout.write("Demo loaded. Logins:")
        for username, password, role in LOGINS:
            self.stdout.write(f"  {role:<14} {username} / {password}")

    def _admin(self):
        User = get_user_model()
        admin = User.objects.filter(username="admin").first()
        if admin is None:
            admin = User.objects.create_superuser("admin", "admin@example.org", "paracrowd-admin")
        return admin

    def _researcher(self, username, password):
        researcher = get_user_model().objects.filter(username=username).first()
        return researcher or researcher_create(username=username, password=password)

    def _worker(self, username, password) -> Worker:
        worker = Worker.objects.filter(user__username=username).first()
        return worker or crowd.worker_create(username=username, password=password)
