"""Stepping from Python: the same numbers as `tumble run`, on any thread count, interruptible."""
import csv
import json
import os
import signal
import subprocess
import threading

import numpy as np
import pytest

import tumble


def frames_at_end(path):
    """The last frame of a frames.csv: {name: 13 floats}."""
    rows = list(csv.reader(open(path)))
    header, rows = rows[0], rows[1:]
    t_end = rows[-1][0]
    return header, {r[1]: [float(x) for x in r[2:]] for r in rows if r[0] == t_end}


def test_python_steps_give_the_cli_run_bit_for_bit(scenes, tmp_path, cli):
    scene = scenes / "small-funnel.toml"
    subprocess.run([cli, "run", scene, "--out", tmp_path / "cli", "--backend", "cpu"], check=True,
                   capture_output=True)
    sim = tumble.Simulation(tumble.Scene.from_file(scene))
    while sim.time < 4.0:
        sim.step_frame()
    state = sim.state()
    header, last = frames_at_end(tmp_path / "cli" / "frames.csv")
    assert header[2:] == ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]
    names = sim.names
    moved = 0
    for name, row in last.items():
        i = names.index(name)
        mine = np.concatenate([state["position"][i], state["orientation"][i], state["velocity"][i],
                               state["angular_velocity"][i]])
        assert mine.tolist() == row, name
        moved += 1
    assert moved == 50
    cli_summary = json.load(open(tmp_path / "cli" / "summary.json"))
    assert sim.summary()["counts"] == cli_summary["counts"]


def test_run_writes_what_the_cli_writes(scenes, tmp_path, cli):
    scene = scenes / "ramp.toml"
    subprocess.run([cli, "run", scene, "--out", tmp_path / "cli", "--backend", "cpu"], check=True,
                   capture_output=True)
    summary = tumble.run(scene, out=tmp_path / "py")
    assert (tmp_path / "py" / "frames.csv").read_bytes() == (tmp_path / "cli" / "frames.csv").read_bytes()
    cli_summary = json.load(open(tmp_path / "cli" / "summary.json"))
    assert json.load(open(tmp_path / "py" / "summary.json"))["counts"] == cli_summary["counts"]
    assert summary["counts"] == cli_summary["counts"]
    assert summary["error"] is None
    assert summary["status"] == cli_summary["status"] == "finished"
    assert set(summary) == set(cli_summary)
    # The run directory keeps the scene it ran, as the CLI's does.
    assert (tmp_path / "py" / "scene.toml").read_bytes() == scene.read_bytes()
    assert summary["stored_scene"] == cli_summary["stored_scene"]


def test_results_do_not_depend_on_the_thread_count(scenes):
    scene = tumble.Scene.from_file(scenes / "small-funnel.toml")
    states = []
    for threads in [1, 2]:
        sim = tumble.Simulation(scene, threads=threads)
        sim.run(until=1.5)
        assert sim.time == 1.5
        states.append(sim.state())
    for k in states[0]:
        assert np.array_equal(states[0][k], states[1][k]), k


def test_state_arrays(scenes):
    sim = tumble.Simulation(tumble.Scene.from_file(scenes / "small-funnel.toml"))
    s = sim.state()
    n = len(sim.names)
    assert s["position"].shape == (n, 3) and s["orientation"].shape == (n, 4)
    assert s["velocity"].shape == (n, 3) and s["angular_velocity"].shape == (n, 3)
    assert s["names"] == sim.names
    assert all(v.dtype == np.float64 for k, v in s.items() if k != "names")
    assert np.allclose(np.linalg.norm(s["orientation"], axis=1), 1.0)


def test_bad_arguments():
    scene = tumble.Scene.from_toml("[world]\nduration = 0.1\n")
    with pytest.raises(ValueError, match="backend"):
        tumble.Simulation(scene, backend="tpu")
    with pytest.raises(ValueError, match="threads"):
        tumble.Simulation(scene, threads=0)
    with pytest.raises(TypeError):
        tumble.run(3.0)


def test_ctrl_c_stops_a_run_at_a_whole_frame_and_it_continues(scenes):
    scene = tumble.Scene.from_file(scenes / "funnel-250.toml")
    sim = tumble.Simulation(scene)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sim.run()
    timer.join()
    t = sim.time
    assert 0.0 < t < scene.duration
    frames = t / scene.frame_period
    assert abs(frames - round(frames)) < 1e-9, t
    sim.run(until=t + 0.1)
    assert sim.time == pytest.approx(t + 0.1, abs=1e-12)


