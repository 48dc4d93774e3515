# The README's two commands: `make demo` and `make test`. Both start from a fresh clone with only
# Python 3.11+ installed; they create .venv and install what they need.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Debian packages the tests use: a real MQTT broker, the AVR toolchain and simavr for the firmware,
# and a real headless browser for the web pages (Selenium drives /usr/bin/chromium through
# /usr/bin/chromedriver; nothing is downloaded at run time).
DEB_PACKAGES := mosquitto mosquitto-clients simavr libsimavr-dev libelf-dev gcc-avr binutils-avr avr-libc socat make gcc chromium chromium-driver

.PHONY: demo test lint typecheck pytest system-deps venv train-deps model bench clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The optional `train` extra (PyTorch, CPU build) that `make model` and the training test need.
TRAIN_STAMP := $(VENV)/.train-installed

train-deps: $(TRAIN_STAMP)

$(TRAIN_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	touch $(TRAIN_STAMP)

# Retrain both networks from nothing (renders their tables, fits the finder, harvests its
# candidates' crops, fits the tile reader, exports vision/models/tilefinder.onnx, tilenet.onnx
# and their manifest): about 27 minutes on two cores with native bfloat16 (AVX-512 BF16 or AMX),
# 63 on an AVX2-only AMD EPYC, which fits in float32. `python -m vision.train --finder
# vision/models` keeps the shipped finder and fits the reader alone (about 16 minutes, bfloat16).
model: $(TRAIN_STAMP)
	$(BIN)/python -m vision.train --out vision/models

system-deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "missing Debian packages; run:"; echo "  sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi

demo: $(STAMP)
	$(BIN)/domino-referee demo

lint: $(STAMP)
	$(BIN)/ruff check referee vision firmware_bridge tests benchmarks
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy referee firmware_bridge vision benchmarks

# Two workers (pytest-xdist): many tests wait on a broker, a browser or the simulated board in
# real time, so both cores stay busy; the suite takes about half as long as on one worker.
PYTEST_WORKERS ?= 2

pytest: $(STAMP) system-deps
	$(BIN)/pytest -q -n $(PYTEST_WORKERS)

test: lint typecheck pytest

bench: $(STAMP) system-deps
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
