"""ParaCrowd settings. Everything comes from the environment, with safe local defaults.

A value that cannot be parsed raises ImproperlyConfigured naming the variable, so a typo in
production fails at start-up instead of silently meaning something else.
"""

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .environment import (
    env,
    env_bool,
    env_currency,
    env_float,
    env_https_url,
    env_int,
    env_licence,
    env_list,
    env_mail_address,
    env_mail_backend,
    env_rate,
    env_url_parameter,
)
from .queues import celery_queue_settings, queue_prefix
from .scaling import (
    broker_transport_options,
    cache_backend,
    database_behind_pooler,
    redis_location,
)
from .schedule import BEAT_SCHEDULE

BASE_DIR = Path(__file__).resolve().parent.parent


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is False")
    SECRET_KEY = "local-development-only-not-secret"  # noqa: S105
# The example files' placeholders are public: a key copied from one would sign sessions and
# platform task tokens with a key anyone can read. "<...>" is an example's blank never filled.
_PLACEHOLDER_KEYS = {"change-me-to-a-long-random-string", "local-development-only-not-secret"}
if not DEBUG and (
    SECRET_KEY in _PLACEHOLDER_KEYS or (SECRET_KEY.startswith("<") and SECRET_KEY.endswith(">"))
):
    raise ImproperlyConfigured(
        "SECRET_KEY is still the placeholder of .env.example or .env.production.example; set "
        'a long random one: python -c "import secrets; print(secrets.token_urlsafe(50))"'
    )
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.postgres",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "crowd",
    "collector",
    "annotations",
    "scoring",
    "research",
    "review",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "paracrowd.request_text.RequestTextMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # django-csp's, with the site's policy built once (paracrowd.content_security).
    "paracrowd.content_security.CSPMiddleware",
    # Inside CSP's, so that its pages get the policy: the site's 405 page, and 404 under DEBUG.
    "paracrowd.error_pages.ErrorPagesMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

# Request bodies (files aside) are read into memory up to this many bytes, and answered 413 over
# it (paracrowd.request_text). The largest body the API takes fits: a ratings file of
# research.correlation.RATINGS_TEXT_MAX (5,000,000) characters sent as JSON.
DATA_UPLOAD_MAX_MEMORY_SIZE = 24 * 1024 * 1024

ROOT_URLCONF = "paracrowd.urls"
WSGI_APPLICATION = "paracrowd.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "research.permissions.researcher_links",
            ],
            # One rule for the sample size every statistic is shown with (paracrowd.sample_size).
            "libraries": {"sample_size": "paracrowd.sample_size"},
        },
    },
]

# Behind PgBouncer in transaction pooling (DATABASE_POOLER=pgbouncer): no server-side cursors,
# and no connection kept between requests by default (paracrowd.scaling; scaling-out.md).
DATABASE_POOLER = env("DATABASE_POOLER", "")
try:
    DATABASES = {
        "default": dj_database_url.parse(
            env("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/paracrowd"),
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0 if DATABASE_POOLER else 60),
            # A kept connection is tested before reuse, so after a PostgreSQL restart or a
            # failover no request fails on a connection that died in between.
            conn_health_checks=True,
        )
    }
except ValueError as error:
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {error}") from None
DATABASES["default"] = database_behind_pooler(DATABASES["default"], pooler=DATABASE_POOLER)
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    # Allocation relies on SELECT ... FOR UPDATE SKIP LOCKED and partial unique indexes.
    raise ImproperlyConfigured("DATABASE_URL must point at PostgreSQL (postgres://...)")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes checks every login against its lockouts before Django's own backend tries it.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Django's model backend, the session's user loaded with their worker profile in one query.
    "crowd.auth_backend.WorkerProfileBackend",
]
# One username from one address may fail LOGIN_FAILURE_LIMIT times; then that pair is locked
# out for LOGIN_LOCKOUT_MINUTES. Locking the pair, not the username alone, means a stranger
# cannot lock a worker out of their own account from elsewhere. Staff lift lockouts in the
# admin (Axes › Access attempts: delete the row).
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "crowd.views.login_locked_out"
AXES_CLIENT_IP_CALLABLE = "paracrowd.throttling.client_address"
# Attempts are logged through the axes admin, not the console of every test run.
AXES_VERBOSE = False
LOGIN_URL = "login"
# Each role's own home (research.landing), unless the log-in page was given ?next=.
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env("STATIC_ROOT", str(BASE_DIR / "var" / "static")))
STATICFILES_DIRS = [BASE_DIR / "static"]