def test_run_every_and_record_as_the_cli(scenes, tmp_path, cli):
    scene = scenes / "small-funnel.toml"
    subprocess.run([cli, "run", scene, "--out", tmp_path / "cli", "--backend", "cpu", "--every", "9",
                    "--record", "cube_1,cube_2"], check=True, capture_output=True)
    tumble.run(scene, out=tmp_path / "py", every=9, record=["cube_1", "cube_2"])
    assert (tmp_path / "py" / "frames.csv").read_bytes() == (tmp_path / "cli" / "frames.csv").read_bytes()
    with pytest.raises(ValueError, match="nobody"):
        tumble.run(scene, out=tmp_path / "bad", record=["nobody"])


def test_a_saved_state_continues_bit_for_bit(scenes):
    scene = tumble.Scene.from_file(scenes / "small-funnel.toml")
    a = tumble.Simulation(scene)
    a.step_frame()
    a.run(until=0.537)      # off the frame grid
    a.step_frame()
    a.run(until=1.2)
    saved = a.save_state()
    assert isinstance(saved, bytes)
    a.run(until=2.5)
    b = tumble.Simulation(scene, threads=1)
    b.load_state(saved)
    assert b.time == 1.2
    b.run(until=2.5)
    for k, v in a.state().items():
        assert np.array_equal(v, b.state()[k]), k
    assert a.summary()["counts"] == b.summary()["counts"]
    other = tumble.Simulation(tumble.Scene.from_file(scenes / "ramp.toml"))
    with pytest.raises(ValueError, match="another scene"):
        other.load_state(saved)
    with pytest.raises(ValueError, match="not a saved tumble state"):
        other.load_state(b"garbage")


BALL = """
[world]
duration = 2.0
frame_period = 0.01

[materials.default]
restitution = 0.0

[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "plane", normal = [0.0, 0.0, 1.0] }

[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
mass = 1.0
position = [0.0, 0.0, 0.1005]
"""


def test_set_state_launches_a_resting_ball_on_its_parabola():
    sim = tumble.Simulation(tumble.Scene.from_toml(BALL))
    sim.run(until=0.5)
    s = sim.state()
    s["position"][1] = [1.0, 2.0, 3.0]
    s["velocity"][1] = [0.5, 0.0, 2.0]
    s["angular_velocity"][1] = [0.0, 0.0, 7.0]
    sim.set_state(position=s["position"], velocity=s["velocity"], angular_velocity=s["angular_velocity"])
    now = sim.state()
    for k in ["position", "velocity", "angular_velocity"]:
        assert np.array_equal(now[k][1], s[k][1]), k
    sim.run(until=0.8)
    t, g = 0.3, 9.81
    p = sim.state()["position"][1]
    expected = [1.0 + 0.5 * t, 2.0, 3.0 + 2.0 * t - 0.5 * g * t * t]
    assert np.allclose(p, expected, rtol=0, atol=1e-9), (p, expected)
    assert sim.state()["angular_velocity"][1][2] == 7.0
    sim.run()  # it lands and comes to rest on the floor
    assert sim.summary()["max_penetration"] <= 1e-3
    assert abs(sim.state()["position"][1][2] - 0.1) < 2e-3


def test_set_state_refuses_fixed_bodies_and_bad_rows():
    sim = tumble.Simulation(tumble.Scene.from_toml(BALL))
    s = sim.state()
    moved = s["position"].copy()
    moved[0] = [0.0, 0.0, 1.0]
    with pytest.raises(ValueError, match='"floor" is not dynamic'):
        sim.set_state(position=moved)
    with pytest.raises(ValueError, match="rows"):
        sim.set_state(position=s["position"][:1])
    q = s["orientation"].copy()
    q[1] = [2.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="unit quaternion"):
        sim.set_state(orientation=q)


def test_a_saved_state_with_set_states_continues_bit_for_bit(scenes):
    scene = tumble.Scene.from_file(scenes / "small-funnel.toml")
    a = tumble.Simulation(scene)
    a.run(until=0.6)
    v = a.state()["velocity"]
    names = a.names
    v[names.index("cube_0")] += [0.0, 0.0, 3.0]
    a.set_state(velocity=v)
    a.run(until=1.0)
    saved = a.save_state()
    a.run(until=1.5)
    b = tumble.Simulation(scene)
    b.load_state(saved)
    b.run(until=1.5)
    for k, x in a.state().items():
        assert np.array_equal(x, b.state()[k]), k
