# wattlab: `make demo` and `make test` work on a fresh machine with only Rust and Python 3.11.
# Everything else (virtualenv, Python packages, the native module, tcpdump) is installed here.

PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
DEPS   := $(VENV)/.deps-installed
BUILT  := $(VENV)/.core-built
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml profiles/*.toml

.PHONY: setup demo test test-rust test-python bench system-deps clean help

help:
	@echo "make demo   set up everything, then run the default scenario and print its table"
	@echo "make test   set up everything, then run cargo test and pytest"
	@echo "make bench  run the reference benchmarks (see docs/benchmarks.md)"

setup: system-deps $(BUILT)

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found (wattlab needs Python 3.11+; set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(DEPS): pyproject.toml | $(PY)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet "maturin>=1.5,<2" "numpy>=1.26" "pandas>=2.1" "pyarrow>=14" "rich>=13" \
		"typer>=0.12" "matplotlib>=3.8" "scipy>=1.11" "pytest>=8"
	touch $@

$(BUILT): $(DEPS) $(RUST_SOURCES) $(shell find python -name '*.py')
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH \
		$(VENV)/bin/maturin develop --release --quiet
	touch $@

# Debian packages the test suite uses (tcpdump reads our pcaps). Installed only when root;
# otherwise the tests that need them skip and say why.
system-deps:
	@if ! command -v tcpdump >/dev/null 2>&1; then \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing tcpdump (apt-get)"; \
			apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tcpdump >/dev/null; \
		else \
			echo "note: tcpdump not installed and not root: pcap-reading tests will be skipped"; \
		fi; \
	fi

demo: setup
	$(VENV)/bin/wattlab run scenarios/demo.toml

test: setup test-rust test-python

test-rust:
	cargo test --release --workspace --exclude wattlab-py

test-python: $(BUILT)
	$(PY) -m pytest tests/python

bench: setup
	$(VENV)/bin/wattlab bench

clean:
	rm -rf $(VENV) target
