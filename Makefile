# Two commands on a fresh machine: `make run` and `make test`. Both create .venv from the
# pinned requirements.lock when it is missing (or older than the lock file).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
CORES  ?= all

.PHONY: run smoke test lint bench bench-compare lock clean-results

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

run: $(STAMP)  ## the paper's experiments (config/config.yaml)
	$(BIN)/snakemake --cores $(CORES)

smoke: $(STAMP)  ## the CI-sized pipeline (config/smoke.yaml)
	$(BIN)/schedbench check-config config/smoke.yaml
	$(BIN)/snakemake --cores $(CORES) --configfile config/smoke.yaml

test: $(STAMP)  ## the whole test suite, end-to-end Snakemake run included
	$(BIN)/python -m pytest

lint: $(STAMP)
	PATH=$(BIN):$$PATH $(BIN)/snakemake --lint

bench: $(STAMP)  ## performance figures quoted in benchmarks/README.md
	$(BIN)/python benchmarks/bench_scheduling.py
	$(BIN)/python benchmarks/bench_opt_flow.py
	$(BIN)/python benchmarks/bench_loss.py

bench-compare: $(STAMP)  ## schedbench vs Ciw vs SimPy on the same JSQ model (benchmarks/README.md)
	$(BIN)/pip install --quiet -r requirements-bench.txt
	$(BIN)/python benchmarks/bench_bipartite.py

lock:  ## re-resolve requirements.in into requirements.lock (needs network)
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install --quiet -r requirements.in
	{ echo "# Exact versions the test suite and the pipeline were run with (Python 3.11, Linux x86_64)."; \
	  echo "# Regenerate with \`make lock\` after editing requirements.in."; \
	  .venv-lock/bin/pip freeze | grep -v -i '^schedbench'; } > requirements.lock
	rm -rf .venv-lock

clean-results:
	rm -rf results .snakemake/incomplete
