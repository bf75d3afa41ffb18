"""`tumble.batch` without pandas: trials.csv as a dict of numpy arrays, one per column, typed as
`pandas.read_csv` types them (int64, uint64 past int64, float64 with NaN for empty cells)."""
import csv
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import tumble

# A brick dropped from random orientations, its mass drawn from a normal that goes below zero:
# the trials that draw a negative mass fail and leave their cells empty.
DROP = """
[world]
duration = 2.0
frame_period = 0.01
sleep_time = 0.2

[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "plane", normal = [0.0, 0.0, 1.0] }

[[bodies]]
name = "brick"
shape = { type = "box", half_extents = [0.1, 0.05, 0.025] }
mass = 1.0
position = [0.0, 0.0, 0.3]

[batch]
classify = "brick"

[[batch.vary]]
body = "brick"
key = "orientation"

[[batch.vary]]
body = "brick"
key = "mass"
normal = [0.5, 1.0]
"""

# Run in a fresh interpreter where `import pandas` fails, as on a plain `pip install ./python`.
WITHOUT_PANDAS = """
import json, sys
sys.modules["pandas"] = None
import tumble
table = tumble.batch(sys.argv[1], trials=20, out=sys.argv[2])
print(json.dumps({
    "type": type(table).__name__,
    "columns": {k: [str(v.dtype), [None if x != x else x for x in v.tolist()]] for k, v in table.items()},
}))
"""


@pytest.fixture
def without_pandas(tmp_path):
    """The table `tumble.batch` returns without pandas (as JSON: type, columns as dtype and values,
    NaN as None) and the trials.csv it wrote."""
    scene = tmp_path / "drop.toml"
    scene.write_text(DROP)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-c", WITHOUT_PANDAS, str(scene), str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    with open(out / "trials.csv", newline="") as f:
        rows = list(csv.reader(f))
    return json.loads(run.stdout), rows


def test_without_pandas_batch_returns_a_dict_of_numpy_arrays(without_pandas):
    table, rows = without_pandas
    header, cells = rows[0], rows[1:]
    assert table["type"] == "dict"
    assert list(table["columns"]) == header
    failed = [r for r in cells if r[header.index("pose")] == ""]
    print(f"{len(cells)} trials, {len(failed)} failed")
    assert len(cells) == 20 and 0 < len(failed) < 20
    dtype = {k: v[0] for k, v in table["columns"].items()}
    # Integers stay integers; a seed past int64 is uint64; a column with empty cells is float64.
    assert dtype["trial"] == "int64", dtype
    assert dtype["seed"] == "uint64", dtype
    assert dtype["brick.mass"] == "float64", dtype
    assert dtype["pose"] == "float64" and dtype["collisions"] == "float64", dtype
    for k, name in enumerate(header):
        kind, values = table["columns"][name]
        assert len(values) == len(cells), name
        for row, value in zip(cells, values):
            cell = row[k]
            if cell == "":
                assert value is None, (name, cell, value)  # NaN
            elif kind == "float64":
                assert value == float(cell), (name, cell, value)
            else:
                assert value == int(cell), (name, cell, value)


def test_without_pandas_the_columns_are_those_pandas_reads(without_pandas, tmp_path):
    pd = pytest.importorskip("pandas")
    table, _ = without_pandas
    expected = pd.read_csv(tmp_path / "out" / "trials.csv")
    assert list(table["columns"]) == list(expected.columns)
    for name in expected.columns:
        kind, values = table["columns"][name]
        column = expected[name]
        assert kind == str(column.dtype), (name, kind, column.dtype)
        got = np.array([math.nan if v is None else v for v in values], dtype=kind)
        np.testing.assert_array_equal(got, column.to_numpy(), err_msg=name)


def test_with_pandas_batch_returns_a_dataframe(tmp_path):
    pd = pytest.importorskip("pandas")
    scene = tmp_path / "drop.toml"
    scene.write_text(DROP)
    table = tumble.batch(scene, trials=5, out=tmp_path / "out")
    assert isinstance(table, pd.DataFrame)
    assert len(table) == 5