# Media: local files by default; S3 when MEDIA_S3_BUCKET is set (boto3 credentials from the
# standard AWS environment variables or instance role).
MEDIA_URL = env("MEDIA_URL", "/media/")
MEDIA_ROOT = Path(env("MEDIA_ROOT", str(BASE_DIR / "var" / "media")))
MEDIA_S3_BUCKET = env("MEDIA_S3_BUCKET", "")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
if MEDIA_S3_BUCKET:
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": MEDIA_S3_BUCKET,
            "endpoint_url": env("MEDIA_S3_ENDPOINT_URL", "") or None,
            "region_name": env("MEDIA_S3_REGION", "") or None,
            "querystring_expire": env_int("MEDIA_S3_URL_EXPIRY_SECONDS", 3600, minimum=60),
        },
    }
# Whether Django itself serves MEDIA_URL (fine on one machine; use S3 or a web server beyond).
SERVE_MEDIA = env_bool("SERVE_MEDIA", True)

REDIS_URL = env("REDIS_URL", "redis://127.0.0.1:6379/0")
# Redis behind Sentinel: REDIS_URL (and CACHE_URL) sentinel://host:port;sentinel://host2:port
# and the name the Sentinels know the master by (paracrowd.scaling; scaling-out.md).
REDIS_SENTINEL_MASTER = env("REDIS_SENTINEL_MASTER", "")
_redis = redis_location(REDIS_URL, master=REDIS_SENTINEL_MASTER, name="REDIS_URL")
_cache_redis = redis_location(
    env("CACHE_URL", REDIS_URL), master=REDIS_SENTINEL_MASTER, name="CACHE_URL"
)
# The cache holds the rate-limit counters, shared by every web worker (paracrowd.cache keeps one
# Redis client per connection pool rather than one per call). It never waits long on
# Redis: a limit that cannot be checked lets the request through (paracrowd.throttling).
CACHES = {
    "default": {
        "BACKEND": cache_backend(_cache_redis)["BACKEND"],
        "LOCATION": _cache_redis.url,
        "KEY_PREFIX": "paracrowd",
        "OPTIONS": {
            "socket_connect_timeout": 0.5,
            "socket_timeout": 0.5,
            **cache_backend(_cache_redis)["OPTIONS"],
        },
    }
}
# Sessions: recorded in the database, read from a copy in the cache, so that a signed-in
# worker's request costs no query for them; with Redis down they are read from the database.
# A copy lives at most SESSION_CACHE_SECONDS: the longest a session deleted (logged out) while
# Redis could not be reached may go on working (paracrowd.sessions).
SESSION_ENGINE = "paracrowd.sessions"
SESSION_CACHE_SECONDS = env_int("SESSION_CACHE_SECONDS", 300, minimum=1)
CELERY_BROKER_URL = REDIS_URL
# Each kind of work has a Celery queue of its own, so that a kind's workers never wait behind
# another's backlog: a demotion sent to Prolific once waited 2 minutes behind an agreement
# refresh, a release 2 minutes behind 373 scoring tasks. Workers subscribe by kind
# (`python -m paracrowd.queues KIND…` prints the names for `celery worker -Q`; bin/run and
# docker-compose.yml start one worker per group of kinds; docs/operators/production.md).
#   default  upkeep: expiry, sweeps, automatic acceptance and pay, password-reset mail (every
#            task not named below)
#   platform calls to the crowd platforms: the outbox's sends, read-backs, publishing, webhooks
#   scoring  per-submission work: scores, a worker's signals, gold checks
#   long     jobs of minutes: exports, releases, analyses, agreement, the aligner's training
CELERY_QUEUE_KINDS = ("default", "platform", "scoring", "long")
# Task-name patterns (fnmatch; an exact name wins over a pattern) → kind.
CELERY_QUEUE_ROUTES = {
    "crowd.tasks.*": "platform",
    "crowd.platforms.*": "platform",
    "crowd.tasks.expire_assignments": "default",
    "crowd.tasks.forget_arrival_counts": "default",
    # Mail: a password-reset link is small, quick work, and never waits behind the platform's.
    "crowd.tasks.send_password_reset": "default",
    "scoring.tasks.score_segments": "scoring",
    "scoring.tasks.score_paraphrases": "scoring",
    "review.tasks.refresh_worker_signals": "scoring",
    "review.tasks.check_gold_answer": "scoring",
    "research.tasks.run_*": "long",
    "scoring.tasks.compute_*": "long",
    "review.tasks.compute_overview": "long",
    "annotations.tasks.refresh_agreement": "long",
    "annotations.tasks.recompute_agreement": "long",
    "annotations.tasks.retrain_aligner": "long",
}
# Every queue's name starts with this prefix, so two sites (or two checkouts, or a benchmark
# beside a site) sharing one Redis database never take each other's tasks: by default the
# database's name, which every process of one site shares (`make run` sets one per checkout,
# the tests one per run). CELERY_QUEUE is its name before the queues were split.
CELERY_QUEUE_PREFIX = queue_prefix(
    env("CELERY_QUEUE_PREFIX", "") or env("CELERY_QUEUE", "") or DATABASES["default"]["NAME"]
)
_queues = celery_queue_settings(
    prefix=CELERY_QUEUE_PREFIX, kinds=CELERY_QUEUE_KINDS, routes=CELERY_QUEUE_ROUTES
)
CELERY_TASK_DEFAULT_QUEUE = _queues["task_default_queue"]
CELERY_TASK_QUEUES = _queues["task_queues"]
CELERY_TASK_ROUTES = _queues["task_routes"]
CELERY_TASK_ACKS_LATE = False  # opted into per task, only where the task is idempotent
CELERY_TASK_ALWAYS_EAGER = False
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A submission must never wait on a dead broker: fail fast and let the sweep catch up.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# A task whose worker died unacknowledged (tasks acknowledge late) goes to another worker
# after this many seconds, not Redis's default hour. Our tasks are idempotent, so one that
# runs longer (a large export) being handed out again is harmless: the second run finds the
# work held or done. Retry delays stay below it (paracrowd.celery).
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 300, minimum=10)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    # Workers look for such tasks every 10 s (kombu's default, 10 s x a throttle of 10, would
    # add up to 100 s to the timeout): one small Redis query each time.
    "unacked_restore_interval": 10,
    "unacked_restore_throttle": 1,
}
CELERY_BROKER_TRANSPORT_OPTIONS.update(broker_transport_options(_redis))
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BEAT_SCHEDULE = BEAT_SCHEDULE

