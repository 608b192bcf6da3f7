"""Who may take a Prolific study, and what they must at least be paid.

ParaCrowd's qualifications are Prolific *participant groups*: a group per qualification,
granted by adding the participant and revoked by removing them, and a study restricted to a
group with the ``participant_group_allowlist`` filter. Languages are Prolific's
``fluent-languages`` filter. Prolific's reward recommendations give the lowest hourly rate
it accepts for a study.
https://docs.prolific.com/api-reference/participant-groups
https://docs.prolific.com/api-reference/filters
https://docs.prolific.com/api-reference/reward-recommendations

Membership is only ever changed one participant at a time through the group's
``participants/`` endpoint (POST adds, DELETE removes): both are idempotent, so a retry after
a lost answer is harmless. Updating a group with ``participant_ids`` would replace its whole
membership, and is never used.
"""

from functools import cached_property

from ..base import PlatformError

PARTICIPANT_GROUP_ALLOWLIST = "participant_group_allowlist"
FLUENT_LANGUAGES = "fluent-languages"


class ProlificAudience:
    """Participant groups, filters and reward recommendations, for ``Prolific``.

    A mixin: it sends everything through its host's ``_call`` and ``_pages``, checks ids
    with ``_checked_id`` and asks ``_workspace_id`` for the workspace."""

    # Participant groups, under the names the outbox uses for a platform's qualification

    def qualification_type_create(self, *, name: str, description: str) -> str:
        """A participant group called ``name`` in the workspace; returns its id. A group of
        that name the workspace already has is returned instead, so a retry after a lost
        answer never makes a second one."""
        workspace_id = self._workspace_id("participant groups")
        existing = self.qualification_type_find(name=name)
        if existing:
            return existing
        body = {"name": name, "workspace_id": workspace_id, "description": description}
        return self._call("POST", "/api/v1/participant-groups/", json=body)["id"]

    def qualification_type_find(self, *, name: str) -> str | None:
        """The id of the workspace's participant group called ``name``, if it has one."""
        workspace_id = self._workspace_id("participant groups")
        for group in self._pages("/api/v1/participant-groups/", {"workspace_id": workspace_id}):
            if group.get("name") == name and not group.get("is_deleted"):
                return group["id"]
        return None

    def qualification_grant(self, *, qualification_type_id: str, worker_id: str) -> None:
        """Add the participant ``worker_id`` to the group; a member already counts as done."""
        self._members_change("POST", qualification_type_id, worker_id)

    def qualification_revoke(self, *, qualification_type_id: str, worker_id: str, reason: str = ""):
        """Remove the participant ``worker_id`` from the group; one not in it counts as done.
        Prolific takes no reason with a removal, so ``reason`` is not sent."""
        self._members_change("DELETE", qualification_type_id, worker_id)

    def participant_group_members(self, group_id: str) -> list[str]:
        """The ids of every participant in the group, in Prolific's order."""
        group_id = self._checked_id(group_id, kind="participant group", status=404)
        path = f"/api/v1/participant-groups/{group_id}/participants/"
        return [member["participant_id"] for member in self._pages(path, {})]

    # Filters

    def group_filter(self, group_id: str) -> dict:
        """The study filter that lets only the members of the group take a study."""
        return {"filter_id": PARTICIPANT_GROUP_ALLOWLIST, "selected_values": [group_id]}

    def language_filter(self, languages: list[str]) -> dict:
        """The study filter that lets only participants fluent in one of ``languages`` take a
        study. Languages are named in English as Prolific lists them, in any case
        ("spanish"). A language Prolific does not list raises ``PlatformError`` naming it."""
        if isinstance(languages, str) or not languages:
            raise PlatformError("Name the languages as a list of at least one language.")
        languages_filter = self._filters.get(FLUENT_LANGUAGES)
        if languages_filter is None:
            raise PlatformError(f"Prolific lists no {FLUENT_LANGUAGES} filter.")
        choices = {
            str(label).casefold(): choice_id
            for choice_id, label in (languages_filter.get("choices") or {}).items()
        }
        unknown = [language for language in languages if language.casefold() not in choices]
        if unknown:
            raise PlatformError(
                "Prolific lists no fluent language called "
                + ", ".join(repr(language) for language in unknown)
                + "."
            )
        selected = dict.fromkeys(choices[language.casefold()] for language in languages)
        return {"filter_id": FLUENT_LANGUAGES, "selected_values": list(selected)}

    @cached_property
    def _filters(self) -> dict[str, dict]:
        # Prolific's filters change rarely, and a connector lives for one task or request.
        return {item["filter_id"]: item for item in self._pages("/api/v1/filters/", {})}

    # Rewards

    def reward_minimum_cents_per_hour(self, *, currency: str, screener_ids=()) -> int:
        """The lowest hourly reward Prolific recommends, in ``currency``'s minor units, for a
        study using the filters ``screener_ids`` (its most recent recommendation)."""
        params = {"workspace_id": self._workspace_id("reward recommendations")}
        params["currency"] = currency
        if screener_ids:
            params["screener_ids"] = ",".join(screener_ids)
        answer = self._call("GET", "/api/v1/reward-recommendations/", params=params)
        # Prolific documents a bare list; a paged answer is read the same way.
        recommendations = answer.get("results") if isinstance(answer, dict) else answer
        first = recommendations[0] if recommendations else {}
        if not isinstance(first, dict) or first.get("min_reward_per_hour") is None:
            raise PlatformError(f"Prolific gave no reward recommendation in {currency}.")
        if first.get("currency", currency) != currency:
            raise PlatformError(
                f"Prolific recommended a reward in {first['currency']}, not in {currency}."
            )
        return int(first["min_reward_per_hour"])

    def _members_change(self, method: str, group_id: str, participant_id: str) -> None:
        group_id = self._checked_id(group_id, kind="participant group", status=404)
        participant_id = self._checked_id(participant_id, kind="participant", status=400)
        path = f"/api/v1/participant-groups/{group_id}/participants/"
        self._call(method, path, json={"participant_ids": [participant_id]})
