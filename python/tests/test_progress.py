"""`run(progress=True)`: a line on sys.stderr that is ended however the run ends."""
import os
import signal
import threading

import pytest

import tumble


def test_progress_ends_its_line(scenes, capsys):
    sim = tumble.Simulation(tumble.Scene.from_file(scenes / "small-funnel.toml"))
    sim.run(until=0.2, progress=True)
    err = capsys.readouterr().err
    print(repr(err))
    assert "t = 0.2000 s of 0.2 s" in err, err
    assert err.endswith("\n"), repr(err)
    sim.run(until=0.3)
    assert capsys.readouterr().err == "", "no progress line unless asked"


def test_progress_ends_its_line_when_interrupted(scenes, capsys):
    scene = tumble.Scene.from_file(scenes / "funnel-250.toml")
    sim = tumble.Simulation(scene)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sim.run(progress=True)
    timer.join()
    err = capsys.readouterr().err
    print(repr(err))
    assert 0.0 < sim.time < scene.duration
    assert f"t = {sim.time:.4f} s of {scene.duration:g} s" in err, err
    assert err.endswith("\n"), repr(err)