# Description HITs. Pay, targets and assignment duration live on each HIT type (admin-editable).
# At most collector.corpus_formats.LONGEST_DESCRIPTION, the longest any import accepts.
DESCRIPTION_MAX_LENGTH = env_int("DESCRIPTION_MAX_LENGTH", 300, minimum=20, maximum=5000)
# Video-collection HITs and segments cut by admins: lengths refused outside MIN..MAX seconds, and
# the SUGGESTED range shown as guidance (the original study's segments were mostly 4-10 s).
SEGMENT_MIN_SECONDS = env_int("SEGMENT_MIN_SECONDS", 2, minimum=1)
SEGMENT_MAX_SECONDS = env_int("SEGMENT_MAX_SECONDS", 20, minimum=1)
SEGMENT_SUGGESTED_MIN_SECONDS = env_int("SEGMENT_SUGGESTED_MIN_SECONDS", 4, minimum=1)
SEGMENT_SUGGESTED_MAX_SECONDS = env_int("SEGMENT_SUGGESTED_MAX_SECONDS", 10, minimum=1)
if not (
    SEGMENT_MIN_SECONDS
    <= SEGMENT_SUGGESTED_MIN_SECONDS
    < SEGMENT_SUGGESTED_MAX_SECONDS
    <= SEGMENT_MAX_SECONDS
):
    raise ImproperlyConfigured(
        "SEGMENT_MIN_SECONDS <= SEGMENT_SUGGESTED_MIN_SECONDS < SEGMENT_SUGGESTED_MAX_SECONDS "
        "<= SEGMENT_MAX_SECONDS must hold"
    )
# How many video-collection tasks one worker may take in any 24 hours (the review queue is manual).
PROPOSALS_PER_DAY = env_int("PROPOSALS_PER_DAY", 20, minimum=1)

