"""Final states of every sampler family after 200 steps on 300 chains, saved for a byte comparison across checkouts (#26).

Run with two checkouts' interpreters and compare the .npz files byte for byte::

    /path/to/main/.venv/bin/python bench/step_bits.py /tmp/a.npz
    .venv/bin/python bench/step_bits.py /tmp/b.npz
    python -c "import numpy as np; a, b = np.load('/tmp/a.npz'), np.load('/tmp/b.npz'); print({k: a[k].tobytes() == b[k].tobytes() for k in a.files})"
"""
import sys
import numpy as np
from sgmcmc_verify import samplers
from sgmcmc_verify.targets import gaussian_means_target, hsg_mixture_target, vrsg_gaussian_target
out = {}
t = gaussian_means_target()
cases = {
 "ewsg_m3_b2": samplers.ewsg(t, 0.05, 10.0, index_chain_length=3, batch_size=2),
 "ewsg_m1": samplers.ewsg(t, 0.05, 10.0),
 "sgld_b7": samplers.sgld(t, 5e-3, batch_size=7),
 "sghmc_b10": samplers.sghmc(t, 5e-2, 10.0, batch_size=10),
 "psgld": samplers.psgld(t, 5e-3),
 "ls_sgld": samplers.ls_sgld(t, 5e-3, 1.0),
 "hsg": samplers.hsg_hmc(hsg_mixture_target(), 0.1),
 "sgld_prior": samplers.sgld(vrsg_gaussian_target(), 1e-4, batch_size=5),
}
for name, s in cases.items():
    rng = np.random.default_rng(1)
    d = s.target.dim
    x0 = 0.3 * rng.standard_normal((300, d))
    st = s.init(x0, rng.standard_normal((300, d))) if hasattr(s, "friction") else s.init(x0)
    for _ in range(200):
        st, info = s.step(st, rng)
    out[name] = st.position
    if hasattr(st, "momentum"):
        out[name + "_v"] = st.momentum
np.savez(sys.argv[1], **out)
