"""Package list and folder mapping of the one import name ``sgmcmc_verify`` (metadata lives in pyproject.toml).

The repository keeps the top-level folders of the design (verify/, analytic/, paper_repro/, figures/); the
installed distribution adds exactly one top-level import name:

    sgmcmc_verify              <- verify/
    sgmcmc_verify.analytic     <- analytic/
    sgmcmc_verify.paper_repro  <- paper_repro/
    sgmcmc_verify.figures      <- figures/
"""
from setuptools import find_packages, setup

FOLDERS = {"sgmcmc_verify": "verify", "sgmcmc_verify.analytic": "analytic",
           "sgmcmc_verify.paper_repro": "paper_repro", "sgmcmc_verify.figures": "figures"}

packages = []
for name, folder in FOLDERS.items():
    packages += [name] + [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=FOLDERS)
