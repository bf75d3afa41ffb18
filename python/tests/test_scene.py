"""Scenes from files, TOML text and dicts; errors as the command line gives them."""
import subprocess

import numpy as np
import pytest

import tumble

BALL = """
[world]
duration = 0.5
frame_period = 0.01

[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "plane", normal = [0.0, 0.0, 1.0] }

[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
mass = 1.0
position = [0.0, 0.0, 1.0]
"""


def test_from_file_reads_a_bundled_scene(scenes):
    s = tumble.Scene.from_file(scenes / "small-funnel.toml")
    assert s.duration == 4.0
    assert s.frame_period == 0.02


def test_a_missing_file_is_a_scene_error():
    with pytest.raises(tumble.SceneError, match="No such file or directory: 'no-such.toml'"):
        tumble.Scene.from_file("no-such.toml")


def test_errors_name_the_file_line_column_and_key_as_the_cli_does(tmp_path, cli):
    bad = BALL.replace("mass = 1.0", "mass = -1.0")
    path = tmp_path / "bad.toml"
    path.write_text(bad)
    with pytest.raises(tumble.SceneError) as e:
        tumble.Scene.from_file(path)
    message = str(e.value)
    assert message.startswith(f"{path}:14:8: "), message
    assert "mass" in message and '"ball"' in message, message
    cli_run = subprocess.run([cli, "check", str(path)], capture_output=True, text=True)
    assert cli_run.returncode != 0
    assert message in cli_run.stderr, (message, cli_run.stderr)
    with pytest.raises(tumble.SceneError, match=r"^scene\.toml:14:8: .*mass"):
        tumble.Scene.from_toml(bad, name="scene.toml")


def test_a_dict_gives_the_same_scene_as_its_toml():
    d = {
        "world": {"duration": 0.5, "frame_period": 0.01},
        "bodies": [
            {"name": "floor", "motion": "fixed", "shape": {"type": "plane", "normal": [0.0, 0.0, 1.0]}},
            {
                "name": "ball",
                "shape": {"type": "sphere", "radius": 0.1},
                "mass": 1.0,
                "position": np.array([0.0, 0.0, 1.0]),
            },
        ],
    }
    a = tumble.Simulation(tumble.Scene.from_dict(d))
    b = tumble.Simulation(tumble.Scene.from_toml(BALL))
    a.run()
    b.run()
    for k, v in a.state().items():
        assert np.array_equal(v, b.state()[k]), k


def test_a_bad_dict_names_its_key():
    with pytest.raises(tumble.SceneError, match="radius"):
        tumble.Scene.from_dict(
            {"bodies": [{"name": "b", "shape": {"type": "sphere", "radius": -1.0}, "mass": 1.0}]}
        )
    with pytest.raises(TypeError, match=r"bodies\[0\]\.mass"):
        tumble.Scene.from_dict({"bodies": [{"name": "b", "mass": object()}]})
