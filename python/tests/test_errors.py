"""Errors as a Python user catches and reads them: a missing scene file is a FileNotFoundError,
and messages name keyword arguments (`backend="cpu"`), never the command line's flags."""
import errno
import os
import subprocess
import sys

import pytest

import tumble


def test_a_missing_scene_file_is_a_file_not_found_error_and_a_scene_error(tmp_path):
    missing = tmp_path / "no-such.toml"
    with pytest.raises(FileNotFoundError) as e:
        tumble.Scene.from_file(missing)
    print(repr(e.value))
    assert isinstance(e.value, tumble.SceneError)
    assert type(e.value) is tumble.SceneFileNotFound
    assert e.value.errno == errno.ENOENT
    assert e.value.filename == str(missing)
    assert e.value.strerror == os.strerror(errno.ENOENT)
    assert str(e.value) == f"[Errno 2] {os.strerror(errno.ENOENT)}: '{missing}'"


def test_run_and_batch_of_a_missing_file_raise_the_same(tmp_path):
    missing = tmp_path / "gone.toml"
    for call in (lambda: tumble.run(missing), lambda: tumble.batch(missing, trials=1)):
        with pytest.raises(FileNotFoundError) as e:
            call()
        assert isinstance(e.value, tumble.SceneError)
        assert e.value.filename == str(missing)


def test_an_unreadable_scene_path_stays_a_plain_scene_error(tmp_path):
    # A directory: it exists, so it is no FileNotFoundError; the message names the path.
    with pytest.raises(tumble.SceneError, match=f"^{tmp_path}: cannot read scene file") as e:
        tumble.Scene.from_file(tmp_path)
    assert not isinstance(e.value, FileNotFoundError)


def test_a_scene_file_that_is_not_utf8_is_named_at_its_first_bad_byte(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b"[world]\nduration = 1\n# caf\xe9\n")
    with pytest.raises(tumble.SceneError) as e:
        tumble.Scene.from_file(path)
    print(e.value)
    assert str(e.value).startswith(f"{path}:3:6: the scene file is not UTF-8 text: byte 0xe9"), e.value


GPU_WITHOUT_ADAPTER = """
import tumble
scene = tumble.Scene.from_toml("[world]\\nduration = 0.1\\n")
try:
    tumble.Simulation(scene, backend="gpu")
except RuntimeError as e:
    print(e)
else:
    print("no error")
"""


def test_the_gpu_error_names_the_keyword_argument_not_the_flag():
    # No adapter's name contains this, so "gpu" cannot be honoured on any machine.
    env = dict(os.environ, TUMBLE_ADAPTER="no adapter is called this")
    run = subprocess.run([sys.executable, "-c", GPU_WITHOUT_ADAPTER], capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    message = run.stdout.strip().splitlines()[-1]
    print(message)
    assert message.startswith('backend="gpu": no GPU adapter'), message
    assert 'no adapter is called this' in message, message
    assert message.endswith('use backend="cpu"'), message
    assert "--backend" not in message, message


def test_a_record_of_no_body_names_the_keyword_argument(scenes, tmp_path):
    with pytest.raises(ValueError) as e:
        tumble.run(scenes / "small-funnel.toml", out=tmp_path, record=["cube_1", "nobody"])
    message = str(e.value)
    print(message)
    assert message == 'record=["nobody"]: names no body or lattice of the scene', message


def test_a_vary_entry_python_cannot_write_as_toml_names_its_place(scenes):
    with pytest.raises(TypeError) as e:
        tumble.batch(scenes / "stable-poses.toml", trials=1, vary=[...])
    message = str(e.value)
    print(message)
    assert message.startswith("vary[0]: a value of type ellipsis has no TOML form"), message
