PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# the C fast lane: _rowscan.c and the JSON writer it includes
LANE_SOURCES := sglang_logscope/parse/_rowscan.c sglang_logscope/parse/_rowjson.h

.PHONY: demo test quick lint typecheck pytest fuzz pythons lowest environments dist install clean chromium

# Every pytest run is spread over the machine's cores by pytest-xdist (tests are independent:
# each has its own tmp_path, scan-index directory and loopback ports); worksteal: an idle worker
# takes tests queued on a busy one, so a few long tests do not hold the end. XDIST=-n0: one process.
XDIST ?= -n auto --dist worksteal

# Bytecode caches are written (in the ignored __pycache__ folders): each xdist worker reads the
# assertion-rewritten test modules and every CLI a test starts reads the package compiled, where
# an environment with PYTHONDONTWRITEBYTECODE set made each process compile them again
# (collecting the suite: 10.4 s of CPU without the caches, 4.7 s with them).
unexport PYTHONDONTWRITEBYTECODE

# uv (a dev dependency, taken first by pip) installs the rest: the same packages as pip, in 16 s
# where pip took 59 s (a fresh venv, warm caches on both sides, 2 cores), and from the one cache
# the matrix environments use (pip's own downloads would be a second copy).
$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q uv

# the C fast lane (sglang_logscope/parse/_rowscan.c) is built by the editable install
$(STAMP): $(BIN)/python pyproject.toml $(LANE_SOURCES)
	rm -f sglang_logscope/parse/_rowscan.*.so  # a module of an older build would shadow the new one
	$(BIN)/uv pip install -q --python $(BIN)/python -e '.[dev,wheels]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	@# Work on a copy: the demo log's mtime is set to when the stale run last wrote (as on the server).
	@mkdir -p $(VENV)/demo && cp fixtures/demo/sglang-serve.log $(VENV)/demo/sglang-serve.log
	@touch -d '2026-05-09 09:18:32' $(VENV)/demo/sglang-serve.log
	$(BIN)/logscope check --expect-args fixtures/demo/command.txt --launched-at '2026-05-09 09:31:05' $(VENV)/demo/sglang-serve.log; \
	  rc=$$?; test $$rc -le 1 || exit $$rc

lint: $(STAMP)
	$(BIN)/ruff check sglang_logscope tests benchmarks scripts
	$(BIN)/ruff format --check sglang_logscope tests benchmarks scripts

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP) chromium
	$(BIN)/python scripts/check_lane.py
	$(BIN)/python -m pytest $(XDIST)

# Headless Chromium renders the HTML report in tests/test_html_report.py. Best effort: where it
# cannot be installed (no root, no network) those tests skip; this never fails the build.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium for the HTML report tests"; \
	    { timeout 300 apt-get install -y -q chromium || { timeout 120 apt-get update -q && \
	      timeout 300 apt-get install -y -q chromium; }; } >/dev/null 2>&1 || \
	      echo "chromium: not installed (report tests will skip)"; \
	  else echo "chromium: not installed (report tests will skip)"; fi; \
	} || true

# Seeded, fixed-count fuzzing of hostile values through every subcommand (issue 20), the
# network, file and launch attacks of issue 29 (each run under a deadline), and of
# the C fast lane under AddressSanitizer/UBSan (issue 18).
fuzz: $(STAMP)
	$(BIN)/python -m benchmarks.fuzz.values --runs 25 --seed 20
	$(BIN)/python -m benchmarks.fuzz.attacks --runs 2 --seed 29
	$(BIN)/python -m benchmarks.fuzz.rowscan_asan --runs 200000 --seed 2

# The suite on the lowest and highest supported Pythons, and once with the lowest declared
# dependencies (the floors in pyproject.toml are the versions this run passes with). uv builds
# the environments; it takes an interpreter from pyenv when there is one, else downloads its own.
PYTHONS := 3.10 3.13
# The suite is derandomized: the matrix suites would try the main suite's examples again on
# another interpreter, so each property tries a quarter of them there (tests/examples.py).
MATRIX_SHARE ?= 0.25
LOWEST_PY := 3.10
UV := $(BIN)/uv
find_py = $(or $(lastword $(sort $(wildcard $(HOME)/.pyenv/versions/$(1).*/bin/python))),$(1))

