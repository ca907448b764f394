"""HSG-HMC (Zhang et al., AAAI 2021; seed 001_d56659fdb8996bf2.txt): settings, experiments, claims."""
