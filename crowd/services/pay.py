"""Fair pay: what a task takes, what an hour of tasks pays, and the platform's minimum.

The open crowds pay by the hour: Prolific refuses a study below its minimum hourly reward,
and a study-link platform's participants expect the same. A campaign's pay per task is
checked against that minimum before anything is published, at the time a task really takes
here (the median of the site's own submissions of that kind and tier, once there are
PLATFORM_PAY_MEASURED_MINIMUM of them) or, before that, the HIT type's estimate.
"""

from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.db.models import Max

from paracrowd.wording import counted

from .. import platforms
from ..models import Assignment, Campaign, HitType
from .errors import WorkRefused

# The newest submissions the median is taken over: enough for a stable figure, bounded work.
MEASURED_WINDOW = 5000


@dataclass(frozen=True)
class TaskTime:
    seconds: int
    # How many of the site's own submissions it was measured on (0: the HIT type's estimate).
    measured_on: int

    def describe(self) -> str:
        source = (
            f"the median of {counted(self.measured_on, 'submission')} here"
            if self.measured_on
            else "the task type's estimate"
        )
        return f"{counted(self.seconds, 'second')} a task ({source})"


def task_time(*, hit_type: HitType, tier: int) -> TaskTime:
    """The time one task of ``hit_type`` in ``tier`` takes, as ``TaskTime``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FROM ("
            " SELECT extract(epoch FROM a.submitted_at - a.accepted_at) AS seconds"
            " FROM crowd_assignment a JOIN crowd_hit h ON h.id = a.hit_id"
            " WHERE h.hit_type_id = %s AND h.tier = %s AND a.status = %s"
            " AND a.verified_at IS NOT NULL"
            " ORDER BY a.submitted_at DESC LIMIT %s) recent",
            [hit_type.pk, tier, Assignment.Status.SUBMITTED, MEASURED_WINDOW],
        )
        count, median = cursor.fetchone()
    if count >= settings.PLATFORM_PAY_MEASURED_MINIMUM and median:
        return TaskTime(seconds=max(1, round(median)), measured_on=count)
    return TaskTime(seconds=hit_type.estimated_seconds, measured_on=0)


def minimum_hourly_cents(*, platform: str) -> int:
    """The platform's minimum hourly reward, in minor units: the setting, or the platform's
    own figure (Prolific's reward recommendation) when it can tell and it is higher."""
    return platforms.get(platform).minimum_hourly_cents(ask=True)


def session_minutes(*, seconds: int, tasks: int) -> int:
    """The whole minutes a session of ``tasks`` takes, as a platform is told (rounded up)."""
    return max(1, -(-seconds * tasks // 60))


def fair_task_cents(*, hourly_cents: int, seconds: int, tasks_minimum: int = 1) -> int:
    """The smallest whole pay per task that reaches ``hourly_cents`` an hour, both for one
    task and for a place's reward (the minimum of tasks, over the whole minutes the platform
    is told it takes)."""
    minutes = session_minutes(seconds=seconds, tasks=tasks_minimum)
    reward = -(-hourly_cents * minutes // 60)
    return max(1, -(-reward // tasks_minimum))


def hourly_cents(*, task_cents: int, seconds: int, tasks_minimum: int = 1) -> int:
    """What an hour pays at ``task_cents`` a task: the lower of a task's rate and the rate the
    platform computes for a place (its reward over its rounded minutes)."""
    per_task = task_cents * 3600 // max(seconds, 1)
    minutes = session_minutes(seconds=seconds, tasks=tasks_minimum)
    return min(per_task, task_cents * tasks_minimum * 60 // minutes)


def tier_floor_cents(
    *, platform: str, hit_type: HitType, tier: int, hourly_cents: int, tasks_minimum: int
) -> int:
    """The least a task of ``hit_type`` in ``tier`` may pay so that it never pays less than a
    task of the same kind in a lower tier: the fair pay at a lower tier's own (slower) time,
    and what the live campaigns of a lower tier on ``platform`` pay a task. 0 for Tier 1.
    Tier-2 workers are faster, so pay computed from their own time alone would reward the
    better tier with less."""
    floor = 0
    for lower in range(1, tier):
        seconds = task_time(hit_type=hit_type, tier=lower).seconds
        floor = max(
            floor,
            fair_task_cents(
                hourly_cents=hourly_cents, seconds=seconds, tasks_minimum=tasks_minimum
            ),
        )
    if tier > 1:
        live = Campaign.objects.filter(
            platform=platform,
            hit_type=hit_type,
            tier__lt=tier,
            state__in=(
                Campaign.State.DRAFT,
                Campaign.State.PUBLISHING,
                Campaign.State.PUBLISHED,
            ),
        ).aggregate(most=Max("task_cents"))["most"]
        floor = max(floor, live or 0)
    return floor


def campaign_task_cents(
    *,
    platform: str,
    hit_type: HitType,
    tier: int,
    hourly_cents: int,
    tasks_minimum: int,
    task_cents: int | None,
) -> int:
    """A new campaign's pay per task: ``task_cents`` when given, else the least that reaches
    ``hourly_cents`` at the time a task of ``tier`` takes now; never below what a lower
    tier's task of the same kind pays (``WorkRefused`` when a given pay is)."""
    floor = tier_floor_cents(
        platform=platform,
        hit_type=hit_type,
        tier=tier,
        hourly_cents=hourly_cents,
        tasks_minimum=tasks_minimum,
    )
    if task_cents is None:
        seconds = task_time(hit_type=hit_type, tier=tier).seconds
        fair = fair_task_cents(
            hourly_cents=hourly_cents, seconds=seconds, tasks_minimum=tasks_minimum
        )
        return max(fair, floor)
    if task_cents < floor:
        raise WorkRefused(
            f"A Tier-{tier} task pays at least what a lower tier's task of the same kind pays: "
            f"{floor} cents or more. Nothing was created."
        )
    return task_cents


def campaign_pay_check(*, campaign: Campaign) -> Campaign:
    """Refuse (``WorkRefused``, nothing changed on the platform) a session campaign whose pay
    per task falls below the platform's minimum hourly reward at the time a task takes now.
    Records the time and the minimum it was checked against on the campaign."""
    if not platforms.get(campaign.platform).pays_by_session:
        return campaign
    time = task_time(hit_type=campaign.hit_type, tier=campaign.tier)
    minimum = minimum_hourly_cents(platform=campaign.platform)
    rate = hourly_cents(
        task_cents=campaign.task_cents, seconds=time.seconds, tasks_minimum=campaign.tasks_minimum
    )
    if rate < minimum:
        needed = fair_task_cents(
            hourly_cents=minimum, seconds=time.seconds, tasks_minimum=campaign.tasks_minimum
        )
        raise WorkRefused(
            f"This campaign pays {money(rate, campaign.platform)} an hour ({campaign.task_cents} "
            f"cents a task at {time.describe()}), below {campaign.get_platform_display()}'s "
            f"minimum of {money(minimum, campaign.platform)} an hour. Pay at least {needed} "
            "cents a task. Nothing was published."
        )
    Campaign.objects.filter(pk=campaign.pk).update(
        seconds_per_task=time.seconds, minimum_hourly_cents=minimum
    )
    campaign.seconds_per_task, campaign.minimum_hourly_cents = time.seconds, minimum
    return campaign


@dataclass(frozen=True)
class CampaignPlan:
    """What collecting ``tasks`` tasks in sessions would take and cost, before any campaign."""

    tasks: int
    places: int
    tasks_per_session: int
    tasks_minimum: int
    task_cents: int
    seconds_per_task: int
    session_minutes: int
    hourly_cents: int
    minimum_hourly_cents: int
    reward_cents: int  # a place's base
    fee_cents: int  # on a place's base
    bonus_cents: int  # a place's largest bonuses
    bonus_fee_cents: int

    @property
    def cost_cents(self) -> int:
        return self.places * (
            self.reward_cents + self.fee_cents + self.bonus_cents + self.bonus_fee_cents
        )


def campaign_plan(
    *,
    platform: str,
    kind: str,
    tier: int,
    tasks: int,
    tasks_per_session: int,
    tasks_minimum: int | None = None,
    task_cents: int | None = None,
) -> CampaignPlan:
    """The places, time, hourly rate and cost of ``tasks`` tasks of ``kind`` in ``tier`` on
    ``platform`` in sessions of ``tasks_per_session`` (the same arithmetic as a campaign's,
    the platform's minimum taken from its settings, without asking it)."""
    if tasks < 1 or not 1 <= tasks_per_session <= 200:
        raise WorkRefused("Plan at least one task, in sessions of 1 to 200 tasks.")
    tasks_minimum = min(tasks_minimum or tasks_per_session, tasks_per_session)
    hit_type = HitType.objects.for_kind(kind)
    time = task_time(hit_type=hit_type, tier=tier)
    minimum = _minimum_setting(platform)
    if task_cents is None:
        task_cents = max(
            fair_task_cents(
                hourly_cents=minimum, seconds=time.seconds, tasks_minimum=tasks_minimum
            ),
            tier_floor_cents(
                platform=platform,
                hit_type=hit_type,
                tier=tier,
                hourly_cents=minimum,
                tasks_minimum=tasks_minimum,
            ),
        )
    reward = task_cents * tasks_minimum
    bonus = (tasks_per_session - tasks_minimum) * task_cents
    return CampaignPlan(
        tasks=tasks,
        places=-(-tasks // tasks_per_session),
        tasks_per_session=tasks_per_session,
        tasks_minimum=tasks_minimum,
        task_cents=task_cents,
        seconds_per_task=time.seconds,
        session_minutes=session_minutes(seconds=time.seconds, tasks=tasks_per_session),
        hourly_cents=hourly_cents(
            task_cents=task_cents, seconds=time.seconds, tasks_minimum=tasks_minimum
        ),
        minimum_hourly_cents=minimum,
        reward_cents=reward,
        fee_cents=platform_fee_cents(platform, reward),
        bonus_cents=bonus,
        bonus_fee_cents=bonus_fees_cents(
            platform, task_cents=task_cents, bonuses=tasks_per_session - tasks_minimum
        ),
    )


def session_description(*, campaign: Campaign, minutes: int) -> str:
    """What a session study says of itself: the time it is told to take (``minutes``, the
    same number the platform is sent as its estimate) and its pay, as the platform pays it."""
    money_of = platforms.get(campaign.platform).money
    per_session, minimum = campaign.tasks_per_session, campaign.tasks_minimum
    text = (
        f"{campaign.hit_type.title}: a session of up to {counted(per_session, 'task')}. About "
        f"{counted(minutes, 'minute')} for {counted(minimum, 'task')}, paid "
        f"{money_of(campaign.reward_cents)}."
    )
    if per_session > minimum:
        text += (
            f" Each further task, up to {per_session}, earns a bonus of "
            f"{money_of(campaign.task_cents)}."
        )
    return text + " Your work is reviewed before it is paid."


def session_pay(campaign: Campaign) -> dict:
    """What every task page of a session says of its pay, in the platform's currency: the
    session's reward (for its minimum of tasks) and the bonus each further task earns."""
    money_of = platforms.get(campaign.platform).money
    bonus = campaign.task_cents if campaign.tasks_per_session > campaign.tasks_minimum else 0
    return {
        "reward": money_of(campaign.reward_cents),
        "minimum": campaign.tasks_minimum,
        "bonus": money_of(bonus) if bonus else "",
        "limit": campaign.tasks_per_session,
    }


def pay_summary(*, campaign: Campaign) -> dict:
    """What a campaign's page says of its pay, without asking the platform: the time a task
    takes now, the hourly rate it gives, and the minimum last checked (or the setting)."""
    time = task_time(hit_type=campaign.hit_type, tier=campaign.tier)
    rate = hourly_cents(
        task_cents=campaign.task_cents or campaign.reward_cents,
        seconds=time.seconds,
        tasks_minimum=campaign.tasks_minimum,
    )
    minimum = campaign.minimum_hourly_cents or _minimum_setting(campaign.platform)
    return {
        "time": time.describe(),
        "hourly": money(rate, campaign.platform),
        "minimum": money(minimum, campaign.platform),
        "fair": rate >= minimum,
        "session_minutes": session_minutes(seconds=time.seconds, tasks=campaign.tasks_per_session),
    }


def _minimum_setting(platform: str) -> int:
    return platforms.get(platform).minimum_hourly_cents()


def platform_fee_cents(platform: str, cents: int, max_assignments: int = 1) -> int:
    """The platform's fee on one payment of ``cents``."""
    if cents <= 0:
        return 0
    return platforms.get(platform).fee_cents(cents, max_assignments=max_assignments)


def bonus_fees_cents(platform: str, *, task_cents: int, bonuses: int) -> int:
    """The platform's fees on ``bonuses`` bonuses of ``task_cents`` each: every task past a
    session's minimum is paid as a bonus line of its own, and the fee of each line is rounded
    up on its own (3 bonuses of 10 cents at 34% cost 12 cents in fees, not 11)."""
    return bonuses * platform_fee_cents(platform, task_cents)


def currency(platform: str) -> str:
    return platforms.get(platform).currency()


def money(cents: int, platform: str) -> str:
    """``cents`` minor units in ``platform``'s currency, as people read them."""
    return platforms.get(platform).money(cents)
