"""Where results live: the experiment registry, the keyed cache, atomic writes, settings.

============  ==========================================================================================
module        contents
============  ==========================================================================================
``registry``  :class:`Experiment`; discovery of papers (``paper_repro.<paper>``), their experiments and
              claims, and the figure modules
``settings``  :class:`ScaledSettings`, the frozen per-experiment settings base (three scales)
``cache``     :func:`run_experiment`: keyed store under ``results/.cache/``, code fingerprints, resume
``io``        atomic CSV / JSON writes and reads
============  ==========================================================================================
"""
from .cache import code_fingerprint, git_commit, package_versions, run_experiment, settings_key
from .io import read_csv, read_json, write_csv, write_json
from .registry import (Experiment, all_experiments, figure_modules, get_experiment, import_paper_modules,
                       load_all_experiments, paper_ids, register_experiment)
from .settings import SCALES, ScaledSettings, check_scale

__all__ = ["Experiment", "register_experiment", "get_experiment", "all_experiments", "load_all_experiments",
           "paper_ids", "import_paper_modules", "figure_modules", "ScaledSettings", "SCALES", "check_scale",
           "run_experiment", "code_fingerprint", "settings_key", "package_versions", "git_commit", "write_csv",
           "write_json", "read_csv", "read_json"]
