"""Run campaigns from the command line: create, publish, show, read back, expire, extend.

manage.py campaign create --kind description --tier 1 --size 50 --days 7   (on Prolific)
manage.py campaign publish 3
manage.py campaign show 3
manage.py campaign sync 3
manage.py campaign expire 3 --reason "Enough descriptions"
manage.py campaign extend 3 --days 2 --reason "Slow week"
"""

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError

from crowd import services
from crowd.campaign_admin import MTURK_NOT_OFFERED, campaign_summary
from crowd.models import Campaign, HitType, Tier


class Command(BaseCommand):
    help = "Create, publish, show, read back, expire or extend a crowd-platform campaign."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="A draft campaign (nothing is published).")
        create.add_argument("--name", default="")
        # Mechanical Turk stays a choice so that asking for it says why it is refused.
        create.add_argument(
            "--platform",
            choices=Campaign.Platform.values,
            default=Campaign.Platform.PROLIFIC,
            help=f"where to publish (default: prolific). {MTURK_NOT_OFFERED} Asking for mturk "
            "fails with the reason.",
        )
        create.add_argument("--kind", choices=HitType.Kind.values, required=True)
        create.add_argument("--tier", type=int, choices=Tier.values, default=Tier.ONE)
        create.add_argument("--size", type=int, required=True, help="HITs (or videos) to offer")
        create.add_argument("--days", type=int, default=7, help="how long HITs stay on offer")
        for name in ("publish", "show", "sync"):
            actions.add_parser(name).add_argument("campaign", type=int)
        for name in ("expire", "extend"):
            sub = actions.add_parser(name)
            sub.add_argument("campaign", type=int)
            sub.add_argument("--reason", required=True)
            if name == "extend":
                sub.add_argument("--days", type=int, required=True)

    def handle(self, *args, action, **options):
        try:
            if action == "create":
                campaign = services.campaign_create(
                    name=options["name"],
                    platform=options["platform"],
                    kind=options["kind"],
                    tier=options["tier"],
                    size=options["size"],
                    lifetime=timedelta(days=options["days"]),
                )
                self.stdout.write(f"Created campaign {campaign.pk}.")
                self._show(campaign)
                return
            campaign = self._campaign(options["campaign"])
            if action == "publish":
                services.campaign_publish(campaign=campaign)
            elif action == "sync":
                changed = services.campaign_sync(campaign=campaign)
                self.stdout.write(", ".join(f"{key}: {n}" for key, n in changed.items()))
            elif action == "expire":
                services.campaign_expire(
                    campaign=campaign, expired_by=None, reason=options["reason"]
                )
            elif action == "extend":
                services.campaign_extend(
                    campaign=campaign,
                    extended_by=None,
                    by=timedelta(days=options["days"]),
                    reason=options["reason"],
                )
            campaign.refresh_from_db()
            self._show(campaign)
        except services.WorkRefused as refusal:
            raise CommandError(str(refusal)) from refusal

    def _campaign(self, pk):
        campaign = Campaign.objects.filter(pk=pk).select_related("hit_type").first()
        if campaign is None:
            raise CommandError(f"There is no campaign {pk}.")
        return campaign

    def _show(self, campaign):
        summary = campaign_summary(campaign)
        counts = campaign.platform_counts or {}
        work = summary["work"]
        where = campaign.get_platform_display() + (" sandbox" if campaign.sandbox else "")
        lines = [
            f"{campaign.pk}: {campaign.name} — {where}, {campaign.get_state_display().lower()}",
            f"  {campaign.hit_type.title}, tier {campaign.tier}: {summary['places']} places at "
            f"{campaign.reward_cents}¢ + {campaign.fee_cents}¢ fee",
            f"  platform id: {campaign.external_id or '-'}"
            + (f", completion code {campaign.completion_code}" if campaign.completion_code else ""),
            "  on the platform: "
            + (", ".join(f"{key.replace('_', ' ')} {n}" for key, n in counts.items()) or "-"),
            f"  here: {work['arrived']} arrived, {work['submitted']} submitted, "
            f"{work['verified']} verified, {work['unverified']} unverified",
            f"  money: {summary['committed_cents']}¢ committed, {summary['earned_cents']}¢ "
            f"earned, {summary['spent_cents']}¢ paid through the platform",
        ]
        errors = campaign.events.filter(is_error=True).order_by("-at")[:3]
        lines += [f"  error {event.at:%Y-%m-%d %H:%M}: {event.message}" for event in errors]
        self.stdout.write("\n".join(lines))
