# wattlab: `make demo` and `make test` work on a fresh machine with only Rust and Python 3.11.
# Everything else (virtualenv, Python packages, the native module, the live testbed's binary and,
# as root, the Debian tools of the live mode) is installed here.

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
		"click>=8.1" "matplotlib>=3.8" "scipy>=1.11" "pytest>=8" "dask[distributed]>=2024.1"
	touch $@

$(BUILT): $(DEPS) $(RUST_SOURCES) $(shell find python -name '*.py')
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH \
		$(VENV)/bin/maturin develop --release --quiet
	cargo build --release --quiet -p wattlab-live
	touch $@

# Debian packages the test suite and the live testbed use: tcpdump (captures, and reading our
# pcaps), iproute2 (network namespaces, veth), iptables (NFQUEUE rules), ethtool (offloads off),
# chromium (headless: the screenshot test of `wattlab report`'s HTML page), tshark (the check that
# Wireshark's dissector decodes the SCTP tunnel's captures, CRC32c included).
# Installed only when root; otherwise the tests that need them skip and say why.
SYSTEM_TOOLS := tcpdump:tcpdump tshark:tshark ip:iproute2 iptables:iptables ethtool:ethtool chromium:chromium
system-deps:
	@missing=""; for pair in $(SYSTEM_TOOLS); do \
		tool=$${pair%%:*}; pkg=$${pair##*:}; \
		command -v $$tool >/dev/null 2>&1 || [ -x /usr/sbin/$$tool ] || [ -x /sbin/$$tool ] || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing$$missing (apt-get)"; \
			apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else \
			echo "note:$$missing not installed and not root: the live testbed and pcap-reading tests will be skipped"; \
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
