"""Writes that span what is collected: segments and the videos they come from, descriptions
and their review, segment proposals and theirs. Handing out and paying for the work is
``crowd``'s; these call it."""

from crowd.services import WorkRefused

from .descriptions import (
    ReviewOutcome,
    description_submit,
    descriptions_auto_accept,
    descriptions_review,
)
from .proposals import proposal_approve, proposal_reject, proposal_submit
from .segments import segment_create, segment_cut, segments_offer, video_upload

__all__ = [
    "ReviewOutcome",
    "WorkRefused",
    "description_submit",
    "descriptions_auto_accept",
    "descriptions_review",
    "proposal_approve",
    "proposal_reject",
    "proposal_submit",
    "segment_create",
    "segment_cut",
    "segments_offer",
    "video_upload",
]
