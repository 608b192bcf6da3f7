"""Writes that span what is collected: segments and the videos they come from, descriptions
and their review, segment proposals and theirs, and sentences offered for direct paraphrasing
with the paraphrases written. Handing out and paying for the work is ``crowd``'s; these call
it."""

from crowd.services import WorkRefused

from .descriptions import description_submit, descriptions_auto_accept, descriptions_review
from .paraphrase_sources import (
    SourceChoice,
    paraphrase_sources_from_corpus,
    paraphrase_sources_from_file,
)
from .paraphrases import paraphrase_submit, paraphrases_auto_accept, paraphrases_review
from .proposals import proposal_approve, proposal_overturn, proposal_reject, proposal_submit
from .review import ReviewOutcome, submissions_review
from .segments import segment_create, segment_cut, segments_offer, video_upload
from .typing import PasteForbidden

__all__ = [
    "PasteForbidden",
    "ReviewOutcome",
    "SourceChoice",
    "WorkRefused",
    "description_submit",
    "descriptions_auto_accept",
    "descriptions_review",
    "paraphrase_sources_from_corpus",
    "paraphrase_sources_from_file",
    "paraphrase_submit",
    "paraphrases_auto_accept",
    "paraphrases_review",
    "proposal_approve",
    "proposal_overturn",
    "proposal_reject",
    "proposal_submit",
    "segment_create",
    "submissions_review",
    "segment_cut",
    "segments_offer",
    "video_upload",
]
