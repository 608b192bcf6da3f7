"""The review contract every kind of submitted work follows (descriptions, paraphrases,
alignments, ratings, segment proposals): one status, who decided, when, and the reason the
worker is shown. ``crowd.services.review`` takes the decisions; the apps only inherit."""

from django.conf import settings
from django.db import models


class ReviewStatus(models.TextChoices):
    PENDING = "pending", "Pending review"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class ReviewedQuerySet(models.QuerySet):
    """Filters every reviewed kind of work shares; mix it into the model's own QuerySet."""

    def pending(self):
        return self.filter(status=ReviewStatus.PENDING)

    def accepted(self):
        return self.filter(status=ReviewStatus.ACCEPTED)

    def rejected(self):
        return self.filter(status=ReviewStatus.REJECTED)


class Reviewed(models.Model):
    """Submitted work that staff (or the automatic rule) accept or reject.

    A subclass names the field that leads to its assignment (``review_assignment``; the
    assignment may be null for imported work, which is never paid) and the plural noun its
    decisions are audit-logged under (``review_noun``). ``review_auto_accept`` False keeps
    its work from ever being accepted without a person's decision.
    """

    Status = ReviewStatus

    review_assignment = "assignment"
    review_noun = "work"
    review_auto_accept = True

    status = models.CharField(
        max_length=10, choices=ReviewStatus.choices, default=ReviewStatus.PENDING
    )
    # The last decision: by whom (nobody when accepted automatically), when, and the reason
    # the worker is shown.
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_reason = models.TextField(blank=True)

    objects = ReviewedQuerySet.as_manager()

    class Meta:
        abstract = True
