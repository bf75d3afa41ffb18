//! The tables a call returns: a CSV file as a pandas DataFrame, or, where pandas is not
//! installed, as a dict of numpy arrays typed as pandas would type them.

use engine::output::TableFormat;
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;

/// The table format named `name` ("csv" or "parquet").
pub fn table_format(name: &str) -> PyResult<TableFormat> {
    match name {
        "csv" => Ok(TableFormat::Csv),
        "parquet" => Ok(TableFormat::Parquet),
        other => Err(PyValueError::new_err(format!(
            "format must be \"csv\" or \"parquet\" (got {other:?})"
        ))),
    }
}

/// The CSV table at `path` as a pandas DataFrame (`pandas.read_csv`), or without pandas a dict
/// of its columns in file order, each a numpy array ([`column`]).
pub fn read_table<'py>(py: Python<'py>, path: &Path) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(pandas) = py.import("pandas") {
        return pandas.call_method1("read_csv", (path,));
    }
    let rows = read_rows(py, path)?;
    let d = PyDict::new(py);
    let Some((header, rows)) = rows.split_first() else {
        return Ok(d.into_any());
    };
    for (k, name) in header.iter().enumerate() {
        let cells: Vec<&str> = rows
            .iter()
            .map(|r| r.get(k).map_or("", String::as_str))
            .collect();
        d.set_item(name, column(py, &cells)?)?;
    }
    Ok(d.into_any())
}

/// The rows of a CSV file, read by Python's `csv` module (quoting as the writer did).
fn read_rows(py: Python<'_>, path: &Path) -> PyResult<Vec<Vec<String>>> {
    let builtins = py.import("builtins")?;
    let file = builtins.call_method1("open", (path, "r", -1, "utf-8", "strict", ""))?;
    let rows = py
        .import("csv")?
        .call_method1("reader", (&file,))
        .and_then(|reader| builtins.call_method1("list", (reader,)))
        .and_then(|rows| rows.extract());
    file.call_method0("close")?;
    rows
}

/// One column's cells as a numpy array, typed as `pandas.read_csv` types it: int64 where every
/// cell is an integer (uint64 where one is past int64, as a trial's seed may be), float64 where
/// every cell is a number or empty (empty: NaN, as a failed trial's or an unclassified pose's
/// cells are), else an array of str.
fn column<'py>(py: Python<'py>, cells: &[&str]) -> PyResult<Bound<'py, PyAny>> {
    if let Some(x) = all(cells, |c| c.parse::<i64>().ok()) {
        return Ok(PyArray1::from_vec(py, x).into_any());
    }
    if let Some(x) = all(cells, |c| c.parse::<u64>().ok()) {
        return Ok(PyArray1::from_vec(py, x).into_any());
    }
    let number = |c: &str| match c {
        "" => Some(f64::NAN),
        c => c.parse::<f64>().ok(),
    };
    if let Some(x) = all(cells, number) {
        return Ok(PyArray1::from_vec(py, x).into_any());
    }
    py.import("numpy")?
        .call_method1("array", (cells.to_vec(), "str"))
        .map(Bound::into_any)
}

/// `f` of every cell, if every cell has one.
fn all<T>(cells: &[&str], f: impl Fn(&str) -> Option<T>) -> Option<Vec<T>> {
    cells.iter().map(|c| f(c)).collect()
}
