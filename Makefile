# Every target bootstraps its own environment: a fresh machine needs only Python 3.11.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SCALE  ?= default
N_JOBS ?= 2

.PHONY: all figures verify test bench calibrate baselines clean-results env

all: figures

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (or run: make PYTHON=python3 ...)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

env: $(STAMP)

## make figures: run the experiments (results/) and draw the papers' figures (figures/out/)
figures: $(STAMP)
	$(VENV)/bin/sgmcmc-verify run all --scale $(SCALE) --n-jobs $(N_JOBS)
	$(VENV)/bin/sgmcmc-verify figures

## make verify: every registered claim at the default scale -> results/claims.json, figures/out/REPORT.{md,html}
verify: $(STAMP)
	$(VENV)/bin/sgmcmc-verify verify --scale default --n-jobs $(N_JOBS)

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

## make bench: chain-steps per second, n-independence of the per-step cost, paper-scale Fig 1 wall time, W2 solvers, MLP gradient cost per pass, per-pass cost of the Table 1 methods (FlyMC included)
bench: $(STAMP)
	$(PY) bench/bench_samplers.py
	$(PY) bench/bench_transport.py
	$(PY) bench/bench_vrsg.py
	$(PY) bench/bench_mlp.py
	$(PY) bench/bench_flymc.py

clean-results:
	rm -rf results figures/out
