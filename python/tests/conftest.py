"""Shared paths for the tumble package's tests: the repository's bundled scenes and, where it has
been built, the command-line binary (the Python results are compared with its output)."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENES = ROOT / "scenes"


@pytest.fixture
def scenes():
    return SCENES


@pytest.fixture
def cli():
    """The `tumble` binary (TUMBLE_BIN, or target/release/tumble), which CI builds before the
    Python tests; with CI=true its absence is a failure, never a skip."""
    path = pathlib.Path(os.environ.get("TUMBLE_BIN", ROOT / "target" / "release" / "tumble"))
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"the tumble binary is not built at {path}")
        pytest.skip(f"the tumble binary is not built at {path}")
    return path
