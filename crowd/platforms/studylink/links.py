"""Study links: one connector for every platform that sends participants to a link and takes
them back with a completion code (CloudResearch Connect, SONA, Microworkers, Clickworker, a
lab's own panel). Operators' guide: docs/operators/study-links.md.

The researcher pastes ``study_link(...)`` into the platform, which sends each participant to it
with their ids as query parameters (``arrival_ids`` reads them). At the end the participant is
shown a completion code or sent back to the platform (``completion_address``), with a
``verification_code`` of their session that only this site can compute. The platform's export
is read back and checked with ``records_read``; ``approvals_csv`` and ``bonuses_csv`` are the
files the researcher uploads to pay. Nothing here touches the database or the network.
"""

import base64
import csv
import hashlib
import hmac
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import quote, urlsplit

from django.conf import settings
from django.utils.crypto import salted_hmac

from ..prolific.client import amount

# An id a platform sends: letters, digits, "_", ".", ":" and "-", the first a letter, digit or
# "_" (a leading "-" would read as a formula in a spreadsheet and be altered by the CSVs below).
# "@" is refused: none of these platforms puts one in its ids, so a value with one is an email
# address mapped into the parameter by mistake, personal data we must not keep as an id.
ID = re.compile(r"\A[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}\Z")
ROLES = ("participant", "session", "study")
# The parameter of a study link naming its campaign (the site's own id of the study).
CAMPAIGN_PARAMETER = "campaign"
MAX_RECORDS = 200_000
# A spreadsheet evaluates a cell starting with one of these (CSV formula injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
KEY_SALT = "crowd.platforms.studylink.secret"
DASHES = str.maketrans("", "", "-\u2010\u2011\u2012\u2013\u2014\u2212")


@dataclass(frozen=True, kw_only=True)
class StudyLinkConfig:
    """How study links are read and checked. ``session_param`` empty: the platform sends no
    session id and ``local_session_id`` makes one; ``study_param`` empty: no study id is read.
    ``completion_url`` empty: the completion code is shown for the participant to copy."""

    participant_param: str = "participant"
    session_param: str = "session"
    study_param: str = "study"
    completion_url: str = ""
    secret: str = field(repr=False)
    fee_percent: int = 0
    min_hourly_cents: int = 800
    currency: str = "USD"

    def __post_init__(self):
        if not self.secret:
            raise ValueError("A study-link configuration needs a secret to sign codes with.")

    @classmethod
    def from_settings(cls) -> "StudyLinkConfig":
        """The STUDY_LINK_* settings (checked when settings were loaded). Without
        STUDY_LINK_SECRET the key is derived from SECRET_KEY, under a salt of its own."""
        secret = settings.STUDY_LINK_SECRET or (
            salted_hmac(KEY_SALT, "verification codes", algorithm="sha256").hexdigest()
        )
        return cls(
            participant_param=settings.STUDY_LINK_PARTICIPANT_PARAM,
            session_param=settings.STUDY_LINK_SESSION_PARAM,
            study_param=settings.STUDY_LINK_STUDY_PARAM,
            completion_url=settings.STUDY_LINK_COMPLETION_URL,
            secret=secret,
            fee_percent=settings.STUDY_LINK_FEE_PERCENT,
            min_hourly_cents=settings.STUDY_LINK_MIN_HOURLY_CENTS,
            currency=settings.STUDY_LINK_CURRENCY,
        )

    def for_preset(self, preset: str) -> "StudyLinkConfig":
        """This configuration with the parameter names ``preset``'s platform imposes: the
        names it appends to the link itself, and none for an id it never sends."""
        chosen = _preset(preset)
        names = {}
        for role in ROLES:
            if role in chosen.appended:
                names[f"{role}_param"] = chosen.appended[role]
            elif role not in chosen.placeholders:
                names[f"{role}_param"] = ""
        return replace(self, **names)


@dataclass(frozen=True)
class Preset:
    """How a platform sends participants to a study link and takes them back. ``placeholders``:
    for each id it sends, the text it replaces in the study URL; ``appended``: the parameters
    it adds to the URL itself (``StudyLinkConfig.for_preset`` takes their names); ``back``:
    "code" (the participant enters the completion code there), "redirect", or either."""

    label: str
    placeholders: Mapping[str, str]
    appended: Mapping[str, str]
    back: str


