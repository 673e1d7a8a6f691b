PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest install clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/logscope check --expect-args fixtures/demo/command.txt --launched-at '2026-05-09 09:31:05' fixtures/demo/sglang-serve.log || test $$? -eq 1

lint: $(STAMP)
	$(BIN)/ruff check sglang_logscope tests benchmarks scripts
	$(BIN)/ruff format --check sglang_logscope tests benchmarks scripts

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest

test: lint typecheck pytest

clean:
	rm -rf $(VENV) build *.egg-info
