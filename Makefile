# .venv serves the app; `make test` adds the test tools to it. A second venv holds an older torch that the
# engine and course tests also run on, so that the supported range is proven, not assumed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch 2.11.0, the CUDA build the GPU boxes run (an H200's, docs/GPU.md): without a GPU it runs the CPU path, and
# its bugs are the users' (a compile in a thread that has ended crashed every warmed engine on it, and only its CUDA
# build has the fake device guard that crashed). `make test-older-torch` runs every lesson's claims on it, measured on
# the users' path (a fresh engine per lesson, each taken warmed up from the spare the one before it started), and the
# explorer's warm-up: 717 CPU-s from a cold cache, a third of `make test`'s. `make test` runs a sample of seven
# lessons, one per path a torch release has broken or could (fusion, a library call with its epilogue, a graph break,
# recompiles and the sweep, a training step, source lines, a split library call), in fresh warmed engines one after
# another as the whole course runs them, so a crash of the warmed path or a torch-version change on those paths
# fails CI; the warm-up test, a lesson's clean stderr and a model's training step beside them (nanoGPT's (logits,
# None): its loss once broke the graph on 2.11 alone) (docs/TORCH_VERSIONS.md).
OLDER_TORCH := 2.11.0
OLDER_VENV := .venv-torch211
OLDER_BIN := $(OLDER_VENV)/bin
OLDER_TESTS := tests/engine/test_course.py tests/engine/test_warmup.py::test_the_explorer_engine_warms_the_compiler_and_a_run_still_measures_alone \
	tests/engine/test_modules.py::test_a_training_step_without_a_loss_says_what_it_differentiates
OLDER_COURSE := -k "not test_kernels_a_lesson_names_run_on_cpu"
OLDER_SAMPLE := -k "warms_the_compiler or writes_nothing_on_stderr or says_what_it_differentiates or \
	(test_claims_hold_on_cpu and (02_add_relu or \
	14_matmul_bias_relu or 15_graph_break or 17_dynamic_shapes or 21_add_relu_backwards or 24_which_line or \
	30_inside_a_library_call))"
# Python keeps its bytecode, whatever the machine sets (PYTHONDONTWRITEBYTECODE=1 here): without it every test
# worker, and every CLI and engine process the suite starts, compiled kernel_tui again and pytest rewrote every test
# module again (a worker's collection took 7.9 CPU-s, 4.7 with the cache; docs/testing.md).
unexport PYTHONDONTWRITEBYTECODE
# One Inductor cache for the test suite and the benchmarks, so each graph compiles once per checkout (its keys
# include torch's version, so the two torches share it safely).
export TORCHINDUCTOR_CACHE_DIR ?= $(CURDIR)/.cache/inductor
# What make test runs beside its suite: nice 19 gives it about 1.5 % of a core the suite wants, and the rest of an
# idle one.
BESIDE := nice -n 19

# make run-cpu: torch's CPU build instead of PyPI's default (the CUDA build on Linux, about 5.5 GB): about 1.1 GB
# installed (torch 754 MB of it, a 200 MB download),
# everything but the CUDA preview. Its own venv, so that make run and make test keep the full torch.
CPU_VENV := .venv-cpu
TORCH_CPU ?= torch==2.13.0+cpu
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: run run-cpu test test-suite test-older-torch-beside lint-beside test-fast test-older-torch test-older-torch-sample lint \
	docs bench clean \
	gpu-check

# The app and what it needs at run time; no test tools.
$(BIN)/kernel-tui: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# The test, lint and type-check tools, and the torch the suite pins.
$(BIN)/pytest: $(BIN)/kernel-tui
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

$(OLDER_BIN)/pytest: pyproject.toml
	$(PYTHON) -m venv $(OLDER_VENV)
	$(OLDER_BIN)/python -m pip install --quiet --upgrade pip
	$(OLDER_BIN)/python -m pip install --quiet 'torch==$(OLDER_TORCH)' -e '.[test]'
	touch $@

run: $(BIN)/kernel-tui
	$(BIN)/kernel-tui

$(CPU_VENV)/bin/kernel-tui: pyproject.toml
	$(PYTHON) -m venv $(CPU_VENV)
	$(CPU_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CPU_VENV)/bin/python -m pip install --quiet --extra-index-url $(TORCH_CPU_INDEX) '$(TORCH_CPU)'
	$(CPU_VENV)/bin/python -m pip install --quiet -e .
	touch $@

run-cpu: $(CPU_VENV)/bin/kernel-tui
	$(CPU_VENV)/bin/kernel-tui

lint: $(BIN)/pytest
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(MAKE) --no-print-directory docs

# The documentation site, warnings as errors: a broken link, a missing page or a page left out of the nav fails.
docs: $(BIN)/pytest
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

test:
	# Three lines at once: the suite on the pinned torch, the lessons on the older torch, and the lint. The two
	# beside the suite run at the lowest priority: the older lessons start when their venv is ready and take the
	# core that pip's install of the CUDA torch leaves idle, the lint takes the time the suite's workers wait on
	# engines; neither takes CPU the suite would use (docs/testing.md).
	$(MAKE) --no-print-directory -j3 --output-sync=target test-suite test-older-torch-beside lint-beside

test-suite: $(BIN)/pytest
	# Four workers on two cores: many tests wait on engine processes (start-up, hangs, timeouts) and the workers
	# beyond two fill that idle time. Before the suite's OpenMP threads waited passively (tests/conftest.py), the
	# idle time was filled by threads spinning, and a fourth worker gained nothing (docs/testing.md).
	$(BIN)/pytest -q -n 4 --dist loadgroup --durations=15

# The venv first at full priority, then the tests at the lowest.
test-older-torch-beside: $(OLDER_BIN)/pytest
	$(BESIDE) $(MAKE) --no-print-directory test-older-torch-sample

lint-beside: $(BIN)/pytest
	$(BESIDE) $(MAKE) --no-print-directory lint

# The tier a widget or wording change needs: no engine start, no compile, no long soak (tests marked engine, or
# using an engine fixture, and those marked long are left out; conftest fails any other that starts an engine).
test-fast: $(BIN)/pytest
	# Four workers on two cores: a Pilot test spends much of its time waiting for the app's next frame, and the
	# other workers fill it (2 m 35 s against 3 m 39 s on two, the same CPU; docs/testing.md).
	KERNEL_TUI_TEST_TIER=fast $(BIN)/pytest -q -n 4 -m "not engine and not long" -p no:cacheprovider --durations=10

# Every lesson on the older torch: before a release, and after a change to how the engine measures.
test-older-torch: $(OLDER_BIN)/pytest
	$(OLDER_BIN)/pytest -q -n 3 --dist loadgroup -p no:cacheprovider $(OLDER_TESTS) $(OLDER_COURSE)

test-older-torch-sample: $(OLDER_BIN)/pytest
	$(OLDER_BIN)/pytest -q -n 3 --dist loadgroup -p no:cacheprovider $(OLDER_TESTS) $(OLDER_SAMPLE)

bench: $(BIN)/kernel-tui
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) $(OLDER_VENV) $(CPU_VENV) .cache build *.egg-info

# On a machine with a CUDA GPU, from a checkout, with the torch already there (no venv, no network):
# the course on the GPU against the CUDA preview, one table; OUT chooses where the table and traces go.
gpu-check:
	PYTHONPATH=$(CURDIR) $(PYTHON) -m tools.gpu_check --out $(or $(OUT),.cache/gpu-check)