# Where a detail could not be confirmed in the platform's own pages, the comment says so.
PRESETS = {
    # A lab's own panel: it replaces these, or its own spelling of them, with the ids.
    "generic": Preset(
        "your own panel",
        {"participant": "{PARTICIPANT_ID}", "session": "{SESSION_ID}", "study": "{STUDY_ID}"},
        {},
        "code or redirect",
    ),
    # Redirect URL or completion code: Connect's researcher help, "Project Completion". The
    # names of the parameters Connect appends are NOT confirmed: test with a preview first.
    "connect": Preset(
        "CloudResearch Connect",
        {},
        {"participant": "participantId", "session": "assignmentId", "study": "projectId"},
        "code or redirect",
    ),
    # sona-systems.com, "Using the SURVEY CODE feature" (a 2-7 digit code per sign-up) and
    # "External Study Credit Granting" (the client-side completion URL ends survey_code=XXXX).
    "sona": Preset("SONA", {"participant": "%SURVEY_CODE%"}, {}, "redirect"),
    # Worker and campaign ids as URL parameters: Microworkers' blog, "VCODE Verification". The
    # spellings are those public campaigns use, NOT confirmed in Microworkers' own pages; nor
    # is a redirect back (the worker submits the code as proof).
    "microworkers": Preset(
        "Microworkers",
        {"participant": "{{MW_ID}}", "session": "{{SLOT_ID}}", "study": "{{CAMP_ID}}"},
        {},
        "code",
    ),
    # "Add unique ID of the Clickworker" appends user_id: Clickworker's support, "Gathering
    # Clickworker IDs". No session or study id; a redirect back is NOT confirmed.
    "clickworker": Preset("Clickworker", {}, {"participant": "user_id"}, "code"),
}
_PLACEHOLDER_TEXTS = {text for preset in PRESETS.values() for text in preset.placeholders.values()}


# Hosts that name this machine: a participant's browser would look for the site on their own.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")  # noqa: S104 (not a binding)


def public_address_problem(public_url: str) -> str | None:
    """Why participants of a crowd platform could not reach a link to ``public_url`` (the
    site's PLATFORM_PUBLIC_URL), in one sentence; None when they could: an https address of
    a host other than this machine."""
    parts = urlsplit(public_url)
    host = (parts.hostname or "").lower()
    if not public_url:
        return "PLATFORM_PUBLIC_URL is not set"
    if host in LOCAL_HOSTS or host.endswith(".localhost") or host.startswith("127."):
        return f"PLATFORM_PUBLIC_URL is {public_url}, an address of this machine only"
    if parts.scheme != "https":
        return f"PLATFORM_PUBLIC_URL is {public_url}, not an https address"
    return None


@dataclass(frozen=True)
class StudyLinkArrival:
    participant_id: str
    session_id: str
    study_id: str | None  # None: the platform sends no study id


@dataclass(frozen=True)
class PlatformRecord:
    """One row of a platform's export. ``verified`` is None when the export has no codes."""

    participant_id: str
    session_id: str
    code: str | None
    status: str | None
    verified: bool | None


