# Every target bootstraps its own environment: a fresh machine needs only Python 3.11.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SCALE  ?= default
N_JOBS ?= 2
# `make figures` / `make verify` run CONCURRENT experiments side by side, each with RUN_JOBS workers (the same numbers
# either way). On 2 cores two side by side with one worker each ran the whole default `make figures` in 0.88x the time
# of one at a time with 2 workers (docs/benchmarks.md, 2026-12-06); on a larger machine keep RUN_JOBS * CONCURRENT
# = cores. The old default: RUN_JOBS=2 CONCURRENT=1.
RUN_JOBS ?= 1
CONCURRENT ?= 2

.PHONY: all figures verify verify-paper test bench calibrate baselines clean-results env test-peers report-check audit

all: figures

$(STAMP): pyproject.toml setup.py
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (or run: make PYTHON=python3 ...)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

env: $(STAMP)

## make figures: run the experiments (results/) and draw the papers' figures (figures/out/)
figures: $(STAMP)
	$(VENV)/bin/sgmcmc-verify run all --scale $(SCALE) --n-jobs $(RUN_JOBS) --concurrent $(CONCURRENT)
	$(VENV)/bin/sgmcmc-verify figures --n-jobs $(N_JOBS)

## make verify: every registered claim at the default scale -> results/claims.json, figures/out/REPORT.{md,html}
verify: $(STAMP)
	$(VENV)/bin/sgmcmc-verify verify --scale default --n-jobs $(RUN_JOBS) --concurrent $(CONCURRENT)

## make verify-paper: every claim at the paper scale -> results/paper/, figures/out/paper/ (hours on 2 cores; resumable:
## a stored result with matching settings is not recomputed), then docs/paper_scale_report.md beside the default ledger
verify-paper: $(STAMP)
	$(VENV)/bin/sgmcmc-verify verify --scale paper --n-jobs $(N_JOBS) --results results/paper --out figures/out/paper
	@test -f results/claims.json || $(VENV)/bin/sgmcmc-verify verify --scale default --n-jobs $(N_JOBS)
	$(VENV)/bin/sgmcmc-verify compare --a results --b results/paper --out docs/paper_scale_report.md

## make baselines: rewrite the smoke-scale regression baselines (paper_repro/baselines/) on purpose
baselines: $(STAMP)
	$(VENV)/bin/sgmcmc-verify baseline --refresh

## make calibrate: rerun every test marked statistical / negative_control over 20 seed sets -> docs/calibration.md
calibrate: $(STAMP)
	$(PY) tests/calibrate.py --seeds 20

## make test: lint (ruff), then the whole test suite at smoke scale with the docstring examples
test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q

## make bench: toolkit / minimal-loop ratios, one chain vs blackjax (peers extra), chain-steps per second, n-independence of the per-step cost, paper-scale Fig 1 wall time, W2 solvers, MLP gradient cost per pass, parallel efficiency at n_jobs 1/2/4, per-pass cost of the Table 1 methods (FlyMC included)
bench: $(STAMP)
	-$(PY) -m pip install --quiet -e '.[test,peers]' || echo "peers extra (blackjax, jax) not installed: the bench skips the peers"
	$(PY) bench/bench_samplers.py
	$(PY) bench/bench_transport.py
	$(PY) bench/bench_vrsg.py
	$(PY) bench/bench_mlp.py
	$(PY) bench/bench_parallel.py
	$(PY) bench/bench_flymc.py
	$(PY) bench/bench_cnn.py
	$(PY) bench/bench_bootstrap.py

## make test-peers: install the optional peer extras (blackjax and SGMCMCJax on JAX CPU, posteriors on PyTorch CPU) and
## run the adapter tests (tests/peers/). torch==2.13.0 is asked for first, alone: on this machine pip takes its CPU wheel
## from the local disk, and posteriors' torch>=2.0 is then satisfied (a plain `torch` would download a CUDA build)
test-peers: $(STAMP)
	$(PY) -m pip install --quiet 'torch==2.13.0'
	$(PY) -m pip install --quiet -e '.[test,peers,peers-torch,peers-jax]'
	SGMCMC_TEST_PEERS=1 $(PY) -m pytest -q tests/peers

## make report-check: re-render the report site from results/claims.json, check every link and image, open the
## index and one paper page in headless Chromium; screenshots in figures/out/report/screenshots/, and the index's
## copied to docs/img/report_index.png (the README's picture). Without Chromium it prints the install command and asks
## before running it (on a terminal; otherwise it stops): nothing is installed without a yes.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CHROMIUM_INSTALL := $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium
report-check: $(STAMP)
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  echo "make report-check needs Chromium (headless); none on PATH. It installs with (about 480 MB):"; \
	  echo "    $(CHROMIUM_INSTALL)"; \
	  if [ -t 0 ]; then printf "Run that now? [y/N] "; read ans; \
	    case "$$ans" in y|Y|yes) $(CHROMIUM_INSTALL) || exit 1 ;; *) echo "nothing installed; stopping"; exit 2 ;; esac; \
	  else echo "not a terminal: nothing installed; run the command above, then make report-check"; exit 2; fi; }
	@test -f results/claims.json || test -f figures/out/REPORT.html || { echo "no report yet: run make verify (or sgmcmc-verify report --no-run on stored results)"; exit 1; }
	$(PY) -m sgmcmc_verify.ledger.report_check --out figures/out --claims results/claims.json --readme-screenshot docs/img/report_index.png

## make audit: the audit battery (issue #15) on every toolkit sampler at the default scale -> results/audit/, figures/out/audit/
audit: $(STAMP)
	$(VENV)/bin/sgmcmc-verify audit toolkit --scale $(SCALE) --n-jobs $(N_JOBS) || test $$? -eq 1

clean-results:
	rm -rf results figures/out