# Pairs are pre-aligned only by an aligner trained on at least this many sentence pairs: below
# it the model's links are mostly noise (bench/aligner.py measures 1,600 RTE-2 pairs).
ALIGNER_MIN_TRAINING_PAIRS = env_int("ALIGNER_MIN_TRAINING_PAIRS", 1000, minimum=1)
# The supervised pre-aligner learns from human alignments (accepted ones and the trial set's
# gold); below this many it is not trained and the unsupervised aligner pre-aligns. 200 RTE-2
# pairs already beat the unsupervised model (bench/aligner.py).
ALIGNER_MIN_GOLD_ALIGNMENTS = env_int("ALIGNER_MIN_GOLD_ALIGNMENTS", 200, minimum=2)
# A newly trained supervised pre-aligner takes over only when judged on at least this many
# held-out sentence pairs (one in five is held out, so about five times as many gold pairs):
# on a handful of pairs a worse model wins by chance (the demo's 14 pairs judged on 4 did).
PREALIGNER_HELD_OUT_MINIMUM = env_int("PREALIGNER_HELD_OUT_MINIMUM", 50, minimum=1)
# It is trained again once this many accepted alignments are new since the last training.
ALIGNER_RETRAIN_EVERY = env_int("ALIGNER_RETRAIN_EVERY", 100, minimum=1)
# The most gold alignments one training reads (the newest), which bounds its time and memory.
ALIGNER_MAX_GOLD_ALIGNMENTS = env_int("ALIGNER_MAX_GOLD_ALIGNMENTS", 20000, minimum=2)
# WordNet's database folder (Debian's wordnet-base): synonyms for the supervised pre-aligner.
WORDNET_PATH = env("WORDNET_PATH", "/usr/share/wordnet")
# A paraphrase table written by extract_paraphrases, used by the supervised pre-aligner ("" none).
ALIGNER_PARAPHRASE_TABLE = env("ALIGNER_PARAPHRASE_TABLE", "")
# A worker's F1 on the alignment trial set (micro-averaged over its pairs, against the gold
# alignments) at or above which they may take alignment HITs. 0.6 sits below the agreement of
# two trained annotators in Cohn et al. (2008) and well above a careless or blank answer.
ALIGNMENT_TRIAL_MIN_F1 = env_float("ALIGNMENT_TRIAL_MIN_F1", 0.6)
# An alignment that changed at most this many cells of the pre-alignment it was shown is flagged
# "unchanged suggestion" and counts under the typing rule as a pasted text does
# (annotations.services). 0: only a suggestion sent back exactly as shown. Raise it to catch
# one or two token clicks made to look busy, at the price of flagging workers whose
# pre-alignment was nearly right.
ALIGNMENT_UNCHANGED_MAX_CELLS = env_int("ALIGNMENT_UNCHANGED_MAX_CELLS", 0, minimum=0)
# Sentence BLEU (0-100, lowercased) against a gold item's references that a description or
# paraphrase needs to count as on topic (review.gold). On MSVD training clusters with six
# references, 10 fails 3.5% of real descriptions and passes 4% of word salads and a third of
# descriptions of another video: the warn and stop rule acts on a run of failures, not one.
GOLD_DESCRIPTION_MIN_BLEU = env_float("GOLD_DESCRIPTION_MIN_BLEU", 10.0)
# Origins that may frame the pages crowd platforms open (CSP frame-ancestors), and the only
# places a framed task posts its result back to. None by default: Prolific and study-link
# platforms open the site in a tab of its own, and Mechanical Turk, the platform that framed
# it, has closed.
PLATFORM_FRAME_ANCESTORS = env_list("PLATFORM_FRAME_ANCESTORS", "")
# New platform workers (unseen workerIds) one network address may bring in one clock hour; each
# creates an account, so this bounds what a script inventing ids can create.
PLATFORM_ARRIVALS_PER_HOUR = env_int("PLATFORM_ARRIVALS_PER_HOUR", 60, minimum=1)
# Local sign-up attempts one network address may make in an hour; more answer 429.
SIGNUPS_PER_HOUR = env_int("SIGNUPS_PER_HOUR", 10, minimum=1)
# Password-reset requests one network address may make in an hour, and requests for one e-mail
# address in an hour whoever asks (so nobody's inbox is flooded); more answer 429.
PASSWORD_RESETS_PER_HOUR = env_int("PASSWORD_RESETS_PER_HOUR", 20, minimum=1)
PASSWORD_RESETS_PER_EMAIL_PER_HOUR = env_int("PASSWORD_RESETS_PER_EMAIL_PER_HOUR", 5, minimum=1)