def study_link(entrance_url: str, config: StudyLinkConfig, preset: str = "generic") -> str:
    """The URL the researcher pastes into ``preset``'s platform: ``entrance_url`` with the
    platform's placeholders as query parameters of ``config``'s names, left unescaped because
    the platform looks for them literally. Raises ValueError when ``config`` expects an id the
    platform does not send, or names differently one it appends (see ``for_preset``)."""
    chosen = _preset(preset)
    parts = urlsplit(entrance_url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.fragment:
        raise ValueError(f"{entrance_url!r} is not an http(s) address without a #fragment.")
    pairs = []
    for role in ROLES:
        name = getattr(config, f"{role}_param")
        if role in chosen.appended:
            if name != chosen.appended[role]:
                raise ValueError(
                    f"{chosen.label} adds the {role} id as {chosen.appended[role]!r} itself, "
                    f"not as {name!r}: use config.for_preset({preset!r})."
                )
        elif role in chosen.placeholders:
            if name:
                pairs.append(f"{name}={chosen.placeholders[role]}")
        elif name and role != "study":
            raise ValueError(
                f"{chosen.label} sends no {role} id, so the {name!r} parameter would never "
                f"arrive: use config.for_preset({preset!r})."
            )
    if not pairs:
        return entrance_url
    separator = "&" if parts.query else ("" if entrance_url.endswith("?") else "?")
    return entrance_url + separator + "&".join(pairs)


def arrival_ids(
    params: Mapping, config: StudyLinkConfig, *, local_study: str | None = None
) -> StudyLinkArrival:
    """The ids a platform sent with a participant, from the request's GET parameters (a
    QueryDict or a plain mapping). The participant id is required; so is the session id when
    ``config`` names its parameter (else ``local_session_id`` makes one, keyed by
    ``local_study`` when given — the site's own id of the study, so that one participant's
    sessions in two studies differ even where the platform sends no study id); the study id
    is optional. Each must match ID and be given once. Otherwise raises ValueError with one
    sentence for the participant that names the parameter."""
    participant_id = _param(params, config.participant_param, required=True)
    study_id = _param(params, config.study_param, required=False) if config.study_param else None
    if config.session_param:
        session_id = _param(params, config.session_param, required=True)
    else:
        session_id = local_session_id(
            participant_id=participant_id, study_id=local_study or study_id, config=config
        )
    return StudyLinkArrival(participant_id, session_id, study_id)


def local_session_id(*, participant_id: str, study_id: str | None, config: StudyLinkConfig) -> str:
    """The session id of a participant whose platform sends none: "local-" and 16 base32
    characters of an HMAC of their participant and study ids. The same participant coming
    back to the same study gets the same session, so a reload never opens a second one."""
    digest = _digest(config, "local session", _checked(participant_id), study_id or "")
    return "local-" + base64.b32encode(digest).decode()[:16]


def verification_code(*, session_id: str, participant_id: str, config: StudyLinkConfig) -> str:
    """The code proving a participant finished a session: HMAC-SHA256 under the config's
    secret of the two ids (each length-prefixed, so no two pairs encode alike), its first 60
    bits as 12 base32 characters in three groups of four ("ABCD-EFGH-JK23"). The same ids
    always give the same code; without the secret, a guess is right once in 2**60."""
    digest = _digest(config, "verification", _checked(session_id), _checked(participant_id))
    characters = base64.b32encode(digest).decode()[:12]
    return "-".join(characters[start : start + 4] for start in (0, 4, 8))


def verification_check(
    code: str, *, session_id: str, participant_id: str, config: StudyLinkConfig
) -> bool:
    """Whether ``code`` is this session and participant's verification code, compared in
    constant time. Case, spaces and dashes (as a person may type them) do not matter."""
    if not isinstance(code, str) or len(code) > 64:
        return False
    typed = "".join(code.split()).translate(DASHES).upper()
    expected = verification_code(
        session_id=session_id, participant_id=participant_id, config=config
    ).replace("-", "")
    return hmac.compare_digest(typed.encode(), expected.encode())


def completion_address(
    *, completion_code: str, verification: str, config: StudyLinkConfig, participant_id: str = ""
) -> str | None:
    """Where to send a participant who finished: the configured completion URL with
    ``{code}``, ``{verification}`` and ``{participant}`` (SONA's survey code) replaced by the
    URL-quoted values; None when no completion URL is configured (show the code instead)."""
    if not config.completion_url:
        return None
    if "{participant}" in config.completion_url and not participant_id:
        raise ValueError("The completion URL needs the participant id.")
    values = {"code": completion_code, "verification": verification, "participant": participant_id}
    address = config.completion_url
    for name, value in values.items():
        address = address.replace("{" + name + "}", quote(value, safe=""))
    return address


def approvals_csv(rows: Iterable[tuple[str, str, str]]) -> str:
    """The approvals file for a platform's upload page: a header, then one
    ``participant_id,session_id,verification_code`` row each. A session listed twice is
    refused (the platform could pay twice); a participant who came back has a row for each
    session, each paid its reward; cells a spreadsheet would evaluate are defused."""
    return _table(("participant_id", "session_id", "verification_code"), rows, 3, lambda row: row)


def bonuses_csv(rows: Iterable[tuple[str, str, str, int]]) -> str:
    """The bonuses file: ``participant_id,session_id,verification_code,amount`` rows, the
    amount in major units ("0.25" for 25 cents). Bonuses must be positive whole cents; one
    row per session (sum a session's bonuses first), as for ``approvals_csv``."""

    def converted(row):
        *ids, cents = row
        if isinstance(cents, bool) or not isinstance(cents, int) or cents <= 0:
            raise ValueError(f"The bonus for {ids[0]} must be a positive number of cents.")
        return (*ids, amount(cents))

    return _table(
        ("participant_id", "session_id", "verification_code", "amount"), rows, 4, converted
    )


def records_read(
    text: str,
    *,
    participant_column: str,
    session_column: str | None,
    code_column: str | None = None,
    status_column: str | None = None,
    config: StudyLinkConfig,
    study_id: str | None = None,
) -> list[PlatformRecord]:
    """The rows of a platform's export (CSV text separated by commas, semicolons or tabs; a
    byte-order mark is skipped; column names match whatever their case). Each row gives its
    participant and session ids (``session_column`` None: the platform sends no sessions,
    ``local_session_id`` from ``study_id``), the code typed, the status as the platform words
    it, and whether the code verifies. Blank rows are skipped; a missing or ambiguous column,
    an id that is not one, or more than MAX_RECORDS rows raise ValueError saying which."""
    if session_column is None and config.session_param:
        raise ValueError("The platform sends session ids: name the export's session column.")
    text = text.removeprefix("\ufeff")
    first_line = text.split("\n", 1)[0]
    reader = csv.reader(io.StringIO(text), delimiter=max(",;\t", key=first_line.count))
    header = [name.strip().casefold() for name in next(reader, [])]
    wanted = {"participant": participant_column, "session": session_column}
    wanted |= {"code": code_column, "status": status_column}
    at = {key: _column(header, name) for key, name in wanted.items() if name}
    records = []
    try:
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            if len(records) == MAX_RECORDS:
                raise ValueError(f"The export has more than {MAX_RECORDS:,} rows: split it.")
            cells = {
                key: row[index].strip() if index < len(row) else "" for key, index in at.items()
            }
            where = f"line {reader.line_num}"
            participant_id = _checked(cells["participant"], where)
            if session_column:
                session_id = _checked(cells["session"], where)
            else:
                session_id = local_session_id(
                    participant_id=participant_id, study_id=study_id, config=config
                )
            code, status = cells.get("code"), cells.get("status")
            verified = (
                None
                if code is None
                else verification_check(
                    code, session_id=session_id, participant_id=participant_id, config=config
                )
            )
            records.append(PlatformRecord(participant_id, session_id, code, status, verified))
    except csv.Error as error:
        raise ValueError(f"The export is not CSV at line {reader.line_num}: {error}.") from None
    return records


def _column(header: list[str], name: str) -> int:
    found = [index for index, column in enumerate(header) if column == name.strip().casefold()]
    if len(found) != 1:
        problem = "has no column" if not found else "has more than one column"
        raise ValueError(f"The export {problem} named {name!r}.")
    return found[0]


def _preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"No study-link preset {name!r}; there are {', '.join(PRESETS)}."
        ) from None


