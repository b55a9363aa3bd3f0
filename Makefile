# Skald: every target installs what is missing first, so a fresh clone needs only `make play` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DB     ?=
PACK   ?=
SEED   ?=
PYTEST_ARGS ?=
CAMPAIGN ?=
HOST   ?= 127.0.0.1
PORT   ?= 8000
WORKERS ?= 1

.PHONY: play new serve test bench playtest soak replay lint docs clean install test-deps map-deps doctor-play

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

play: $(STAMP)
	@$(BIN)/skald play $(if $(DB),--db $(DB)) $(if $(PACK),--pack $(PACK)) $(if $(SEED),--seed $(SEED)) $(if $(CAMPAIGN),--campaign $(CAMPAIGN))

new: $(STAMP)
	@$(BIN)/skald new $(if $(DB),--db $(DB)) $(if $(PACK),--pack $(PACK)) $(if $(SEED),--seed $(SEED))

serve: $(STAMP) map-deps
	@echo "Skald: open http://$(HOST):$(PORT)/ in a browser to play (the API's docs: http://$(HOST):$(PORT)/docs)"
	@$(BIN)/skald serve $(if $(DB),--db $(DB)) --host $(HOST) --port $(PORT) --workers $(WORKERS) $(if $(RELOAD),--reload-packs)

# What some tests need from the machine, from its package manager only (no browser or database downloaded from
# elsewhere): Debian's chromium (the play page's tests) and postgresql (the PostgreSQL tests). Installed when missing
# and the machine lets us (root, or sudo without a password); otherwise those tests are skipped, and say so.
define system_package
	@command -v $(2) >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/$(2) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	  else echo "make: no $(1), and no way to install it here: $(3) will be SKIPPED"; exit 0; fi; \
	  if command -v apt-get >/dev/null 2>&1; then \
	    echo "make: installing Debian's $(1) for $(3)"; \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $(1) >/dev/null 2>&1 || \
	    { $$SUDO apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $(1) >/dev/null 2>&1; } || \
	    echo "make: $(1) could not be installed: $(3) will be SKIPPED"; \
	  else echo "make: no apt-get to install $(1): $(3) will be SKIPPED"; fi; }
endef

test-deps:
	$(call system_package,chromium,chromium,the browser tests)
	$(call system_package,postgresql,initdb,the PostgreSQL tests)
	$(call system_package,graphviz,dot,the pack map)
	$(call system_package,faketime,faketime,the test that plays stored data 400 days ahead)

# Graphviz's dot draws the map the play page shows (skald pack map, GET /campaigns/{id}/map.svg); without it the page
# lists the places as text.
map-deps:
	$(call system_package,graphviz,dot,the pack map)

# PYTEST_ARGS: more pytest options (.ci/run adds --durations=15, so a creeping suite shows).
# The suite runs on every core (pytest-xdist): TEST_WORKERS=auto is a worker a core, TEST_WORKERS=0 (or
# PYTEST_ARGS="-n 0" or "-p no:xdist") runs it in one process. Each test module runs on one worker (--dist loadfile),
# so a fixture built once for a module is built once; the modules that have one are handed out first
# (tests/conftest.py orders them, --no-loadscope-reorder keeps that order). `pytest tests/test_x.py` runs in one process.
TEST_WORKERS ?= auto
XDIST = $(if $(findstring no:xdist,$(PYTEST_ARGS)),,-n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder)

test: $(STAMP) test-deps
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

replay: $(STAMP)
	$(BIN)/skald replay data/recordings

# A model acceptance run: 20 turns against the Ollama the SKALD_* settings name, on a throwaway save file; per role the
# calls, fallbacks, habits, latency, tokens and cache share, and whether the role works (docs/llm.md).
doctor-play: $(STAMP)
	@$(BIN)/skald doctor --play

bench: $(STAMP)
	$(BIN)/python -m bench

# The large playtest of each shipped pack (docs/era-packs.md#playtesting-a-pack): 200 campaigns of 100 lines, 2
# workers, the text report; `make test` runs the small one (tests/test_playtest.py). Exits 1 on a hard defect.
PLAYTEST_PACKS ?= cinder_reach saltmarsh_reach
playtest: $(STAMP)
	@set -e; for p in $(PLAYTEST_PACKS); do $(BIN)/skald playtest $$p --campaigns 200 --turns 100 --workers 2; done

soak: $(STAMP)
	$(BIN)/python -m bench.soak $(if $(SOAK_SECONDS),--seconds $(SOAK_SECONDS))

docs: $(STAMP)
	$(BIN)/python docs/diagram.py

lint: $(STAMP)
	$(BIN)/ruff check backend tests bench

clean:
	rm -rf $(VENV) build *.egg-info backend/*.egg-info
