"""The review pages of work kept at the addresses they had in the apps whose work they
review (included at the site's root)."""

from django.urls import path

from . import review_pages

app_name = "review_pages"

urlpatterns = [
    path("paraphrase/review/", review_pages.ParaphraseReview.as_view(), name="paraphrases"),
    path("align/review/", review_pages.AlignmentReview.as_view(), name="alignments"),
    path("research/ratings/<int:pk>/review/", review_pages.RatingReview.as_view(), name="ratings"),
]
