# The two commands of the README. Each sets itself up on a fresh machine (Python 3.10+ with venv).
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
OFFLINE := HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 LITELLM_OFFLINE_MODE=true

.PHONY: run test lint bench mutate

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch's CPU build first (a lone `torch` requirement would pull the CUDA build)
	$(BIN)/pip install -q torch==2.13.0
	# the rest through uv: the same resolution as pip (checked: identical `pip freeze`) in half the time, and
	# torch's CPU build above already satisfies every requirement on torch, so uv keeps it
	$(BIN)/pip install -q uv
	# (--system-certs: the platform's CA store, as pip uses; pip itself is the fallback if uv cannot install).
	# --compile-bytecode: uv writes no .pyc by default (pip does), and where PYTHONDONTWRITEBYTECODE is set (as on
	# this project's machines) Python never caches one either, so every process compiled litellm, transformers and
	# the rest from source again (measured: `import litellm` 10.6 s -> 4.2 s)
	$(BIN)/uv pip install -q --system-certs --compile-bytecode --python $(BIN)/python -e ".[all,dev]" || $(BIN)/pip install -q -e ".[all,dev]"
	# the editable build leaves an egg-info here that would shadow the installed metadata
	rm -rf finchain_tasks.egg-info
	touch $(STAMP)

run: $(STAMP)
	# the main job: the local model (no key, no network) on one problem per domain, with a report
	$(OFFLINE) $(BIN)/finchain eval

# two workers (the CI machine has two cores), one file per worker so module fixtures are built once; the 15
# slowest tests are printed. Three workers were tried (issue 39): 528 s instead of 589 s on a quiet machine, but
# in one of three fresh-clone runs a worker died in test_vllm_server's SIGTERM-to-itself test ("overflowed
# sigaltstack", once another file's native libraries shared its worker) and xdist then hung, so two it stays.
TEST_WORKERS ?= 2
test: $(STAMP)
	$(BIN)/ruff check .
	# this checkout's own bytecode, once (the suite starts ~100 Python processes; see --compile-bytecode above)
	$(BIN)/python -m compileall -q finchain_tasks scorers tests > /dev/null
	HYPOTHESIS_PROFILE=ci $(OFFLINE) $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=15

bench: $(STAMP)
	$(OFFLINE) $(BIN)/python benchmarks/generate_bench.py

# mutation testing (mutmut) of the rules the suite pins: scorers (gate, params, chaineval, kernel, numbers),
# the verifier, the response cache and lm-eval's scoring, each group with its own fast tests; prints the kill
# rate per module, then the literal pass's (tests/mutation/literals.py: regex alternatives, synonym sets, escape
# calls, thresholds). Slow (tens of minutes on two cores), not part of CI: `make mutate GROUPS="gate cache"` for some.
GROUPS ?=
mutate: $(STAMP)
	$(OFFLINE) $(BIN)/python tests/mutation/mutate.py $(GROUPS)
