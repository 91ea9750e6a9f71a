# Two commands on a fresh machine with python3 and make: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SAMPLE := device/klik/samples/sample-game.klik

.PHONY: demo test lint typecheck unit bench clean

demo: $(STAMP)
	$(BIN)/klik replay $(SAMPLE)

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check device tests
	$(BIN)/ruff format --check device tests

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python tests/bench/bench_core.py

# Debian's python3 has no venv module until python3-venv is installed: do it when we may.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import ensurepip' 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null; \
	  else \
	    echo "make: $(PYTHON) cannot make a virtual environment; run: sudo apt-get install python3-venv" >&2; \
	    exit 2; \
	  fi; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
