# The two commands a newcomer needs: `make run` and `make test`. Both install what they need.
VENV ?= .venv
PYTHON ?= python3.11
PY := $(VENV)/bin/python
PORT ?= 8000
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Local overrides (see .env.example); plain environment variables win over both.
-include .env
export

export DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/paracrowd
export REDIS_URL ?= redis://127.0.0.1:6379/0
# The Celery queues of this checkout (paracrowd/settings.py): two checkouts' `make run` on one
# Redis database never run each other's tasks. The tests take a prefix of each run's own.
export CELERY_QUEUE_PREFIX ?= checkout-$(shell printf '%s' '$(CURDIR)' | cksum | cut -d' ' -f1)

.PHONY: install install-run database demo-database run test lint docs format bench faults chromium wordnet clean

# Running the site needs requirements.txt only; the tests, lint and benchmarks add
# requirements-dev.txt on top, so `make run` never waits for them.
# metrics/pyproject.toml: the library's own dependencies (requirements.txt installs it).
# Each stamp is named by a hash of the files it was installed from, not dated by them: a
# requirements file touched but unchanged (a branch switched to and back, a `git stash`) needs
# no pip work, and a changed one gets a stamp not made yet, so installs again.
RUN_REQUIREMENTS := requirements.txt metrics/pyproject.toml
requirements_hash = $(shell cat $(1) | sha256sum | cut -c1-16)
RUN_STAMP := $(VENV)/.installed-run-$(call requirements_hash,$(RUN_REQUIREMENTS))
DEV_STAMP := $(VENV)/.installed-dev-$(call requirements_hash,$(RUN_REQUIREMENTS) requirements-dev.txt)
PIP := $(VENV)/bin/pip --quiet --disable-pip-version-check

$(RUN_STAMP):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install -r requirements.txt
	rm -f $(VENV)/.installed-run*
	touch $@

$(DEV_STAMP): $(RUN_STAMP)
	$(PIP) install -r requirements-dev.txt
	rm -f $(VENV)/.installed-dev-* $(VENV)/.installed
	touch $@

install-run: $(RUN_STAMP)

install: $(DEV_STAMP)

database: install-run
	$(PY) bin/create-database

# Debian's Chromium for the browser tests; Playwright drives it, it never downloads a browser.
chromium:
	@command -v chromium >/dev/null || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium)

# Debian's WordNet database (/usr/share/wordnet): the pre-aligner's synonyms, read offline.
wordnet:
	@test -f /usr/share/wordnet/index.noun || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends wordnet-base)

# The demo's releases declare a licence of the demo's own ("other", explained in the citation
# every release card carries): its data was written for the demo, and a real site sets
# RELEASE_LICENSE for what its workers agreed to. A RELEASE_LICENSE of your own (.env, the
# environment) wins over both.
DEMO_RELEASE_LICENSE := other
DEMO_RELEASE_CITATION := ParaCrowd demo data (make run): sentences written for the demo. The licence 'other' is the demo's, for trying releases only; it grants nothing for any real corpus.

# Each phase's seconds go to var/run-phases (bin/phase); bin/run prints them with the address.
# A second run does no pip work, and migrates and loads the demo only if they changed.
run: export RUN_PHASES := $(CURDIR)/var/run-phases
run:
	@mkdir -p var && rm -f $(RUN_PHASES)
	@bin/phase install $(MAKE) --no-print-directory install-run wordnet
	@DEBUG=True bin/phase database $(MAKE) --no-print-directory demo-database
	DEBUG=True PORT=$(PORT) RELEASE_LICENSE="$${RELEASE_LICENSE:-$(DEMO_RELEASE_LICENSE)}" \
		RELEASE_CITATION="$${RELEASE_CITATION:-$(DEMO_RELEASE_CITATION)}" bin/run

# The database `make run` serves: created if missing, migrated if a migration is unapplied, the
# demo loaded unless this checkout's version of it is (demo/management/commands/prepare_demo.py).
demo-database: database
	$(PY) manage.py prepare_demo $(if $(RUN_PHASES),--phases $(RUN_PHASES))

test: install chromium wordnet
	DEBUG=False $(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mkdocs build --strict --quiet --site-dir site

# The documentation (docs/, mkdocs.yml) at http://127.0.0.1:8001/, rebuilt as you edit it.
docs: install
	$(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:8001

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install database wordnet
	DEBUG=True $(PY) manage.py migrate --noinput
	for script in bench/[!_]*.py; do echo "== $$script"; DEBUG=True $(PY) $$script || exit 1; done

# The fault suite: its own Redis and Celery workers, a scratch database; fails on any lost or
# doubled row. FAULTS_ARGS=--quick for a smoke run, FAULTS_ARGS="--only scale-out" for chosen
# scenarios (their names: faults/suite.py --help).
faults: install database
	@command -v redis-server >/dev/null || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq redis-server)
	@command -v pgbouncer >/dev/null && command -v redis-sentinel >/dev/null || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq pgbouncer redis-sentinel)
	$(PY) faults/suite.py $(FAULTS_ARGS)

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
