"""LS-SGLD (Wang, Zou, Gu, Osher, SIAM J. Sci. Comput. 2021; seed ``004_8438bd4b543e0fc4.txt``): Tables 1–3, Theorem 3.3, Proposition 2.1, Figures 1–4."""
