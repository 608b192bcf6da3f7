"""What the Prolific stand-in checks of a study's completion codes and submissions_config, as
Prolific's reference for creating a draft study lists them
(https://docs.prolific.com/api-reference/studies/create-study)."""

CODE_TYPES = {
    "COMPLETED",
    "FAILED_ATTENTION_CHECK",
    "FOLLOW_UP_STUDY",
    "GIVE_BONUS",
    "INCOMPATIBLE_DEVICE",
    "NO_CONSENT",
    "OTHER",
    "FIXED_SCREENOUT",
}
CODE_ACTIONS = {
    "AUTOMATICALLY_APPROVE",
    "MANUALLY_REVIEW",
    "REQUEST_RETURN",
    "ADD_TO_PARTICIPANT_GROUP",
    "REMOVE_FROM_PARTICIPANT_GROUP",
    "DYNAMIC_PAYMENT",
}


def study_fields_problem(body: dict) -> dict | None:
    """Prolific's 400 detail for a study's completion codes or submissions_config, or None:
    each code has a known type and known actions, codes are unique, and a participant takes
    one or more places (-1: any number)."""
    codes = body.get("completion_codes")
    if not isinstance(codes, list) or not codes:
        return {"completion_codes": ["This field is required."]}
    for entry in codes:
        if not entry.get("code") or entry.get("code_type") not in CODE_TYPES:
            return {"completion_codes": [f"Invalid code: {entry!r}."]}
        for action in entry.get("actions", []):
            if action.get("action") not in CODE_ACTIONS:
                return {"completion_codes": [f"Invalid action: {action!r}."]}
    if len({entry["code"] for entry in codes}) != len(codes):
        return {"completion_codes": ["Each code must be unique."]}
    most = (body.get("submissions_config") or {}).get("max_submissions_per_participant", 1)
    if not isinstance(most, int) or isinstance(most, bool) or (most < 1 and most != -1):
        return {"submissions_config": {"max_submissions_per_participant": ["Invalid."]}}
    return None


def takes_another(study: dict, taken: int) -> bool:
    """Whether a participant who has taken ``taken`` places of ``study`` may take one more:
    once, unless its submissions_config allows more (-1: any number)."""
    allowed = (study.get("submissions_config") or {}).get("max_submissions_per_participant", 1)
    return allowed == -1 or taken < allowed
