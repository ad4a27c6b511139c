# pgflow-py developer tasks. Made for a fresh Debian 12 machine with the PostgreSQL server
# installed, run as root (as CI does); `make setup` installs the rest and is quick to repeat.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

# Python: PYTHON=... when given; else the active virtualenv ($VIRTUAL_ENV); else the
# project's own virtualenv .venv, created with the system python3 (`make venv`): Debian's
# python3 refuses `pip install` outside a virtualenv (PEP 668, externally managed).
SYSTEM_PYTHON ?= python3
VENV := .venv
ifneq ($(origin PYTHON),undefined)
  OWN_VENV :=
else ifneq ($(VIRTUAL_ENV),)
  PYTHON := $(VIRTUAL_ENV)/bin/python
  OWN_VENV :=
else
  PYTHON := $(CURDIR)/$(VENV)/bin/python
  OWN_VENV := 1
endif
# extension/build.py needs only the standard library: no virtualenv for `make build`.
BUILD_PYTHON := $(if $(OWN_VENV),$(SYSTEM_PYTHON),$(PYTHON))
PIP_INSTALL := $(PYTHON) -m pip install --quiet --disable-pip-version-check --root-user-action=ignore
STAMPS := .make
# PostgreSQL major version of the installed server (pg_config --version: "PostgreSQL 15.18 ...").
PG_MAJOR := $(shell pg_config --version 2>/dev/null | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
APT_PACKAGES = postgresql-$(PG_MAJOR)-cron postgresql-$(PG_MAJOR)-pgtap \
	libtap-parser-sourcehandler-pgtap-perl postgresql-$(PG_MAJOR)-plpgsql-check \
	pgbouncer faketime chromium systemd $(if $(OWN_VENV),python3-venv)

.PHONY: help setup apt-packages venv python-packages build install-extension \
	test test-sql test-py test-chaos lint demo bench bench-peers bench-packages bench-peer-packages clean

help:
	@echo "make demo     run the example flows against an embedded local PostgreSQL"
	@echo "make test     set up, then run every test (pgTAP and pytest)"
	@echo "make test-chaos  the slow fault-injection tests (crash recovery; pytest -m chaos)"
	@echo "make setup    install apt + Python packages (into .venv unless a virtualenv is active"
	@echo "              or PYTHON=... is given), build and install the extension files"
	@echo "make lint     ruff, mypy --strict, build check, sqlfluff (DDL), plpgsql_check (function bodies)"
	@echo "make build    generate the SQL scripts and the package's copies from extension/"
	@echo "              (extension/README.md); git-ignored, like .venv"
	@echo "make bench    benchmark on an embedded cluster (.pgflow-bench/) -> bench/results/"
	@echo "make bench-peers  add Procrastinate and DBOS (W1, W2) to bench/results/"
	@echo "make clean    remove caches and build leftovers"

setup: apt-packages python-packages install-extension

# PostgreSQL add-ons from Debian for the server's major version; apt is skipped when all are
# installed, and `apt-get update` is only run if a first install attempt fails.
apt-packages:
	@[ -n "$(PG_MAJOR)" ] || { echo "pg_config not found: install the PostgreSQL server first" >&2; exit 1; }
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "apt-get install$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -q $$missing || { apt-get update -q && apt-get install -y -q $$missing; }; \
	fi

# The project's virtualenv, when make uses it (PYTHON above); made again when it has no
# working pip (say it was made before python3-venv was installed). apt-packages first: on
# Debian, `python3 -m venv` needs python3-venv.
venv: apt-packages
ifneq ($(OWN_VENV),)
	@if ! $(PYTHON) -m pip --version >/dev/null 2>&1; then \
	  echo "$(SYSTEM_PYTHON) -m venv $(VENV)"; \
	  rm -rf $(VENV) && $(SYSTEM_PYTHON) -m venv $(VENV); \
	fi
endif

# `pip install -e .[dev]`, redone when pyproject.toml changes or when `import pgflow` does
# not resolve to this checkout. The editable install also generates the SQL (setup.py).
python-packages: venv
	@mkdir -p $(STAMPS)
	@if [ pyproject.toml -nt $(STAMPS)/pip.stamp ] || ! $(PYTHON) -c 'import sys, pgflow, pytest_postgresql; \
	    sys.exit(not pgflow.__file__.startswith("$(CURDIR)/"))' 2>/dev/null; then \
	  echo "pip install -e '.[dev]'"; \
	  $(PIP_INSTALL) -e '.[dev]' && touch $(STAMPS)/pip.stamp; \
	fi

build:
	$(BUILD_PYTHON) extension/build.py

install-extension: python-packages build
	$(PYTHON) tools/install_extension_files.py

# Runs both suites even if the first fails; fails if either did.
test: setup
	@rc=0; $(MAKE) test-sql || rc=1; $(MAKE) test-py || rc=1; exit $$rc

test-sql: install-extension
	tools/run_pgtap.sh

test-py: install-extension
	$(PYTHON) -m pytest

# Fault injection that needs a minute or more per test (workers SIGKILLed mid-task, their
# tasks requeued by pgflow.requeue_stalled_tasks()): marker `chaos`, left out of `make test`.
test-chaos: setup
	$(PYTHON) -m pytest -m chaos tests/e2e

lint: setup
	$(PYTHON) -m ruff check .
	$(PYTHON) -m mypy
	$(PYTHON) extension/build.py --check
	$(PYTHON) -m sqlfluff lint extension/sql/0*.sql extension/upgrades/*.sql
	tools/run_plpgsql_check.sh

# The stdlib-analysis flow (examples/stdlib_analysis.py) run by pgflow-worker processes
# against the embedded dev cluster (.pgflow/); see examples/demo.py.
demo: setup
	$(PYTHON) -m examples.demo

# Benchmarks (bench/, see bench/run.py): the embedded cluster under .pgflow-bench/ unless
# BENCH_ARGS="--dsn ..."; results in bench/results/ (results.json, results.md, chart.png).
bench: setup bench-packages
	$(PYTHON) -m bench.run $(BENCH_ARGS)

# Procrastinate and DBOS, installed into this environment for the benchmark only (the
# `bench-peers` extra), W1 and W2 each; merged into the existing bench/results/.
bench-peers: setup bench-peer-packages
	$(PYTHON) -m bench.run --only peers --merge $(BENCH_ARGS)

bench-packages: venv
	@mkdir -p $(STAMPS)
	@if [ pyproject.toml -nt $(STAMPS)/bench.stamp ] || ! $(PYTHON) -c 'import matplotlib' 2>/dev/null; then \
	  echo "pip install -e '.[dev,bench]'"; \
	  $(PIP_INSTALL) -e '.[dev,bench]' && touch $(STAMPS)/bench.stamp; \
	fi

bench-peer-packages: venv
	@mkdir -p $(STAMPS)
	@if [ pyproject.toml -nt $(STAMPS)/bench-peers.stamp ] || \
	    ! $(PYTHON) -c 'import matplotlib, procrastinate, dbos' 2>/dev/null; then \
	  echo "pip install -e '.[dev,bench-peers]'"; \
	  $(PIP_INSTALL) -e '.[dev,bench-peers]' && touch $(STAMPS)/bench-peers.stamp; \
	fi

clean:
	rm -rf $(STAMPS) build dist test-artifacts python_worker/*.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
