"""tests/peers run only when asked (``make test-peers`` sets ``SGMCMC_TEST_PEERS=1``).

Importing JAX starts threads; the default suite later forks worker processes (joblib's multiprocessing
backend), which JAX warns may deadlock. So a plain ``pytest`` does not collect these tests even where the
``peers`` extra is installed (e.g. after ``make bench``); with the variable set and JAX absent they skip
(``pytest.importorskip``).
"""
import os

collect_ignore_glob = [] if os.environ.get("SGMCMC_TEST_PEERS") == "1" else ["test_*.py"]
