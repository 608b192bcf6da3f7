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

.PHONY: install install-run database run test lint docs format bench faults chromium wordnet clean

# Running the site needs requirements.txt only; the tests, lint and benchmarks add
# requirements-dev.txt on top, so `make run` never waits for them.
# metrics/pyproject.toml: the library's own dependencies (requirements.txt installs it).
$(VENV)/.installed-run: requirements.txt metrics/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed: $(VENV)/.installed-run requirements-dev.txt
	$(VENV)/bin/pip install --quiet -r requirements-dev.txt
	touch $@

install-run: $(VENV)/.installed-run

install: $(VENV)/.installed

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

run: database wordnet
	DEBUG=True $(PY) manage.py migrate --noinput
	DEBUG=True $(PY) manage.py load_demo
	DEBUG=True PORT=$(PORT) RELEASE_LICENSE="$${RELEASE_LICENSE:-$(DEMO_RELEASE_LICENSE)}" \
		RELEASE_CITATION="$${RELEASE_CITATION:-$(DEMO_RELEASE_CITATION)}" bin/run

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
