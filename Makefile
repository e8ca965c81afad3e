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

# The rules engine (games/engine) is compiled with mypyc by the install (setup.py);
# UNO_PURE_PYTHON=1 (in the environment or on the command line) builds and runs it as
# pure Python instead. The install is redone when the engine's sources, setup.py or
# pyproject.toml change, or when the mode changes: a compiled module beside its .py
# shadows it, so editing the engine without rebuilding would test the old code.
ENGINE_MODE := $(if $(filter 1,$(UNO_PURE_PYTHON)),pure,compiled)
ENGINE_SRC := $(wildcard games/engine/*.py games/engine/*/*.py)
MODE_FILE := $(VENV)/.engine-mode
export UNO_PURE_PYTHON

.PHONY: help venv run test audit lint clean clean-build FORCE

help:
	@echo "make run   - migrate, collect static files and serve on 0.0.0.0:\$${PORT:-8000}"
	@echo "             (gunicorn + celery worker + celery beat; SQLite and a filesystem broker"
	@echo "             unless DATABASE_URL / REDIS_URL are set)"
	@echo "make test  - run the tests against PostgreSQL and Redis on 127.0.0.1"
	@echo "make audit - pip-audit the venv's dependencies: fails on a known vulnerability with a fix"
	@echo "             (and when they cannot be audited; AUDIT_ARGS=--if-reachable skips, loudly, instead)"
	@echo "make lint  - static checks (ruff, if installed)"
	@echo "make clean-build - remove the compiled engine (extension modules, build/)"
	@echo "UNO_PURE_PYTHON=1 make ... - install and run the rules engine as pure Python (not compiled)"

venv: $(STAMP)

# Re-install when the packaging, the engine's sources or the engine mode change.
$(STAMP): pyproject.toml setup.py $(ENGINE_SRC) $(MODE_FILE)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@if [ "$(ENGINE_MODE)" = pure ]; then $(MAKE) --no-print-directory clean-build; fi
	$(BIN)/pip install --quiet -e '.[dev]'
	$(BIN)/python -c 'import games.engine as e; print("games.engine:", e.ENGINE_BUILD)'
	touch $(STAMP)

# Rewritten only when the mode differs from the last install's, so that switching
# between compiled and pure triggers a re-install and nothing else does.
$(MODE_FILE): FORCE
	@mkdir -p $(VENV)
	@if [ "$$(cat $@ 2>/dev/null)" != "$(ENGINE_MODE)" ]; then echo "$(ENGINE_MODE)" > $@; fi

FORCE:

run: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py createcachetable
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	exec scripts/run.sh

# The test database (test_uno) is created and dropped by pytest-django.
# Redis db 15 is flushed between tests: point TEST_REDIS_URL at a scratch db.
# Then the tests marked `concurrency` run again on the embedded default (SQLite file
# in TEST_SQLITE_DIR, filesystem broker, no Redis), as `make run` uses it.
TEST_SQLITE_DIR ?= .run/test-sqlite
test: venv
	$(BIN)/python scripts/wait_for.py --timeout 10 127.0.0.1:5432 127.0.0.1:6379
	DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(BIN)/pytest $(PYTEST_ARGS)
	rm -rf $(TEST_SQLITE_DIR) && mkdir -p $(TEST_SQLITE_DIR)
	DATABASE_URL=sqlite:///$(abspath $(TEST_SQLITE_DIR))/db.sqlite3 REDIS_URL= RUN_DIR=$(abspath $(TEST_SQLITE_DIR))/run \
		$(BIN)/pytest -m concurrency $(PYTEST_ARGS)

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

# The compiled engine: extension modules next to the sources (and the shared library
# at the root), mypyc's C sources and its build record. The next install rebuilds.
clean-build:
	rm -f games_engine__mypyc.*.so games/engine/_compiled.json $(STAMP)
	find games/engine -name '*.so' -delete
	rm -rf build .mypy_cache
