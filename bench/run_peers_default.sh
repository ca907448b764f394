#!/usr/bin/env bash
# Every peer sampler (blackjax, posteriors, SGMCMCJax; verify/peers/) and its toolkit counterpart through the audit
# battery at one scale (default: the DEFAULT scale), one audit after another, each with --n-jobs N_JOBS; every
# summary under OUT/audit/<name>/ (the battery's own layout), the audit pages under OUT/pages/, the peer libraries'
# versions in OUT/versions.json, each audit's log and wall time in OUT/logs/. Then docs/peers_audit.md's generated
# section is rewritten from those summaries (bench/peers_audit_doc.py; the same command alone regenerates it later).
#
#   bench/run_peers_default.sh [N_JOBS] [OUT]          N_JOBS default 16, OUT default results/peers_default
#   SCALE=smoke bench/run_peers_default.sh 2 /tmp/p    the same at smoke scale (a dry run of the script, minutes)
#   ONLY='SGMCMCJax_SGLD toolkit_SGLD' ...             a subset, by name (the first column of RUNS below)
#   PY=/path/to/python ...                             the interpreter with the toolkit and the peer extras
#   TIMEOUT=3600 ...                                   seconds per check (a check over it is the finding 'timed out')
#   SKIP_DONE=1 ...                                    keep an audit whose OUT/audit/<name>/summary.json exists
#   DOC=path.md ...                                    the document to regenerate (default docs/peers_audit.md)
#
# Needs: the toolkit installed with the peer extras (make test-peers, or pip install -e '.[peers,peers-torch,
# peers-jax]'; offline, the wheels listed in docs/peers_audit.md, "Running it at the default scale"). JAX and torch
# run on the CPU in float64 (JAX_PLATFORMS=cpu, no CUDA device visible), one thread per joblib worker, so N_JOBS
# workers use N_JOBS cores. An audit that fails to run (exit status 2: an import error, a protocol error) is logged
# and the others go on; a flagged check is a finding (exit status 1), not a failure of the script.
set -u
N_JOBS=${1:-16}
OUT=${2:-results/peers_default}
SCALE=${SCALE:-default}
PY=${PY:-.venv/bin/python}
TIMEOUT=${TIMEOUT:-3600}
ONLY=${ONLY:-}
SKIP_DONE=${SKIP_DONE:-0}
DOC=${DOC:-docs/peers_audit.md}

export JAX_PLATFORMS=cpu CUDA_VISIBLE_DEVICES="" JAX_ENABLE_X64=1
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export XLA_FLAGS="${XLA_FLAGS:-} --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
export PYTHONWARNINGS=${PYTHONWARNINGS:-ignore::DeprecationWarning}

P=sgmcmc_verify.peers
# name | factory | params (repeated --param KEY=VALUE)
RUNS="
toolkit_SGLD|SGLD|
toolkit_SGHMC|SGHMC|friction=15
toolkit_SVRG-LD|SVRG-LD|
toolkit_pSGLD|pSGLD|
toolkit_pSGLD-full|pSGLD|preconditioner_input='full'
blackjax_SGLD|$P.blackjax:sgld_factory|
blackjax_SGHMC|$P.blackjax:sghmc_factory|friction=15
posteriors_SGLD|$P.posteriors:sgld_factory|
posteriors_SGHMC|$P.posteriors:sghmc_factory|friction=15
posteriors_SGNHT|$P.posteriors:sgnht_factory|friction=15
posteriors_BAOA|$P.posteriors:baoa_factory|friction=15
SGMCMCJax_SGLD|$P.sgmcmcjax:sgld_factory|
SGMCMCJax_SGLD-CV|$P.sgmcmcjax:sgld_cv_factory|
SGMCMCJax_SVRG-LD|$P.sgmcmcjax:svrg_ld_factory|
SGMCMCJax_pSGLD|$P.sgmcmcjax:psgld_factory|
SGMCMCJax_SGHMC|$P.sgmcmcjax:sghmc_factory|friction=15
SGMCMCJax_SGNHT|$P.sgmcmcjax:sgnht_factory|friction=15
SGMCMCJax_BAOAB|$P.sgmcmcjax:baoab_factory|friction=15
SGMCMCJax_BAOAB-fixed|$P.sgmcmcjax:baoab_fixed_factory|friction=15
SGMCMCJax_BADODAB|$P.sgmcmcjax:badodab_factory|
SGMCMCJax_BADODAB-fixed|$P.sgmcmcjax:badodab_fixed_factory|
"

mkdir -p "$OUT/logs" "$OUT/pages"
"$PY" - "$OUT/versions.json" "$SCALE" "$N_JOBS" "$OUT" <<'EOF'
import json, platform, subprocess, sys, time
from importlib import metadata
v = {}
for d in ("sgmcmc-verify", "numpy", "scipy", "jax", "jaxlib", "blackjax", "sgmcmcjax", "torch", "posteriors",
          "tensordict", "optree"):
    try:
        v[d] = metadata.version(d)
    except metadata.PackageNotFoundError:
        v[d] = None
try:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
except OSError:
    commit = None
json.dump({"versions": v, "python": platform.python_version(), "git_commit": commit, "scale": sys.argv[2],
           "n_jobs": int(sys.argv[3]), "results_dir": sys.argv[4],
           "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
          open(sys.argv[1], "w"), indent=1)
EOF

failed=""
while IFS='|' read -r name factory params; do
  [ -z "$name" ] && continue
  if [ -n "$ONLY" ] && ! printf ' %s ' "$ONLY" | grep -q " $name "; then continue; fi
  if [ "$SKIP_DONE" = 1 ] && [ -f "$OUT/audit/$name/summary.json" ]; then echo "== $name: kept"; continue; fi
  args=()
  [ -n "$params" ] && args+=(--param "$params")
  echo "== $name ($factory ${params:+--param $params}) at $(date -u +%H:%M:%S)"
  start=$(date +%s)
  "$PY" -m sgmcmc_verify.cli audit "$factory" --name "$name" --scale "$SCALE" --n-jobs "$N_JOBS" \
      --results "$OUT" --out "$OUT/pages" --timeout "$TIMEOUT" --fail-on never "${args[@]}" > "$OUT/logs/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc wall_s=$(( $(date +%s) - start ))" | tee -a "$OUT/logs/wall_times.txt"
  [ $rc -ne 0 ] && failed="$failed $name" && tail -5 "$OUT/logs/$name.log"
done <<< "$RUNS"

"$PY" bench/peers_audit_doc.py --results "$OUT" --doc "$DOC"
echo "summaries: $OUT/audit/*/summary.json; pages: $OUT/pages/audit/index.html; $DOC regenerated"
if [ -n "$failed" ]; then echo "audits that did not run to the end:$failed"; exit 2; fi
