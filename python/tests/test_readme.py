"""README.md's Python block, run as pasted (by .ci/readme_python.py, which CI runs too), with
pandas and without."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("pandas", ["as installed", "without pandas"])
def test_the_readme_python_block_runs(pandas):
    args = [sys.executable, ROOT / ".ci" / "readme_python.py"]
    if pandas == "without pandas":
        args.append("--without-pandas")
    run = subprocess.run(args, capture_output=True, text=True, timeout=600)
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stderr
    assert f"{pandas})" in run.stdout and "the Python block ran" in run.stdout, run.stdout
