# One virtual environment in .venv serves the app, the tests and the benchmarks.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One Inductor cache for the test suite and the benchmarks, so each graph compiles once per checkout.
export TORCHINDUCTOR_CACHE_DIR ?= $(CURDIR)/.cache/inductor

.PHONY: run test lint bench clean gpu-check

$(BIN)/kernel-tui: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

run: $(BIN)/kernel-tui
	$(BIN)/kernel-tui

lint: $(BIN)/kernel-tui
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint
	# Three workers on two cores: many tests wait on engine processes (start-up, hangs, timeouts) and a third
	# worker fills that idle time.
	$(BIN)/pytest -q -n 3 --durations=15

bench: $(BIN)/kernel-tui
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .cache build *.egg-info

# On a machine with a CUDA GPU, from a checkout, with the torch already there (no venv, no network):
# the course on the GPU against the CUDA preview, one table; OUT chooses where the table and traces go.
gpu-check:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m kernel_tui.gpu_check --out $(or $(OUT),.cache/gpu-check)