.venv-%/.installed: pyproject.toml $(LANE_SOURCES) $(STAMP)
	rm -rf .venv-$*
	$(UV) venv -q --python $(call find_py,$*) .venv-$*
	$(UV) pip install -q --python .venv-$*/bin/python -e '.[dev]'
	touch $@

.venv-lowest/.installed: pyproject.toml $(LANE_SOURCES) $(STAMP)
	rm -rf .venv-lowest
	$(UV) venv -q --python $(call find_py,$(LOWEST_PY)) .venv-lowest
	$(UV) pip install -q --python .venv-lowest/bin/python --resolution lowest-direct -e '.[dev]'
	touch $@

# Each suite starts by checking that its Python loads and reads with the one in-tree C lane
# module (scripts/check_lane.py): whichever environment's editable install built it last,
# every Python of the matrix must take it (issue 29), and a lane silently missing would
# leave the suite testing the pure-Python path only.
pythons: $(foreach v,$(PYTHONS),.venv-$(v)/.installed) chromium
	@set -e; for v in $(PYTHONS); do echo "pytest on Python $$v"; .venv-$$v/bin/python scripts/check_lane.py; \
	  LOGSCOPE_EXAMPLE_SHARE=$(MATRIX_SHARE) .venv-$$v/bin/python -m pytest $(XDIST) -p no:cacheprovider; done

lowest: .venv-lowest/.installed chromium
	@echo "pytest with the lowest declared dependencies (Python $(LOWEST_PY))"
	.venv-lowest/bin/python scripts/check_lane.py
	LOGSCOPE_EXAMPLE_SHARE=$(MATRIX_SHARE) .venv-lowest/bin/python -m pytest $(XDIST) -p no:cacheprovider

# Each environment's editable install builds the C lane in place (one abi3 module for all of
# them), so they are built one after another, before any suite has that module loaded. The
# module uses no '#' argument format (the one construct whose meaning changed with 3.13's
# headers), so whichever Python built it last, every Python from 3.10 on loads and runs it;
# scripts/check_lane.py checks that in each environment before its suite.
environments: $(STAMP)
	@$(MAKE) --no-print-directory -j1 $(foreach v,$(PYTHONS),.venv-$(v)/.installed) .venv-lowest/.installed

# The sdist and wheels as a user gets them: an isolated build (build-system.requires) of the
# sdist and of the C lane's abi3 wheel (one for every CPython >= 3.10), auditwheel's manylinux
# tag for that wheel, the pure-Python fallback wheel (scripts/pure_wheel.py, py3-none-any: any
# other platform, aarch64 included), twine's metadata check and auditwheel show of each, and
# scripts/check_dist.py (sdist complete, wheels clean, tags as promised).
dist: $(STAMP)
	rm -rf dist *.egg-info  # a stale SOURCES.txt would hide what MANIFEST.in leaves out
	$(BIN)/python -m build -q --outdir dist/build . >/dev/null
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/auditwheel repair -w dist dist/build/*.whl
	$(BIN)/python scripts/pure_wheel.py dist/build/*.whl dist
	mv dist/build/*.tar.gz dist/ && rm -rf dist/build
	$(BIN)/twine check --strict dist/*
	@set -e; for w in dist/*.whl; do $(BIN)/auditwheel show "$$w" | tr -s '\n' ' '; echo; done
	$(BIN)/python scripts/check_dist.py dist

quick: lint typecheck pytest fuzz

# The whole matrix. The suites run one after another, each on every core (XDIST); the
# environments are built first (see above). The stages that use one core at a time run two at
# once (-j2, each one's output kept together by -O): ruff and mypy beside the environments'
# build (mostly downloads and installs; neither loads the C lane's module, which each
# environment's install rebuilds in place), the fuzzers beside the isolated build of dist.
test:
	@$(MAKE) --no-print-directory -j2 -O lint typecheck environments
	@$(MAKE) --no-print-directory pytest
	@$(MAKE) --no-print-directory -j2 -O fuzz dist
	@$(MAKE) --no-print-directory pythons lowest

clean:
	rm -rf $(VENV) .venv-* build dist *.egg-info sglang_logscope/parse/_rowscan.*.so