# E-mail (password-reset links), sent by a Celery worker. Under DEBUG it is printed on the
# console; otherwise it goes to the SMTP server named here (docs/operators/production.md).
EMAIL_BACKEND = env_mail_backend("EMAIL_BACKEND", "console" if DEBUG else "smtp")
EMAIL_HOST = env("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1, maximum=65535)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", "")
# STARTTLS on the submission port by default; EMAIL_USE_SSL=True for TLS from the first byte
# (port 465). Never both: Django would refuse only when the first mail is sent.
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be True")
# Seconds an SMTP server may take to answer: a hung server must not hold a worker for good.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_mail_address("DEFAULT_FROM_EMAIL", "ParaCrowd <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# Crowd-platform connectors (see docs/operators/crowd-platforms.md). Mechanical Turk takes its
# credentials from the standard AWS chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile or
# an instance role); MTURK_SANDBOX chooses the sandbox, where nothing is paid.
MTURK_ENABLED = env_bool("MTURK_ENABLED", False)
MTURK_SANDBOX = env_bool("MTURK_SANDBOX", True)
# Prolific: an API token from its researcher workspace (empty: not configured).
PROLIFIC_API_TOKEN = env("PROLIFIC_API_TOKEN", "")
PROLIFIC_API_URL = env("PROLIFIC_API_URL", "https://api.prolific.com")
# The workspace whose balance is checked before publishing, and the project new studies go
# into (empty: the token's default project); both are ids from the workspace's URL in Prolific.
PROLIFIC_WORKSPACE_ID = env("PROLIFIC_WORKSPACE_ID", "")
PROLIFIC_PROJECT_ID = env("PROLIFIC_PROJECT_ID", "")
PROLIFIC_COMPLETION_URL = env(
    "PROLIFIC_COMPLETION_URL", "https://app.prolific.com/submissions/complete"
)
# Prolific's service fee on rewards and bonuses, in percent (33.3 on most accounts, plus VAT
# where it applies): for cost estimates only.
PROLIFIC_FEE_PERCENT = env_int("PROLIFIC_FEE_PERCENT", 34, minimum=0, maximum=100)
# Prolific's minimum hourly reward in the workspace's currency's minor units ($8.00 an hour;
# the reward-recommendations endpoint is asked too, when reachable, and the higher one wins).
PROLIFIC_MIN_HOURLY_CENTS = env_int("PROLIFIC_MIN_HOURLY_CENTS", 800, minimum=1)
PROLIFIC_CURRENCY = env_currency("PROLIFIC_CURRENCY", "USD", allowed=("USD", "GBP"))
# The workspace's webhook signing secret, if the operator manages it (empty: publishing a
# campaign reads the workspace's secret, creating one if it has none, and saves it).
PROLIFIC_HOOKS_SECRET = env("PROLIFIC_HOOKS_SECRET", "")
# Arrivals from a platform this site has no connector for cannot be checked: they are taken
# (and the page says so) only in demo mode, which DEBUG turns on unless this says otherwise.
PLATFORM_DEMO = env_bool("PLATFORM_DEMO", DEBUG)
# Tasks in a demo session (a campaign sets its own).
PLATFORM_DEMO_SESSION_TASKS = env_int("PLATFORM_DEMO_SESSION_TASKS", 5, minimum=1, maximum=200)
# What a demo session ends with: a completion code that is plainly a demo's.
PLATFORM_DEMO_COMPLETION_CODE = env("PLATFORM_DEMO_COMPLETION_CODE", "DEMO-COMPLETE")
# The tasks one participant may do in one study, over several sessions (MSVD's workers wrote
# ~120 descriptions each): a Prolific study lets each participant take enough places for them.
PLATFORM_TASKS_PER_PARTICIPANT = env_int(
    "PLATFORM_TASKS_PER_PARTICIPANT", 120, minimum=1, maximum=10_000
)
# The hourly rate of a campaign uses the site's own median time per task once it has measured
# this many submissions of the kind and tier; before that, the HIT type's estimate.
PLATFORM_PAY_MEASURED_MINIMUM = env_int("PLATFORM_PAY_MEASURED_MINIMUM", 50, minimum=1)

