"""Demo writers at work as any worker is: each takes the tasks the site hands out, does the
ones the demo's data hold an answer for, and skips (gives back) the others, which the site
then never offers them again. So the demo's work goes through the claim, the deadlines and
the submission services, and what the demo's own workers are offered is what is left."""

from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

from crowd import services as crowd
from crowd.models import Assignment, Hit, Worker

Answer = TypeVar("Answer")


def tasks_do(
    *,
    worker: Worker,
    tier: int,
    kind: str,
    answers: dict[int, Answer],
    submit: Callable[[Assignment, Answer], object],
) -> None:
    """``worker`` does, in ``tier``, the ``kind`` task of each item of ``answers`` (item id →
    what they submit, passed to ``submit`` with the assignment) not done by them already."""
    done = set(
        Assignment.objects.filter(
            worker=worker, status=Assignment.Status.SUBMITTED, hit__item_id__in=list(answers)
        ).values_list("hit__item_id", flat=True)
    )
    wanted = {item_id: answer for item_id, answer in answers.items() if item_id not in done}
    # Each claim either does a wanted task or skips one never offered again.
    offered = Hit.objects.filter(hit_type__kind=kind, tier=tier).count()
    for _ in range(len(wanted) + offered):
        if not wanted:
            return
        assignment = crowd.assignment_claim(worker=worker, tier=tier, kind=kind)
        if assignment is None:
            break
        if assignment.hit.item_id not in wanted:
            crowd.assignment_return(assignment_id=assignment.pk, worker=worker)
            continue
        submit(assignment, wanted.pop(assignment.hit.item_id))
    if wanted:
        raise RuntimeError(f"{worker} was not handed the {kind} tasks of items {sorted(wanted)}")


def time_taken(assignment: Assignment, seconds: float) -> None:
    """Record that ``assignment`` was taken ``seconds`` before now. A script submits at once,
    and a time of a few milliseconds would make the demo's writers look as if they never
    watched the segment (the review queue's time-spent signal)."""
    Assignment.objects.filter(pk=assignment.pk).update(
        accepted_at=assignment.accepted_at - timedelta(seconds=seconds)
    )
