# Two commands on a fresh machine with python3 and make: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SAMPLE := device/klik/samples/sample-game.klik

CHROMIUM ?= /usr/bin/chromium

.PHONY: demo test check lint typecheck unit bench install bundle frames words clean

# A small tournament on this laptop: the hub at http://127.0.0.1:8000 (the judge's console),
# four virtual tables at http://127.0.0.1:8100/hall (unpaired: the console's Tables tab pairs
# each by the six digits on its seat A) and 16 demo players; the
# projector at http://127.0.0.1:8000/projector (Ctrl-C ends it all). Everything is kept in
# .klik-demo/ (delete it to start afresh). Other ports: make demo HUB_PORT=8010 SIM_PORT=8110.
HUB_PORT ?= 8000
SIM_PORT ?= 8100

demo: $(STAMP)
	$(BIN)/python -m klik_hub.demo --dir .klik-demo --hub-port $(HUB_PORT) --sim-port $(SIM_PORT)

test: lint typecheck unit

# For every edit, in well under a minute: lint, types and the fast tests, none of those marked
# slow (real processes, the real clock), browser (Chromium), postgres, solo or quiet
# (tests/conftest.py tells which are which). `make test` runs every test.
check: $(STAMP) lint typecheck
	$(BIN)/pytest -q -n 2 -m "not slow and not browser and not postgres and not solo and not quiet"

lint: $(STAMP)
	$(BIN)/ruff check device hub tests hardware firmware
	$(BIN)/ruff format --check device hub tests hardware firmware
	$(BIN)/python hardware/generate.py --check
	$(BIN)/lint-imports --no-cache  # the layers' contracts (pyproject.toml)

typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/mypy --strict hardware/generate.py firmware/bundle.py

# Every test, in three runs: the solo ones (they time real events closely: a browser's or a
# daemon's double taps) one at a time at the normal priority, and meanwhile all the others
# but the quiet ones on JOBS workers (pytest-xdist) at the lowest, so that their load never
# stretches what the solo ones time; then the quiet ones (the simulated radio, whose airtime
# is the real clock's) one at a time on a quiet machine. Most tests wait on processes,
# sockets and the clock: twice the cores keeps both busy. Any run failing fails `make test`.
JOBS ?= $(shell echo $$(( $$(nproc) * 2 )))
unit: $(STAMP) $(CHROMIUM)
	@$(BIN)/pytest -m solo >$(VENV)/solo.log 2>&1 & solo=$$!; \
	nice -n 19 $(BIN)/pytest -n $(JOBS) --dist worksteal -m "not solo and not quiet"; others=$$?; \
	wait $$solo; alone=$$?; echo "--- the solo tests, run one at a time meanwhile:"; \
	cat $(VENV)/solo.log; echo "--- the quiet tests, last:"; \
	$(BIN)/pytest -m quiet; quiet=$$?; exit $$(( others || alone || quiet ))

bench: $(STAMP)
	$(BIN)/python -m tests.bench.bench_core
	$(BIN)/python -m tests.bench.bench_panels
	$(BIN)/python -m tests.bench.bench_table
	$(BIN)/python -m tests.bench.bench_recovery
	$(BIN)/python -m tests.bench.bench_crash_states
	$(BIN)/python -m tests.bench.bench_hub
	$(BIN)/python -m tests.bench.bench_phones
	$(BIN)/python -m tests.bench.bench_hall
	$(BIN)/python -m tests.bench.bench_delivery
	$(BIN)/python -m tests.bench.bench_serial
	$(BIN)/python -m tests.bench.bench_draw
	$(BIN)/python -m tests.bench.bench_standings
	$(BIN)/python -m tests.bench.bench_console

# On the Pi, from a checkout: sudo make install (the package in /opt/klik/venv, the config.txt
# fragment, the user and the unit). DESTDIR=DIR only writes the files under DIR.
install:
	firmware/install.sh $(if $(DESTDIR),--root $(DESTDIR))

# Everything a table installs, for a venue with no internet: dist/bundle/ (the klik wheel,
# the table's dependencies as wheels for 64-bit Raspberry Pi OS and for this machine, the
# installer, the unit, the default config, SHA256SUMS); prints the bundle's hash. Needs the
# package registry. KLIK_BUNDLE_PLATFORMS="aarch64 here" chooses the targets (see the script).
bundle: $(STAMP)
	$(BIN)/python firmware/bundle.py dist/bundle

# The README's screens: every seat's screen at every change of the sample game.
frames: $(STAMP)
	rm -rf docs/frames
	$(BIN)/klik replay $(SAMPLE) --frames docs/frames >/dev/null

# After marking or changing a message (klik.words): extract every message from the code, the
# templates and the scripts, merge them into the Polish catalogue, and compile what gettext
# reads. Then translate what is new or fuzzy in the .po and run it again.
LOCALE := device/klik/locale
words: $(STAMP)
	$(BIN)/pybabel extract -F pyproject.toml --no-location --sort-output \
	  -o $(VENV)/klik.pot device hub
	$(BIN)/pybabel update -i $(VENV)/klik.pot -d $(LOCALE) -D klik -l pl \
	  --ignore-obsolete --no-fuzzy-matching --width 100
	$(BIN)/pybabel compile -d $(LOCALE) -D klik -l pl --statistics

# The page tests drive Debian's Chromium (Playwright never downloads a browser here).
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "make: the page tests need Chromium; run: sudo apt-get install chromium" >&2; \
	  exit 2; \
	fi

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
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis .klik-demo dist
