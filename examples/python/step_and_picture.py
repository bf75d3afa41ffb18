"""Notebook-style: step the small funnel frame by frame from Python, read the states as numpy
arrays, follow the cubes' heights, and draw a picture.

    pip install "./python[examples]"         # matplotlib
    python examples/python/step_and_picture.py [OUT.png]   # default out/small_funnel.png
"""
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import tumble

root = pathlib.Path(__file__).resolve().parents[2]
# Pictures go into out/, as the command line's runs do, never beside the sources.
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "out/small_funnel.png")
out.parent.mkdir(parents=True, exist_ok=True)

scene = tumble.Scene.from_file(root / "scenes" / "small-funnel.toml")
sim = tumble.Simulation(scene)
cubes = [i for i, n in enumerate(sim.names) if n.startswith("cube")]
times, heights = [], []
while sim.time < scene.duration:
    sim.step_frame()
    z = sim.state()["position"][cubes, 2]
    times.append(sim.time)
    heights.append(np.percentile(z, [10, 50, 90]))
heights = np.array(heights)
s = sim.summary()
print(f"{len(cubes)} cubes, {s['counts']['collisions']} collisions, "
      f"largest penetration {s['max_penetration']:.1e} m, final median height {heights[-1, 1]:.3f} m")

fig, (a, b) = plt.subplots(1, 2, figsize=(9, 4))
a.fill_between(times, heights[:, 0], heights[:, 2], alpha=0.3, label="10-90 %")
a.plot(times, heights[:, 1], label="median")
a.set_xlabel("t (s)")
a.set_ylabel("cube height (m)")
a.legend()
p = sim.state()["position"][cubes]
b.scatter(p[:, 0], p[:, 1], s=12)
b.set_aspect("equal")
b.set_title(f"cubes from above at t = {sim.time:.1f} s")
fig.tight_layout()
fig.savefig(out, dpi=110)
print(f"wrote {out}")
assert s["max_penetration"] <= 1e-3