# Study links: the one connector for CloudResearch Connect, SONA, Microworkers, Clickworker and a
# lab's own panel (crowd.platforms.studylink; docs/operators/study-links.md).
# The parameters that carry the participant's, the session's and the study's ids to our
# entrance. STUDY_LINK_SESSION_PARAM empty: the platform sends no session id, and one is
# derived from the participant and study ids (one session per participant and study).
STUDY_LINK_PARTICIPANT_PARAM = env_url_parameter("STUDY_LINK_PARTICIPANT_PARAM", "participant")
STUDY_LINK_SESSION_PARAM = env_url_parameter("STUDY_LINK_SESSION_PARAM", "session", required=False)
STUDY_LINK_STUDY_PARAM = env_url_parameter("STUDY_LINK_STUDY_PARAM", "study", required=False)
_study_link_params = [
    name
    for name in (STUDY_LINK_PARTICIPANT_PARAM, STUDY_LINK_SESSION_PARAM, STUDY_LINK_STUDY_PARAM)
    if name
]
if len(set(_study_link_params)) != len(_study_link_params):
    raise ImproperlyConfigured(
        "STUDY_LINK_PARTICIPANT_PARAM, STUDY_LINK_SESSION_PARAM and STUDY_LINK_STUDY_PARAM "
        "must be different names"
    )
# Where a participant who finished is sent back (empty: the completion code is shown for them
# to copy). {code}, {verification} and {participant} are replaced, URL-quoted.
STUDY_LINK_COMPLETION_URL = env_https_url(
    "STUDY_LINK_COMPLETION_URL", "", placeholders=("code", "verification", "participant")
)
# The key of the verification codes (empty: derived from SECRET_KEY, so rotating SECRET_KEY
# changes every code; set it to keep codes valid across a rotation). Short keys can be guessed
# from a few codes, so at least 32 characters.
STUDY_LINK_SECRET = env("STUDY_LINK_SECRET", "")
if STUDY_LINK_SECRET and len(STUDY_LINK_SECRET) < 32:
    raise ImproperlyConfigured("STUDY_LINK_SECRET must be at least 32 characters (or empty)")
# The platform's fee in percent and its minimum pay per hour, for cost estimates and the
# session reward; the currency the platform pays in (ISO 4217).
STUDY_LINK_FEE_PERCENT = env_int("STUDY_LINK_FEE_PERCENT", 0, minimum=0, maximum=100)
STUDY_LINK_MIN_HOURLY_CENTS = env_int("STUDY_LINK_MIN_HOURLY_CENTS", 800, minimum=0)
STUDY_LINK_CURRENCY = env_currency("STUDY_LINK_CURRENCY", "USD")

# The address workers reach this site at, as the platforms link to it (https, no trailing /).
PLATFORM_PUBLIC_URL = env("PLATFORM_PUBLIC_URL", "http://localhost:8000").rstrip("/")

