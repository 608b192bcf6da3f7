"""The review pages of submitted work, on one shape: a list of work waiting for a decision,
and a POST that accepts (and pays), rejects or overturns one item through the one review
service (``crowd.services.review``), with the same messages on every page.

Security behaviour, for every page here: staff only (a visitor is sent to log in, others get 403);
a decision is a POST checked by Django's CSRF protection, audit-logged under the staff member's
name by the service, and an item already decided is left alone. Worker-typed text is escaped
by the templates.
"""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View

from annotations import review as alignment_review
from annotations.models import Alignment
from collector.models import Paraphrase
from crowd import services as crowd
from crowd.access import staff_required
from research.models import Rating, RatingBatch

from .forms import ReviewForm

DECISIONS = {
    "accept": (crowd.work_accept, "accepted and paid"),
    "reject": (crowd.work_reject, "rejected"),
    "overturn": (crowd.work_overturn, "accepted and paid: its rejection is overturned"),
}


def decision_messages(request, outcome: crowd.ReviewOutcome, *, accepted: bool) -> None:
    """What staff read after one decision on ticked items: how many changed, and why the
    others did not."""
    messages.success(request, f"{len(outcome.changed)} {'accepted' if accepted else 'rejected'}.")
    if outcome.unchanged:
        messages.info(
            request, f"{len(outcome.unchanged)} left as they were (accepted work is final)."
        )
    if outcome.unverified:
        messages.warning(
            request,
            f"{len(outcome.unverified)} not accepted: the crowd platform has not "
            "confirmed that work yet. It can be accepted (and paid) once it has.",
        )


def query_without_page(request) -> str:
    """The page's query string without its page number, for the links to other pages."""
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


@method_decorator(staff_required, name="dispatch")
class ReviewPage(View):
    """A page of one kind of work to review. Subclasses name the ``model``, the POST field
    carrying the item's id (``field``), the ``noun`` of the messages, the ``template``, and
    give the waiting items (``context``) and where to go after a decision
    (``redirect_to``)."""

    model = None
    field = ""
    noun = ""
    template = ""
    # The message when no item (of those this page may decide) was chosen.
    choose = ""

    def get(self, request, **kwargs):
        return render(request, self.template, self.context(request, **kwargs))

    def post(self, request, **kwargs):
        decision = request.POST.get("decision", "")
        decide, verb = DECISIONS.get(decision, DECISIONS["reject"])
        try:
            pk = int(request.POST.get(self.field, ""))
            items = self.decidable(request, **kwargs).filter(pk=pk)
            if decision not in DECISIONS or not items.exists():
                raise ValueError
            outcome = decide(
                items=items, reviewer=request.user, reason=request.POST.get("reason", "")
            )
        except ValueError:
            messages.error(request, self.choose or f"Choose {self.noun_with_article} to review.")
        except crowd.WorkRefused as refusal:
            messages.error(request, str(refusal))
        else:
            if outcome.changed:
                messages.success(request, f"{self.noun.capitalize()} {pk} {verb}.")
            elif outcome.unverified:
                messages.error(request, "The crowd platform has not confirmed this work yet.")
            else:
                messages.info(request, "Already decided; unchanged.")
        return redirect(self.redirect_to(**kwargs))

    @property
    def noun_with_article(self) -> str:
        article = "an" if self.noun[:1] in "aeiou" else "a"
        return f"{article} {self.noun}"

    def decidable(self, request, **kwargs):
        """The items a POST to this page may decide."""
        return self.model.objects.all()

    def context(self, request, **kwargs) -> dict:
        raise NotImplementedError

    def redirect_to(self, **kwargs) -> str:
        raise NotImplementedError


class ParaphraseReview(ReviewPage):
    """Paraphrases waiting for review, oldest first, each beside its sentence and PINC; POST
    accepts (pays) or rejects one with a reason the worker sees. Accepted work is final."""

    model = Paraphrase
    field = "paraphrase"
    noun = "paraphrase"
    template = "review/paraphrases.html"
    size = 50
    reasons = [
        "Thank you: the same meaning, in new words.",
        "Does not say what the sentence says.",
        "Barely changes the sentence.",
        "Not a complete sentence.",
        "Not written in the sentence's language.",
    ]

    def context(self, request):
        waiting = (
            Paraphrase.objects.pending()
            .select_related("source", "worker__user")
            .order_by("created_at", "pk")[: self.size]
        )
        return {"paraphrases": waiting, "reasons": self.reasons}

    def redirect_to(self):
        return "review_pages:paraphrases"


class AlignmentReview(ReviewPage):
    """Workers' alignments waiting for review, a page of rows at a time, flagged ones (low
    agreement with the pair's other annotations) first on each page; POST accepts (pays) or
    rejects the ticked ones together, with one reason, as descriptions are reviewed."""

    model = Alignment
    field = "alignment"
    noun = "alignment"
    template = "review/alignments.html"
    reasons = [
        "Thank you: careful links.",
        "Words that do not correspond are linked.",
        "Words that correspond are left unlinked.",
        "Punctuation linked to a word.",
    ]

    def get(self, request, review_form=None):
        page, items = alignment_review.alignment_review_page(number=request.GET.get("page"))
        context = {
            "page": page,
            "items": items,
            "flag_below": alignment_review.FLAG_BELOW_F1,
            "review_form": review_form or ReviewForm(field=self.field, noun=self.noun),
            "reasons": self.reasons,
            "query": query_without_page(request),
        }
        return render(request, self.template, context, status=400 if review_form else 200)

    def post(self, request):
        form = ReviewForm(
            request.POST, ids=request.POST.getlist(self.field), field=self.field, noun=self.noun
        )
        if not form.is_valid():
            return self.get(request, review_form=form)
        outcome = alignment_review.alignments_review(
            alignment_ids=form.cleaned_data[self.field],
            accept=form.accept,
            reviewer=request.user,
            reason=form.cleaned_data["reason"],
        )
        decision_messages(request, outcome, accepted=form.accept)
        return redirect(request.get_full_path())


class RatingReview(ReviewPage):
    """Accept (pay) or reject one rating of a batch, with a reason for a rejection (the
    ratings waiting are listed on the batch's page, so this page answers POST only)."""

    model = Rating
    field = "rating"
    noun = "rating"
    choose = "Choose a rating of this batch to review."
    http_method_names = ["post"]

    def decidable(self, request, pk):
        return Rating.objects.filter(item__batch=get_object_or_404(RatingBatch, pk=pk))

    def redirect_to(self, pk):
        return reverse("research:rating_batch", args=[pk]) + "#review-heading"
