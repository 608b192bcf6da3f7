"""Run campaigns from the command line: create, publish, show, read back, expire, extend.

manage.py campaign create --kind description --tier 1 --size 50 --tasks-per-session 20
manage.py campaign create --platform studylink --kind description --size 50 --languages es
manage.py campaign plan --kind description --tasks 85550 --tasks-per-session 20
manage.py campaign publish 3
manage.py campaign show 3
manage.py campaign sync 3
manage.py campaign reconcile 3 --json
manage.py campaign expire 3 --reason "Enough descriptions"
manage.py campaign extend 3 --days 2 --reason "Slow week"
manage.py campaign link 3 --preset connect        (a study-link campaign's address)
manage.py campaign confirm 3 export.csv --participant-column "Worker ID" --session-column Session
manage.py campaign sheets 3 --approvals approvals.csv --bonuses bonuses.csv
"""

import json
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import pluralize

from crowd import platforms, services
from crowd.campaign_admin import NOT_OFFERED, ConfirmForm, campaign_summary
from crowd.models import Campaign, HitType, Tier
from crowd.platforms.studylink.links import PRESETS

# The platforms new campaigns may go to, the first by default (Prolific).
OPEN_PLATFORMS = [
    name for name, platform in platforms.REGISTRY.items() if platform.takes_new_work()
]