def _param(params: Mapping, name: str, *, required: bool) -> str | None:
    values = params.getlist(name) if hasattr(params, "getlist") else [params.get(name)]
    values = [value for value in values if value]
    please = "please go back to the platform and open the study from there"
    if not values:
        if required:
            raise ValueError(f"The link you followed has no {name!r} parameter; {please}.")
        return None
    if len(values) > 1:
        raise ValueError(f"The link you followed gives the {name!r} parameter twice; {please}.")
    value = values[0]
    if value in _PLACEHOLDER_TEXTS:
        problem = "still holds the platform's placeholder (opened outside the platform?)"
    elif "@" in value:
        problem = "holds an email address, not the platform's id"
    elif not ID.fullmatch(value):
        problem = "is not an id this site can accept"
    else:
        return value
    raise ValueError(f"The {name!r} parameter of your link {problem}; {please}.")


def _checked(value, where: str = "") -> str:
    if not isinstance(value, str) or not ID.fullmatch(value):
        prefix = f"{where.capitalize()}: " if where else ""
        raise ValueError(f"{prefix}{value!r} is not a platform id (letters, digits, _ . : -).")
    return value


def _digest(config: StudyLinkConfig, *parts: str) -> bytes:
    # Each part (the first names the purpose) carries its length: ("ab", "c") != ("a", "bc").
    message = b"".join(len(data).to_bytes(4, "big") + data for data in (p.encode() for p in parts))
    return hmac.new(config.secret.encode(), message, hashlib.sha256).digest()


def _table(header: tuple, rows: Iterable, width: int, convert) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    seen = set()
    for row in rows:
        if not isinstance(row, tuple | list) or len(row) != width:
            raise ValueError(f"{row!r} is not a row of {', '.join(header)}.")
        participant_id, session_id, verification = row[:3]
        _checked(participant_id)
        _checked(session_id)
        if not isinstance(verification, str):
            raise ValueError(f"The verification code of {participant_id} must be text.")
        if (participant_id, session_id) in seen:
            raise ValueError(
                f"{participant_id}'s session {session_id} is listed twice; give one row per "
                "session."
            )
        seen.add((participant_id, session_id))
        writer.writerow([_cell(str(value)) for value in convert(tuple(row))])
    return buffer.getvalue()


def _cell(value: str) -> str:
    """``value`` as a spreadsheet shows it rather than evaluates it."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value
