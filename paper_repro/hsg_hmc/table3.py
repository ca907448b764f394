"""HSG-HMC Table 3: the statistics of the six LIBSVM data sets, checked on the files the user gives.

The paper's files are not shipped. Every Table 3 set given with ``sgmcmc-verify --data NAME=PATH`` (``NAME`` one of
:data:`TABLE3_NAMES`; ``NAME.t=PATH`` for the LIBSVM page's own test file) is read with the loader of the Figure 2 study
(:mod:`sgmcmc_verify.targets.datasets`) and its dimension and sizes are recorded: with a test file, the training and
test sizes; without one (mushrooms, phishing and pima come as one file, which the paper split), the total, compared
with the printed training + test. Nothing is read when no file is given (the entry is then not run).

Writes ``table3.json``.

References
----------
HSG-HMC, seed ``001_d56659fdb8996bf2.txt``: Table 3, § "Bayesian Logistic Regression".
"""
from __future__ import annotations

from pathlib import Path

from sgmcmc_verify.store.io import write_json
from sgmcmc_verify.targets.datasets import load, load_pair, user_data_names

from .settings import Table3Settings

__all__ = ["PRINTED_TABLE3", "TABLE3_NAMES", "run_table3", "given_table3_names"]

#: Table 3 as printed: (dimension, training size, test size), under the LIBSVM page's names (the table writes
#: MUSHROOM and IJCNN; pima is LIBSVM's "diabetes").
PRINTED_TABLE3 = {"a9a": (123, 32561, 16281), "mushrooms": (112, 6000, 2124), "phishing": (68, 9000, 2055),
                  "pima": (8, 600, 168), "a3a": (123, 3185, 29376), "ijcnn1": (22, 49990, 91701)}
TABLE3_NAMES = tuple(PRINTED_TABLE3)


def given_table3_names() -> list[str]:
    """The Table 3 sets given as files (``--data``), in Table 3's order."""
    given = set(user_data_names())
    return [n for n in TABLE3_NAMES if n in given]


def run_table3(s: Table3Settings, out_dir, n_jobs=1, backend=None, progress=None):
    """Read every given Table 3 file; write dimension and sizes beside the printed row (``table3.json``)."""
    out = {}
    given = set(user_data_names())
    for name in given_table3_names():
        if name + ".t" in given:
            tr, te = load_pair(name)
            out[name] = {"dim": int(tr.X.shape[1]), "n_train": int(tr.y.size), "n_test": int(te.y.size),
                         "n_total": int(tr.y.size + te.y.size), "split_given": True, "source": tr.source}
        else:
            d = load(name)
            out[name] = {"dim": int(d.X.shape[1]), "n_total": int(d.y.size), "split_given": False, "source": d.source}
    write_json(Path(out_dir) / "table3.json", {"given": out, "printed": {k: list(v) for k, v in PRINTED_TABLE3.items()},
                                               "names": list(TABLE3_NAMES)})