class Command(BaseCommand):
    help = "Create, publish, show, read back, expire or extend a crowd-platform campaign."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="A draft campaign (nothing is published).")
        create.add_argument("--name", default="", help="the campaign's name")
        # Mechanical Turk stays a choice so that asking for it says why it is refused.
        create.add_argument(
            "--platform",
            choices=list(platforms.REGISTRY),
            default=OPEN_PLATFORMS[0],
            help=f"where to publish (default: prolific). {NOT_OFFERED} Asking for mturk "
            "fails with the reason.",
        )
        create.add_argument(
            "--kind", choices=HitType.Kind.values, required=True, help="the kind of task"
        )
        create.add_argument(
            "--tier",
            type=int,
            choices=Tier.values,
            default=Tier.ONE,
            help="the tier of the work; Tier 2 on Prolific admits only the Tier-2 participant "
            "group (default %(default)s)",
        )
        create.add_argument("--size", type=int, required=True, help="HITs (or videos) to offer")
        create.add_argument(
            "--days", type=int, default=7, help="how long HITs stay on offer (default %(default)s)"
        )
        create.add_argument(
            "--tasks-per-session",
            type=int,
            default=20,
            help="a place is a session of up to this many tasks (default 20)",
        )
        create.add_argument(
            "--tasks-minimum",
            type=int,
            help="tasks before a worker may finish early; the place's reward pays these and "
            "each further task is a bonus (default: the whole session)",
        )
        create.add_argument(
            "--task-cents",
            type=int,
            help="pay per task in cents (default: the least that reaches the platform's "
            "minimum hourly rate at the time a task takes)",
        )
        create.add_argument(
            "--languages",
            default="",
            help="ISO 639-1 codes, comma-separated: the study reaches only participants "
            "fluent in one of them",
        )
        create.add_argument(
            "--preset",
            choices=list(PRESETS),
            default="generic",
            help="for a study link: the platform its link is pasted into (default %(default)s)",
        )
        create.add_argument(
            "--confirm-hours",
            type=int,
            default=48,
            help="for a study link: work the platform's export has not confirmed this many "
            "hours after its session started gives its place back (default %(default)s)",
        )
        plan = actions.add_parser(
            "plan", help="Places, hourly rate and cost of some work, before any campaign."
        )
        plan.add_argument(
            "--platform",
            choices=OPEN_PLATFORMS,
            default=OPEN_PLATFORMS[0],
            help="whose minimum hourly rate and fee apply (default %(default)s)",
        )
        plan.add_argument(
            "--kind", choices=HitType.Kind.values, required=True, help="the kind of task"
        )
        plan.add_argument(
            "--tier",
            type=int,
            choices=Tier.values,
            default=Tier.ONE,
            help="the tier of the work (default %(default)s)",
        )
        plan.add_argument("--tasks", type=int, required=True, help="tasks wanted in all")
        plan.add_argument(
            "--tasks-per-session",
            type=int,
            default=20,
            help="a place is a session of up to this many tasks (default %(default)s)",
        )
        plan.add_argument(
            "--tasks-minimum",
            type=int,
            help="tasks the place's reward pays; each further task is a bonus "
            "(default: the whole session)",
        )
        plan.add_argument(
            "--task-cents",
            type=int,
            help="pay per task in cents (default: the least that reaches the platform's "
            "minimum hourly rate)",
        )
        reconcile = actions.add_parser(
            "reconcile",
            help="Read every submission and bonus of the campaign from its platform, decide "
            "what is undecided (a submission that left no work here is rejected as no data; "
            "a returned or timed-out one frees its task) and compare the money with the "
            "ledger, to the minor unit.",
        )
        reconcile.add_argument("campaign", type=int, help="the campaign's id")
        reconcile.add_argument(
            "--json",
            action="store_true",
            help="print exactly one JSON object (amounts in minor units; difference_minor is "
            "the ledger's total minus the platform's) and nothing else",
        )
        for name, summary in (
            ("publish", "Check the pay and the balance, then publish a draft campaign."),
            ("show", "A campaign's places, sessions, pay, money and errors."),
            ("sync", "Read back what the platform says of a campaign's sessions now."),
        ):
            actions.add_parser(name, help=summary).add_argument(
                "campaign", type=int, help="the campaign's id"
            )
        link = actions.add_parser("link", help="A study-link campaign's address to paste.")
        link.add_argument("campaign", type=int, help="the campaign's id")
        link.add_argument(
            "--preset",
            choices=list(PRESETS),
            help="the platform the link is for (default: the campaign's); another becomes the "
            "campaign's while no participant has arrived",
        )
        confirm = actions.add_parser(
            "confirm", help="Confirm a study-link campaign's sessions from its platform's export."
        )
        confirm.add_argument("campaign", type=int, help="the campaign's id")
        confirm.add_argument("export", help="the platform's export, CSV")
        confirm.add_argument(
            "--participant-column", required=True, help="the export's column of participant ids"
        )
        confirm.add_argument(
            "--session-column",
            help="the export's column of session ids (leave out when the platform sends none)",
        )
        confirm.add_argument(
            "--code-column", help="the export's column of the verification codes participants typed"
        )
        sheets = actions.add_parser(
            "sheets", help="Write a study-link campaign's approvals and bonuses files."
        )
        sheets.add_argument("campaign", type=int, help="the campaign's id")
        sheets.add_argument("--approvals", required=True, help="the approvals CSV to write")
        sheets.add_argument("--bonuses", required=True, help="the bonuses CSV to write")
        for name, summary in (
            ("expire", "Stop new workers now; work under way may still be submitted."),
            (
                "extend",
                "Keep a Mechanical Turk campaign's HITs on offer longer (refused since it "
                "closed; Prolific studies run until full or stopped).",
            ),
        ):
            sub = actions.add_parser(name, help=summary)
            sub.add_argument("campaign", type=int, help="the campaign's id")
            sub.add_argument("--reason", required=True, help="why, for the audit log")
            if name == "extend":
                sub.add_argument("--days", type=int, required=True, help="days to add")

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
                    tasks_per_session=options["tasks_per_session"],
                    tasks_minimum=options["tasks_minimum"],
                    task_cents=options["task_cents"],
                    languages=options["languages"].split(","),
                    study_link_preset=options["preset"],
                    confirm_hours=options["confirm_hours"],
                )
                self.stdout.write(f"Created campaign {campaign.pk}.")
                shortfall = services.campaign_shortfall(campaign=campaign, asked=options["size"])
                if shortfall:
                    self.stdout.write(shortfall)
                self._show(campaign)
                return
            if action == "plan":
                return self._plan(options)
            campaign = self._campaign(options["campaign"])
            if action == "reconcile":
                return self._reconcile(campaign, as_json=options["json"])
            if action in ("link", "confirm", "sheets"):
                return self._study_link(campaign, action, options)
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

    def _plan(self, options):
        plan = services.campaign_plan(
            platform=options["platform"],
            kind=options["kind"],
            tier=options["tier"],
            tasks=options["tasks"],
            tasks_per_session=options["tasks_per_session"],
            tasks_minimum=options["tasks_minimum"],
            task_cents=options["task_cents"],
        )
        platform = options["platform"]

        def money(cents):
            return services.money(cents, platform)

        self.stdout.write(
            "\n".join(
                [
                    f"{plan.tasks} tasks: {plan.places} places of up to {plan.tasks_per_session} "
                    f"tasks (finish after {plan.tasks_minimum}), about {plan.session_minutes} "
                    "minutes a session",
                    f"pay: {plan.task_cents}¢ a task at {plan.seconds_per_task} s a task = "
                    f"{money(plan.hourly_cents)} an hour "
                    f"(minimum {money(plan.minimum_hourly_cents)})",
                    f"a place: {money(plan.reward_cents)} + {money(plan.fee_cents)} fee, up to "
                    f"{money(plan.bonus_cents)} + {money(plan.bonus_fee_cents)} fee of bonuses",
                    f"cost at most: {money(plan.cost_cents)}",
                ]
            )
        )

    def _study_link(self, campaign, action, options):
        if action == "link":
            self.stdout.write(
                services.study_link_address(campaign=campaign, preset=options["preset"])
            )
        elif action == "confirm":
            try:
                with open(options["export"], encoding="utf-8-sig") as export:
                    text = export.read(ConfirmForm.MAX_BYTES + 1)
            except (OSError, UnicodeDecodeError) as error:
                raise CommandError(f"Cannot read {options['export']}: {error}") from error
            if len(text) > ConfirmForm.MAX_BYTES:
                raise CommandError("The export is larger than 20 MB.")
            counts = services.study_link_confirm(
                campaign=campaign,
                text=text,
                participant_column=options["participant_column"],
                session_column=options["session_column"],
                code_column=options["code_column"],
            )
            self.stdout.write(
                ", ".join(f"{key.replace('_', ' ')}: {n}" for key, n in counts.items())
            )
        else:
            files = services.study_link_sheets(campaign=campaign)
            for name in ("approvals", "bonuses"):
                with open(options[name], "w", encoding="utf-8", newline="") as out:
                    out.write(files[name])
            self.stdout.write(f"Wrote {options['approvals']} and {options['bonuses']}.")

    def _reconcile(self, campaign, *, as_json: bool):
        result = services.campaign_reconcile(campaign=campaign)
        if as_json:
            self.stdout.write(json.dumps(result, sort_keys=True))
            return
        self.stdout.write(f"{campaign.pk}: {campaign.name}")
        self.stdout.write("\n".join(f"  {line}" for line in services.reconciliation_lines(result)))

    def _campaign(self, pk):
        campaign = Campaign.objects.filter(pk=pk).select_related("hit_type").first()
        if campaign is None:
            raise CommandError(f"There is no campaign {pk}.")
        return campaign

    def _show(self, campaign):
        summary = campaign_summary(campaign)
        counts = campaign.platform_counts or {}
        work = summary["work"]
        amounts = summary["amounts"]
        sandbox = campaign.sandbox and platforms.get(campaign.platform).has_sandbox
        where = campaign.get_platform_display() + (" sandbox" if sandbox else "")
        places = summary["places"]
        lines = [
            f"{campaign.pk}: {campaign.name} — {where}, {campaign.get_state_display().lower()}",
            f"  {campaign.hit_type.title}, tier {campaign.tier}: "
            f"{places} place{pluralize(places)} at {amounts['reward']} + {amounts['fee']} fee, "
            "sessions of up to "
            f"{campaign.tasks_per_session} tasks (finish after {campaign.tasks_minimum}), "
            f"{amounts['task']} a task",
            f"  hourly rate: {summary['pay']['hourly']} at {summary['pay']['time']} "
            f"(minimum {summary['pay']['minimum']})",
            f"  platform id: {campaign.external_id or '-'}"
            + (f", completion code {campaign.completion_code}" if campaign.completion_code else ""),
            "  on the platform: "
            + (", ".join(f"{key.replace('_', ' ')} {n}" for key, n in counts.items()) or "-"),
            f"  here: {work['arrived']} arrived, {work['submitted']} submitted, "
            f"{work['verified']} verified, {work['unverified']} unverified",
            f"  money: {amounts['committed']} committed, {amounts['earned']} earned, "
            f"{amounts['spent']} paid through the platform (rewards {amounts['rewards']}, "
            f"bonuses {amounts['bonuses']}, fees {amounts['fees']})",
        ]
        if campaign.reconciled_at:
            lines.append(f"  reconciled {campaign.reconciled_at:%Y-%m-%d %H:%M}:")
            lines += [
                f"    {line}" for line in services.reconciliation_lines(campaign.reconciliation)
            ]
        errors = campaign.events.filter(is_error=True).order_by("-at")[:3]
        lines += [f"  error {event.at:%Y-%m-%d %H:%M}: {event.message}" for event in errors]
        self.stdout.write("\n".join(lines))
