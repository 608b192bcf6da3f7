"""A participant's session on a campaign published on the Prolific stand-in, done through the
services (the pages are tested apart)."""

from collector import services as collector
from crowd import services as crowd
from crowd.models import HitType, Tier


def session_described(prolific, campaign, texts):
    """A participant takes a place and describes ``texts`` in one session; returns the
    session's Prolific id, the session and the descriptions."""
    participant, session_id = prolific.participant_joins(campaign.external_id)
    session = crowd.session_enter(
        platform="prolific",
        worker_id=participant,
        session_id=session_id,
        listing_id=campaign.external_id,
        kind=HitType.Kind.DESCRIPTION,
        tier=Tier.ONE,
        campaign=campaign,
        address=None,
    )
    descriptions = []
    for text in texts:
        assignment = crowd.session_task(session=session)
        description, _ = collector.description_submit(
            assignment_id=assignment.pk, worker=assignment.worker, text=text, language="en"
        )
        descriptions.append(description)
        session = crowd.session_after_submit(session=session)
    return session_id, session, descriptions
