# Skald: every target installs what is missing first, so a fresh clone needs only `make play` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DB     ?= data/saves/skald.db
PACK   ?=
SEED   ?=
CAMPAIGN ?=
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: play new serve test bench soak replay lint docs clean install

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

play: $(STAMP)
	@$(BIN)/skald play --db $(DB) $(if $(PACK),--pack $(PACK)) $(if $(SEED),--seed $(SEED)) $(if $(CAMPAIGN),--campaign $(CAMPAIGN))

new: $(STAMP)
	@$(BIN)/skald new --db $(DB) $(if $(PACK),--pack $(PACK)) $(if $(SEED),--seed $(SEED))

serve: $(STAMP)
	@$(BIN)/skald serve --db $(DB) --host $(HOST) --port $(PORT) $(if $(RELOAD),--reload-packs)

test: $(STAMP)
	$(BIN)/python -m pytest

replay: $(STAMP)
	$(BIN)/skald replay data/recordings

bench: $(STAMP)
	$(BIN)/python -m bench

soak: $(STAMP)
	$(BIN)/python -m bench.soak $(if $(SOAK_SECONDS),--seconds $(SOAK_SECONDS))

docs: $(STAMP)
	$(BIN)/python docs/diagram.py

lint: $(STAMP)
	$(BIN)/ruff check backend tests bench

clean:
	rm -rf $(VENV) build *.egg-info backend/*.egg-info
