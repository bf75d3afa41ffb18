"""Batches as DataFrames equal to `tumble batch`'s trials.csv; impulses as events.csv's columns."""
import csv
import subprocess

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

import tumble


def test_batch_gives_the_cli_trials_table(scenes, tmp_path, cli):
    scene = scenes / "stable-poses.toml"
    subprocess.run([cli, "batch", scene, "--trials", "40", "--out", tmp_path / "cli"], check=True,
                   capture_output=True)
    table = tumble.batch(scene, trials=40, out=tmp_path / "py")
    assert isinstance(table, pd.DataFrame)
    expected = pd.read_csv(tmp_path / "cli" / "trials.csv")
    # Every column but the trials' own wall times.
    pd.testing.assert_frame_equal(table.drop(columns="wall_time"), expected.drop(columns="wall_time"))
    assert (tmp_path / "py" / "poses.csv").read_bytes() == (tmp_path / "cli" / "poses.csv").read_bytes()
    assert len(table) == 40


def test_batch_vary_replaces_the_scene_draws(scenes):
    scene = tumble.Scene.from_file(scenes / "stable-poses.toml")
    same = [
        {"body": "part", "key": "orientation"},
        {"body": "part", "key": "position.z", "uniform": [0.1, 0.2]},
        {"body": "part", "key": "angular_velocity.x", "normal": [0.0, 2.0]},
        {"body": "part", "key": "angular_velocity.y", "normal": [0.0, 2.0]},
    ]
    a = tumble.batch(scene, trials=12).drop(columns="wall_time")
    b = tumble.batch(scene, trials=12, vary=same).drop(columns="wall_time")
    pd.testing.assert_frame_equal(a, b)
    higher = [dict(same[1], uniform=[0.3, 0.4])]
    c = tumble.batch(scene, trials=12, vary=higher).drop(columns="wall_time")
    assert "position.z" in " ".join(c.columns)
    assert not a.equals(c)
    with pytest.raises(tumble.SceneError, match="vary"):
        tumble.batch(scene, trials=2, vary=[{"body": "nobody", "key": "position.z", "uniform": [0, 1]}])


def test_a_scene_without_a_batch_table_is_refused(scenes):
    with pytest.raises(tumble.SceneError, match=r"\[batch\]"):
        tumble.batch(scenes / "ramp.toml", trials=2)


def test_events_are_the_cli_events(scenes, tmp_path, cli):
    scene = scenes / "ramp.toml"
    subprocess.run([cli, "run", scene, "--out", tmp_path, "--events", "--backend", "cpu"], check=True,
                   capture_output=True)
    rows = list(csv.DictReader(open(tmp_path / "events.csv")))
    sim = tumble.Simulation(tumble.Scene.from_file(scene), record_events=True)
    got = {k: [] for k in rows[0]}
    while sim.time < sim.scene.duration:
        sim.step_frame()
        e = sim.events()
        for k in got:
            got[k].extend(list(e[k]))
    assert len(got["t"]) == len(rows) > 0
    for k in rows[0]:
        if k in ("kind", "body_a", "body_b"):
            assert got[k] == [r[k] for r in rows], k
        else:
            assert np.array_equal(np.array(got[k]), np.array([float(r[k]) for r in rows])), k
    assert sim.events()["t"].shape == (0,)


def test_events_need_recording(scenes):
    sim = tumble.Simulation(tumble.Scene.from_file(scenes / "ramp.toml"))
    with pytest.raises(RuntimeError, match="record_events"):
        sim.events()


def test_parquet_tables_equal_the_csv_ones(scenes, tmp_path, cli):
    scene = scenes / "small-funnel.toml"
    subprocess.run([cli, "run", scene, "--out", tmp_path / "csv", "--backend", "cpu", "--events"], check=True,
                   capture_output=True)
    subprocess.run([cli, "run", scene, "--out", tmp_path / "pq", "--backend", "cpu", "--events", "--format",
                    "parquet"], check=True, capture_output=True)
    tumble.run(scene, out=tmp_path / "py", format="parquet")
    for table in ["frames", "events"]:
        a = pd.read_parquet(tmp_path / "pq" / f"{table}.parquet")
        b = pd.read_csv(tmp_path / "csv" / f"{table}.csv")
        assert list(a.columns) == list(b.columns)
        pd.testing.assert_frame_equal(a, b, check_exact=True, check_dtype=False)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "py" / "frames.parquet"),
                                  pd.read_parquet(tmp_path / "pq" / "frames.parquet"), check_exact=True)
    assert not (tmp_path / "pq" / "frames.csv").exists()
    trials = tumble.batch(scenes / "stable-poses.toml", trials=20, out=tmp_path / "b", format="parquet")
    for table in ["trials", "poses"]:
        a = pd.read_parquet(tmp_path / "b" / f"{table}.parquet")
        b = pd.read_csv(tmp_path / "b" / f"{table}.csv")
        pd.testing.assert_frame_equal(a, b, check_exact=True, check_dtype=False)
    assert len(trials) == 20


def test_ctrl_c_stops_a_batch_between_blocks(scenes):
    import os
    import signal
    import threading
    import time

    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        tumble.batch(scenes / "stable-poses.toml", trials=50000)
    timer.join()
    assert time.perf_counter() - start < 10.0
