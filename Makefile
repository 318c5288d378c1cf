# Two commands on a fresh machine: `make run` and `make test`. Both create .venv from the
# pinned requirements.lock when it is missing (or older than the lock file).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
CORES  ?= all
# Debian packages: the PDF (latexmk + pdflatex) and the browser the report test opens
LATEX_DEBS   := latexmk texlive-latex-recommended texlive-fonts-recommended texlive-latex-extra lmodern
BROWSER_DEBS := chromium
# pdftotext: the test that reads the PDF's text (no reference to a file the reader lacks)
PDF_TEXT_DEBS := poppler-utils
# a real single-node SLURM for the cluster-profile test (tests/e2e/test_slurm.py)
SLURM_DEBS   := slurmctld slurmd munge slurm-client

.PHONY: venv run smoke test test-fast status report lint bench bench-compare mutants lock clean-results latex-debs test-debs

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

# As root with apt-get: installs the missing ones (one line says so); elsewhere: says what to install.
latex-debs:
	@tools/ensure-debian-packages "the paper's PDF" $(LATEX_DEBS)

test-debs:
	@tools/ensure-debian-packages "the tests (the PDF, the report in a headless browser, a real SLURM)" $(LATEX_DEBS) $(PDF_TEXT_DEBS) $(BROWSER_DEBS) $(SLURM_DEBS)

venv: $(STAMP)  ## the Python environment alone: .venv from requirements.lock (the other targets make it too)

# `make run CONFIG=config/large.yaml`: one config file in place of config/config.yaml. Snakemake
# reads a --configfile itself, before any of the workflow's code runs (a FIFO would block it
# forever, a folder end in a traceback), so `schedbench check-config` checks it first: a FIFO, a
# device or a folder is refused by name, as is a YAML or schema error, before Snakemake starts.
CONFIG ?=

run: $(STAMP) latex-debs  ## the paper's experiments (config/config.yaml, or CONFIG=FILE), ending with paper/main.pdf
	$(if $(CONFIG),$(BIN)/schedbench check-config $(CONFIG))
	$(BIN)/snakemake --cores $(CORES)$(if $(CONFIG), --configfile $(CONFIG))

smoke: $(STAMP) latex-debs  ## the CI-sized pipeline (config/smoke.yaml)
	$(BIN)/schedbench check-config config/smoke.yaml
	$(BIN)/snakemake --cores $(CORES) --configfile config/smoke.yaml

# order-only: an existing .venv is never reinstalled under a running pipeline that uses it
status: | $(STAMP)  ## a running or finished pipeline here: jobs done/running/failed, progress, slowest rules
	@$(BIN)/schedbench status

report: run  ## the self-contained HTML report of the last run: report.html (CONFIG=FILE as for run)
	$(BIN)/snakemake --report report.html$(if $(CONFIG), --configfile $(CONFIG))

# Two xdist workers; --dist loadgroup keeps the groups of tests/conftest.py (XDIST_GROUPS) in one
# worker each: the local end-to-end tests (one shared smoke run) in one, the SLURM tests in the
# other, the rest spread over both as they free up.
test: $(STAMP) test-debs  ## the whole test suite: every tier, end-to-end Snakemake runs and SLURM included
	$(BIN)/python -m pytest -n 2 --dist loadgroup

# The edit loop: no Snakemake run, no Debian package needed.
test-fast: $(STAMP)  ## the fast tiers (tests/unit, tests/conformance, tests/golden, lint included) on 2 workers
	$(BIN)/python -m pytest -n 2 -m "not e2e" tests/unit tests/conformance tests/golden

lint: $(STAMP)  ## ruff check, ruff format --check, snakefmt --check, snakemake --lint (tools/lint)
	$(BIN)/python tools/lint

bench: $(STAMP)  ## performance figures quoted in benchmarks/README.md
	$(BIN)/python benchmarks/bench_scheduling.py
	$(BIN)/python benchmarks/bench_opt_flow.py
	$(BIN)/python benchmarks/bench_compiled.py
	$(BIN)/python benchmarks/bench_search.py
	$(BIN)/python benchmarks/bench_exact.py
	$(BIN)/python benchmarks/bench_loss.py
	$(BIN)/python benchmarks/bench_pipeline.py
	$(BIN)/python benchmarks/bench_compact.py --families flow_sized_m10,stretch_pareto15_m10 --models cpsat,backlog,transport

bench-compare: $(STAMP)  ## schedbench vs Ciw vs SimPy on the same JSQ model (benchmarks/README.md)
	$(BIN)/pip install --quiet -r requirements-bench.txt
	$(BIN)/python benchmarks/bench_bipartite.py

# Mutation testing of the validator, the engine, the budget owner and the offline optima
# (pyproject.toml [tool.mutmut]; about 4 h of CPU, 2–3 h on 2 cores; resumes where a stopped run left off).
mutants: $(STAMP)  ## mutation testing (mutmut): the table and survivors of docs/mutation-testing.md
	$(BIN)/pip install --quiet -r requirements-mutants.txt
	$(BIN)/mutmut run --max-children 2
	$(BIN)/python tools/mutants-report --functions

lock:  ## re-resolve requirements.in into requirements.lock (needs network)
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install --quiet -r requirements.in
	{ echo "# Exact versions the test suite and the pipeline were run with (Python 3.11, Linux x86_64)."; \
	  echo "# Regenerate with \`make lock\` after editing requirements.in."; \
	  .venv-lock/bin/pip freeze | grep -v -i '^schedbench'; } > requirements.lock
	rm -rf .venv-lock

clean-results:
	rm -rf results .snakemake/incomplete
