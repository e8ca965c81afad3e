# UNO server: `make run` serves on $PORT (default 8000), `make test` runs the tests.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# `make test` talks to real services (started by .ci/run on CI).
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/uno
TEST_REDIS_URL ?= redis://127.0.0.1:6379/15
PYTEST_ARGS ?=

.PHONY: help venv run test audit lint clean

help:
	@echo "make run   - migrate, collect static files and serve on 0.0.0.0:\$${PORT:-8000}"
	@echo "             (gunicorn + celery worker + celery beat; SQLite and a filesystem broker"
	@echo "             unless DATABASE_URL / REDIS_URL are set)"
	@echo "             and the documentation at /docs/ (built from docs/ by mkdocs)"
	@echo "make test  - build the documentation (mkdocs, strict), then run the tests against"
	@echo "             PostgreSQL and Redis on 127.0.0.1"
	@echo "make audit - pip-audit the venv's dependencies: fails on a known vulnerability with a fix"
	@echo "             (and when they cannot be audited; AUDIT_ARGS=--if-reachable skips, loudly, instead)"
	@echo "make lint  - static checks (ruff, if installed)"

venv: $(STAMP)

# Re-install when the packaging changes (an editable install: code edits need none).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The documentation site (docs/, mkdocs.yml), served at /docs/ (config/docs_site.py).
DOCS_SITE_DIR ?= $(abspath $(or $(RUN_DIR),.run))/site
export NO_MKDOCS_2_WARNING := 1

run: venv
	$(BIN)/mkdocs build --strict --quiet --site-dir $(DOCS_SITE_DIR)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createcachetable
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	DOCS_SITE_DIR=$(DOCS_SITE_DIR) exec scripts/run.sh

# axe-core (npm, pinned by tests/a11y/package-lock.json) for the browser tests' accessibility
# checks (tests/browser_support.py axe_violations): installed when missing or its lock changed.
AXE := tests/a11y/node_modules/axe-core/axe.min.js
$(AXE): tests/a11y/package-lock.json
	npm ci --prefix tests/a11y --no-audit --no-fund --silent
	touch $@

# The test databases (test_uno_gw0, test_uno_gw1...) are created and dropped by pytest-django.
# Three stages run at once, each with its own database, run files and temporary folder:
# - PostgreSQL + Redis (the output shown as it comes): PG_TEST_WORKERS processes
#   (pytest-xdist, a test file's tests together), each with its own database and Redis db
#   (tests/parallel_env.py: db 15 for the first, 14 for the second...), flushed between
#   tests: point TEST_REDIS_URL at scratch dbs;
# - the tests marked `concurrency` again on the embedded default (SQLite file in
#   TEST_SQLITE_DIR, filesystem broker, no Redis), as `make run` uses it;
# - the engine's tests (tests/engine: pure Python, no database, no shared state) on
#   ENGINE_TEST_WORKERS processes at a lower priority (nice).
# The first two mostly wait on their servers, workers and browsers (together about half of
# two cores), and the engine's tests take the cores meanwhile. The other two stages' output
# follows the first's; any stage failing fails `make test`.
TEST_SQLITE_DIR ?= .run/test-sqlite
ENGINE_TEST_WORKERS ?= 2
PG_TEST_WORKERS ?= 2
test: venv $(AXE)
	$(BIN)/python scripts/wait_for.py --timeout 10 127.0.0.1:5432 127.0.0.1:6379
	$(BIN)/mkdocs build --strict --quiet --site-dir $(abspath .run/test-site)
	rm -rf $(TEST_SQLITE_DIR) && mkdir -p $(TEST_SQLITE_DIR)
	nice -n 10 $(BIN)/pytest -n $(ENGINE_TEST_WORKERS) tests/engine --basetemp=$(abspath $(TEST_SQLITE_DIR))/tmp-engine \
		$(PYTEST_ARGS) > $(TEST_SQLITE_DIR)/engine.log 2>&1 & \
	engine=$$!; \
	DATABASE_URL=sqlite:///$(abspath $(TEST_SQLITE_DIR))/db.sqlite3 REDIS_URL= RUN_DIR=$(abspath $(TEST_SQLITE_DIR))/run \
		$(BIN)/pytest -m concurrency --ignore=tests/engine --basetemp=$(abspath $(TEST_SQLITE_DIR))/tmp-sqlite \
		$(PYTEST_ARGS) > $(TEST_SQLITE_DIR)/sqlite.log 2>&1 & \
	sqlite=$$!; \
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) PYTHONPATH=$(CURDIR) \
		$(BIN)/pytest -p tests.parallel_env -n $(PG_TEST_WORKERS) --dist loadfile --ignore=tests/engine $(PYTEST_ARGS); \
	pg=$$?; \
	wait $$sqlite; sqlite=$$?; \
	wait $$engine; engine=$$?; \
	echo "--- the embedded default's stage (SQLite, no Redis: the tests marked concurrency), run beside it:"; \
	cat $(TEST_SQLITE_DIR)/sqlite.log; \
	echo "--- the engine's tests (tests/engine), run beside it:"; cat $(TEST_SQLITE_DIR)/engine.log; \
	test $$pg -eq 0 && test $$sqlite -eq 0 && test $$engine -eq 0

# Known vulnerabilities in the installed dependencies (PyPI's advisory data, read by
# pip-audit over the network): scripts/audit.py says which and when it fails.
AUDIT_ARGS ?=
audit: venv
	$(BIN)/python scripts/audit.py $(AUDIT_ARGS)

lint: venv
	$(BIN)/python manage.py check
	$(BIN)/python manage.py makemigrations --check --dry-run
	@if [ -x $(BIN)/ruff ]; then $(BIN)/ruff check .; else echo "ruff not installed: skipped"; fi

clean:
	rm -rf .run staticfiles db.sqlite3

