"""Bulk flow from Python: bodies poured in and taken out, the probes' values, and state()'s names."""
import subprocess

import numpy as np

import tumble

SCENE = """
[world]
duration = 1.5
frame_period = 0.05

[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "box", half_extents = [2.0, 2.0, 0.1] }
position = [0.0, 0.0, -0.1]

[[sources]]
name = "feed"
region = { center = [0.0, 0.0, 1.0], half_extents = [0.4, 0.4, 0.2] }
rate = 40
stop = 0.5
seed = 3
body = { shape = { type = "box", half_extents = [0.04, 0.04, 0.04] }, density = 1000 }

[[probes]]
name = "pile"
kind = "region"
region = { center = [0.0, 0.0, 1.0], half_extents = [2.0, 2.0, 2.0] }
"""


def test_poured_bodies_and_probes_from_python(tmp_path, cli):
    sim = tumble.Simulation(tumble.Scene.from_toml(SCENE, "flow.toml"))
    sim.step_frame()
    sim.run()
    state = sim.state()
    assert state["names"] == sim.names
    assert state["names"][0] == "floor"
    assert state["names"][1:] == [f"feed_{k}" for k in range(20)]
    assert state["position"].shape == (21, 3)
    probes = sim.probes()
    assert set(probes) == {"t", "probe", "quantity", "value"}
    frames = len(probes["t"]) // 6
    assert frames == 30
    bodies = [v for q, v in zip(probes["quantity"], probes["value"]) if q == "bodies"]
    # The bodies due by each frame's end are in the region.
    due = [sum(1 for k in range(20) if k / 40 <= 0.05 * (f + 1) + 1e-9) for f in range(frames)]
    assert bodies == due
    # The same values as `tumble run` writes to probes.csv.
    scene = tmp_path / "flow.toml"
    scene.write_text(SCENE)
    subprocess.run([cli, "run", scene, "--out", tmp_path / "cli", "--backend", "cpu"], check=True,
                   capture_output=True)
    rows = (tmp_path / "cli" / "probes.csv").read_text().splitlines()[1:]
    values = np.array([float(r.split(",")[3]) for r in rows])
    assert np.array_equal(values, probes["value"])


def test_run_writes_the_flow_tables_as_the_cli_does(tmp_path, cli):
    scene = tmp_path / "flow.toml"
    scene.write_text(SCENE)
    subprocess.run([cli, "run", scene, "--out", tmp_path / "cli", "--backend", "cpu"], check=True,
                   capture_output=True)
    tumble.run(tumble.Scene.from_file(scene), out=tmp_path / "py")
    for table in ("frames.csv", "inserted.csv", "probes.csv"):
        assert (tmp_path / "py" / table).read_text() == (tmp_path / "cli" / table).read_text(), table
