"""The mixture row (check ``multimodality``) of one sampler at the default scale on K seeds other than the battery's.

Written for ``docs/peers_audit.md`` (2026-12-06): SGMCMCJax's pSGLD warned on the mixture at the battery's seed
(W2 just above its bound) where the toolkit's pSGLD with the same RMSprop input passed. Decision rule, fixed before
the runs: the two implementations differ on this row if their mean W2 over the K seeds differs by more than 3
standard errors of the difference; the counts of seeds over the bound are reported beside.

Usage (the peer extras installed; JAX on the CPU in float64)::

    JAX_PLATFORMS=cpu JAX_ENABLE_X64=1 python bench/peers_mixture_seeds.py pSGLD toolkit_pSGLD-full \\
        "{'preconditioner_input': 'full'}" 10 OUT_DIR
    JAX_PLATFORMS=cpu JAX_ENABLE_X64=1 python bench/peers_mixture_seeds.py \\
        sgmcmc_verify.peers.sgmcmcjax:psgld_factory SGMCMCJax_pSGLD "{}" 10 OUT_DIR

Each seed appends one JSON line (seed, status, measured, detail, seconds) to ``OUT_DIR/seeds_<name>.jsonl``; the
seeds are the battery's seed + 1000 j, j = 1..K.
"""
import ast
import dataclasses
import json
import sys
import time
from pathlib import Path

from sgmcmc_verify.audit.battery import audit
from sgmcmc_verify.audit.settings import AuditSettings


def main(argv):
    spec, name, params, k, out = argv[0], argv[1], ast.literal_eval(argv[2]), int(argv[3]), Path(argv[4])
    out.mkdir(parents=True, exist_ok=True)
    base = AuditSettings.at("default")
    with open(out / f"seeds_{name}.jsonl", "a") as f:
        for j in range(1, k + 1):
            s = dataclasses.replace(base, seed=base.seed + 1000 * j)
            t = time.time()
            rep = audit(spec, params, scale="default", name=f"{name}_s{j}", results=out / "results",
                        checks=("multimodality",), settings=s)
            row = [r for r in rep["rows"] if r["id"] == "multimodality"][0]
            f.write(json.dumps({"seed": s.seed, "status": row["status"], "measured": row["measured"],
                                "detail": row["detail"], "seconds": time.time() - t}) + "\n")
            f.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
