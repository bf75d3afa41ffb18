"""A friction sweep as one batch: a block launched at 2 m/s along a floor, the friction
coefficient drawn per trial, how far it slides against Coulomb's v0^2 / (2 mu g).

    pip install "./python[examples]"         # matplotlib
    python examples/python/friction_sweep.py [TRIALS] [OUT.png]   # default out/friction_sweep.png
"""
import pathlib
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import tumble

trials = int(sys.argv[1]) if len(sys.argv) > 1 else 500
# Pictures go into out/, as the command line's runs do, never beside the sources.
out = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "out/friction_sweep.png")
out.parent.mkdir(parents=True, exist_ok=True)

scene = tumble.Scene.from_dict({
    "world": {"duration": 3.0, "frame_period": 0.01, "sleep_time": 0.2},
    "materials": {"default": {"restitution": 0.0, "friction": 0.5}},
    "bodies": [
        {"name": "floor", "motion": "fixed", "shape": {"type": "plane", "normal": [0.0, 0.0, 1.0]}},
        {"name": "block", "shape": {"type": "box", "half_extents": [0.05, 0.05, 0.05]}, "mass": 1.0,
         "position": [0.0, 0.0, 0.0505], "velocity": [2.0, 0.0, 0.0]},
    ],
    "batch": {"record": ["block"]},
})

start = time.perf_counter()
table = tumble.batch(scene, trials=trials,
                     vary=[{"material": "default", "key": "friction", "uniform": [0.1, 0.9]}])
wall = time.perf_counter() - start
# A DataFrame with pandas, a dict of numpy arrays without: the columns read the same either way.
mu = np.asarray(table["materials.default.friction"])
order = np.argsort(mu)
mu, slid = mu[order], np.asarray(table["block.x"])[order]
closed = 2.0**2 / (2.0 * mu * 9.81)
error = np.abs(slid - closed) / closed
print(f"{trials} trials in {wall:.2f} s ({trials / wall:.0f} trials/s); "
      f"largest relative error against v0^2/(2 mu g): {error.max():.2e}")

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(mu, closed, color="0.6", lw=3, label="Coulomb: $v_0^2 / (2 \\mu g)$")
ax.plot(mu, slid, ".", ms=3, label=f"tumble, {trials} trials")
ax.set_xlabel("friction coefficient $\\mu$")
ax.set_ylabel("distance slid (m)")
ax.legend()
fig.tight_layout()
fig.savefig(out, dpi=120)
print(f"wrote {out}")
assert error.max() < 1e-3