# Qualification: promote every worker who writes only in languages other than English once
# they have written this many descriptions (the study promoted them all: their quality could
# not be checked). An admin's demotion or block is never overridden.
AUTO_PROMOTE_OTHER_LANGUAGES = env_bool("AUTO_PROMOTE_OTHER_LANGUAGES", True)
AUTO_PROMOTE_AFTER = env_int("AUTO_PROMOTE_AFTER", 5, minimum=1)
# The crowd platform's fee on every payment, for cost estimates: a percentage of each payment,
# at least a minimum per payment (Mechanical Turk: 20%, at least $0.01).
PLATFORM_FEE_PERCENT = env_int("PLATFORM_FEE_PERCENT", 20, minimum=0, maximum=100)
PLATFORM_FEE_MINIMUM_CENTS = env_int("PLATFORM_FEE_MINIMUM_CENTS", 1)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "paracrowd.throttling.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.CursorPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # 401, 403, 404 and 429 in one JSON shape, each saying what to do.
    "EXCEPTION_HANDLER": "research.refusals.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "paracrowd.throttling.AnonymousThrottle",
        "paracrowd.throttling.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("THROTTLE_ANONYMOUS", "60/minute"),
        "user": env_rate("THROTTLE_USER", "600/minute"),
        "bad_token": env_rate("THROTTLE_BAD_TOKEN", "20/hour"),
    },
    # How many reverse proxies of ours append to X-Forwarded-For; 0 trusts only REMOTE_ADDR
    # (a client can write X-Forwarded-For itself).
    "NUM_PROXIES": env_int("TRUSTED_PROXY_COUNT", 0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "ParaCrowd research API",
    "DESCRIPTION": (
        "The corpus for researchers, read-only: segments, clusters of descriptions with their "
        "scores, word alignments, direct paraphrases, ratings, corpus statistics. Jobs are "
        "started by POST and read back by GET: exports, scoring of paraphrase systems against "
        "the test split, ratings analyses. `/api/` lists every address. Authenticate with a "
        "token (`Authorization: Token <key>`) from the researcher page."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["research.permissions.IsResearcher"],
    "SCHEMA_PATH_PREFIX": "/api/",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "research.schema.document_errors",
    ],
    # Swagger UI's files come from drf-spectacular-sidecar: the docs page works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Researcher exports. s3:// destinations of export_corpus use these (credentials from the
# standard AWS environment variables or instance role); export jobs started from the API or
# the researcher page write to the default storage (MEDIA_ROOT or MEDIA_S3_BUCKET).
EXPORT_S3_ENDPOINT_URL = env("EXPORT_S3_ENDPOINT_URL", "")
EXPORT_S3_REGION = env("EXPORT_S3_REGION", "")
# Releases (manage.py release, the research page): the licence each release's dataset card
# declares (a Hugging Face licence identifier: cc-by-4.0, cc-by-sa-4.0, odc-by, other, ...)
# and how to cite the corpus. The site decides them, not whoever makes a release; no release
# is made until the licence is set.
RELEASE_LICENSE = env_licence("RELEASE_LICENSE", "")
RELEASE_CITATION = env("RELEASE_CITATION", "")
# Scoring researchers' systems: PINC × sigmoid((BLEU − centre) × slope). Set them to what
# `manage.py fit_combined_metric` prints for your ratings.
COMBINED_SCORE_CENTRE = env_float("COMBINED_SCORE_CENTRE", 40.0)
COMBINED_SCORE_SLOPE = env_float("COMBINED_SCORE_SLOPE", 0.2)
# The most scoring work one system of a scoring job (POST /api/system-scores/) may ask for:
# n-gram units (words, or characters where scored by character) of outputs, sources and
# references, times the n-gram order. About a microsecond each, so the default keeps one
# system near ten seconds of a Celery worker's time.
SYSTEM_SCORE_WORK_LIMIT = env_int("SYSTEM_SCORE_WORK_LIMIT", 10_000_000, minimum=1)

# HTTPS. Outside DEBUG everything defaults to a site served over TLS; each can be turned off
# for a deployment that truly needs it (the README's "Production" lists what `check --deploy`
# wants). Behind a TLS-terminating proxy, SECURE_PROXY_SSL_HEADER names the header it sets
# ("HTTP_X_FORWARDED_PROTO,https"); leave it empty otherwise, or clients could claim https.
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# Load balancers probe over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
_proxy_header = env_list("SECURE_PROXY_SSL_HEADER", "")
if _proxy_header and (len(_proxy_header) != 2 or not _proxy_header[0].startswith("HTTP_")):
    raise ImproperlyConfigured(
        "SECURE_PROXY_SSL_HEADER must be a request header and its value, "
        f"like HTTP_X_FORWARDED_PROTO,https; not {env('SECURE_PROXY_SSL_HEADER', '')!r}"
    )
SECURE_PROXY_SSL_HEADER = tuple(_proxy_header) or None
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy on every page (django-csp): our own scripts and styles only (the
# templates have no inline script or style), the YouTube player's script and frame, S3 media
# when configured. Pages crowd platforms frame widen frame-ancestors (crowd.entrance).
_media_origins = ["'self'"]
if MEDIA_S3_BUCKET:
    _media_origins.append(env("MEDIA_S3_ENDPOINT_URL", "") or "https://*.amazonaws.com")
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", "https://www.youtube.com", "https://s.ytimg.com"],
        "frame-src": ["https://www.youtube.com", "https://www.youtube-nocookie.com"],
        "img-src": ["'self'", "data:", "https://i.ytimg.com"],
        "media-src": _media_origins,
        "style-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
}
