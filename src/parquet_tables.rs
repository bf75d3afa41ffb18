//! Parquet beside CSV: the tables the command line writes (`frames`, `events`, a batch's
//! `trials` and `poses`) as Parquet files with the same columns (`--format parquet`), readable by
//! pandas, polars and DuckDB. Numbers are float64, names and kinds UTF-8 strings; an empty CSV
//! cell (a failed trial's results) is a null.
//!
//! [`ParquetTable`] buffers rows column by column and writes a row group every
//! [`ROW_GROUP`] rows, so a long run streams to disk as the CSV writers do; [`csv_to_parquet`]
//! turns a CSV table already written (a batch's) into its Parquet twin.

use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows per row group (a 10 000-body frame is one group of 10 000 rows at most eight frames).
pub const ROW_GROUP: usize = 1 << 16;

/// The kind of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// float64, never null.
    Number,
    /// float64 or null.
    MaybeNumber,
    /// UTF-8 text.
    Text,
}

/// One column's buffered values.
enum Values {
    Number(Vec<f64>),
    MaybeNumber(Vec<Option<f64>>),
    Text(Vec<ByteArray>),
}

/// A Parquet file being written row group by row group.
pub struct ParquetTable {
    writer: Option<SerializedFileWriter<File>>,
    path: PathBuf,
    columns: Vec<Values>,
    rows: usize,
}

/// Why a Parquet table could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ParquetError {
    /// The file.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

impl ParquetTable {
    /// Creates (truncates) `path` for a table of `columns` (name, kind) in order.
    pub fn create(path: &Path, columns: &[(&str, Kind)]) -> Result<ParquetTable, ParquetError> {
        let err = |m: String| ParquetError {
            path: path.display().to_string(),
            message: m,
        };
        let fields = columns
            .iter()
            .map(|&(name, kind)| {
                let (physical, repetition) = match kind {
                    Kind::Number => (
                        parquet::basic::Type::DOUBLE,
                        parquet::basic::Repetition::REQUIRED,
                    ),
                    Kind::MaybeNumber => (
                        parquet::basic::Type::DOUBLE,
                        parquet::basic::Repetition::OPTIONAL,
                    ),
                    Kind::Text => (
                        parquet::basic::Type::BYTE_ARRAY,
                        parquet::basic::Repetition::REQUIRED,
                    ),
                };
                let mut field =
                    Type::primitive_type_builder(name, physical).with_repetition(repetition);
                if kind == Kind::Text {
                    field = field.with_logical_type(Some(parquet::basic::LogicalType::String));
                }
                field.build().map(Arc::new).map_err(|e| err(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let schema = Type::group_type_builder("schema")
            .with_fields(fields)
            .build()
            .map_err(|e| err(e.to_string()))?;
        let file = File::create(path).map_err(|e| err(e.to_string()))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build();
        let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
            .map_err(|e| err(e.to_string()))?;
        let columns = columns
            .iter()
            .map(|&(_, kind)| match kind {
                Kind::Number => Values::Number(Vec::new()),
                Kind::MaybeNumber => Values::MaybeNumber(Vec::new()),
                Kind::Text => Values::Text(Vec::new()),
            })
            .collect();
        Ok(ParquetTable {
            writer: Some(writer),
            path: path.to_path_buf(),
            columns,
            rows: 0,
        })
    }

    fn error(&self, message: impl ToString) -> ParquetError {
        ParquetError {
            path: self.path.display().to_string(),
            message: message.to_string(),
        }
    }

    /// Adds a number to column `k` of the row being built.
    pub fn number(&mut self, k: usize, x: f64) {
        match &mut self.columns[k] {
            Values::Number(v) => v.push(x),
            Values::MaybeNumber(v) => v.push(Some(x)),
            Values::Text(_) => panic!("column {k} holds text"),
        }
    }

    /// Adds a null to (optional number) column `k` of the row being built.
    pub fn null(&mut self, k: usize) {
        match &mut self.columns[k] {
            Values::MaybeNumber(v) => v.push(None),
            _ => panic!("column {k} cannot be null"),
        }
    }

    /// Adds text to column `k` of the row being built.
    pub fn text(&mut self, k: usize, s: &str) {
        match &mut self.columns[k] {
            Values::Text(v) => v.push(ByteArray::from(s)),
            _ => panic!("column {k} holds numbers"),
        }
    }

    /// Ends the row being built (each column given one value); writes a row group when
    /// [`ROW_GROUP`] rows are buffered.
    pub fn end_row(&mut self) -> Result<(), ParquetError> {
        self.rows += 1;
        if self.rows >= ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the buffered rows as a row group.
    fn flush(&mut self) -> Result<(), ParquetError> {
        if self.rows == 0 {
            return Ok(());
        }
        let Some(writer) = self.writer.as_mut() else {
            return Ok(());
        };
        let path = self.path.display().to_string();
        let err = |e: parquet::errors::ParquetError| ParquetError {
            path: path.clone(),
            message: e.to_string(),
        };
        let mut group = writer.next_row_group().map_err(err)?;
        for values in &mut self.columns {
            let mut column = group
                .next_column()
                .map_err(err)?
                .expect("a column writer per schema column");
            match values {
                Values::Number(v) => {
                    column
                        .typed::<DoubleType>()
                        .write_batch(v, None, None)
                        .map_err(err)?;
                    v.clear();
                }
                Values::MaybeNumber(v) => {
                    let levels: Vec<i16> = v.iter().map(|x| i16::from(x.is_some())).collect();
                    let present: Vec<f64> = v.iter().flatten().copied().collect();
                    column
                        .typed::<DoubleType>()
                        .write_batch(&present, Some(&levels), None)
                        .map_err(err)?;
                    v.clear();
                }
                Values::Text(v) => {
                    column
                        .typed::<ByteArrayType>()
                        .write_batch(v, None, None)
                        .map_err(err)?;
                    v.clear();
                }
            }
            column.close().map_err(err)?;
        }
        group.close().map_err(err)?;
        self.rows = 0;
        Ok(())
    }

    /// Writes the last row group and the file's footer.
    pub fn finish(mut self) -> Result<(), ParquetError> {
        self.flush()?;
        if let Some(w) = self.writer.take() {
            w.close().map_err(|e| self.error(e))?;
        }
        Ok(())
    }
}

/// Writes the CSV table at `csv` (a header, then rows) as Parquet at `parquet`, with the same
/// columns: a column whose every non-empty cell is a number is float64 (nullable where a cell is
/// empty), any other is text.
pub fn csv_to_parquet(csv: &Path, parquet: &Path) -> Result<(), ParquetError> {
    let text = std::fs::read_to_string(csv).map_err(|e| ParquetError {
        path: csv.display().to_string(),
        message: e.to_string(),
    })?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let kinds: Vec<Kind> = (0..header.len())
        .map(|k| {
            let cells = rows.iter().map(|r| r.get(k).copied().unwrap_or(""));
            let mut empty = false;
            for c in cells {
                if c.is_empty() {
                    empty = true;
                } else if c.parse::<f64>().is_err() {
                    return Kind::Text;
                }
            }
            if empty {
                Kind::MaybeNumber
            } else {
                Kind::Number
            }
        })
        .collect();
    let columns: Vec<(&str, Kind)> = header.iter().copied().zip(kinds.iter().copied()).collect();
    let mut table = ParquetTable::create(parquet, &columns)?;
    for row in &rows {
        for (k, kind) in kinds.iter().enumerate() {
            let cell = row.get(k).copied().unwrap_or("");
            match kind {
                Kind::Text => table.text(k, cell),
                _ => match cell.parse::<f64>() {
                    Ok(x) => table.number(k, x),
                    Err(_) => table.null(k),
                },
            }
        }
        table.end_row()?;
    }
    table.finish()
}

/// Reads a Parquet table back as CSV text (a header, then a row per record; numbers as the
/// shortest text that reads back to the same `f64`, a null as an empty cell): how the readers of
/// a run's `frames.csv` take a `frames.parquet`.
pub fn read_as_csv(path: &Path) -> Result<String, ParquetError> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let err = |m: String| ParquetError {
        path: path.display().to_string(),
        message: m,
    };
    let file = File::open(path).map_err(|e| err(e.to_string()))?;
    let reader = SerializedFileReader::new(file).map_err(|e| err(e.to_string()))?;
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let names: Vec<&str> = schema.columns().iter().map(|c| c.name()).collect();
    let mut text = names.join(",") + "\n";
    for row in reader.get_row_iter(None).map_err(|e| err(e.to_string()))? {
        let row = row.map_err(|e| err(e.to_string()))?;
        let cells: Vec<String> = row
            .get_column_iter()
            .map(|(_, f)| match f {
                Field::Double(x) => format!("{x}"),
                Field::Str(s) => s.clone(),
                Field::Null => String::new(),
                other => other.to_string(),
            })
            .collect();
        text += &cells.join(",");
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    /// A CSV table with numbers, text and empty cells reads back from its Parquet twin cell for
    /// cell, across several row groups.
    #[test]
    fn csv_tables_read_back_from_parquet() {
        let dir = std::env::temp_dir().join(format!("tumble-parquet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (csv, pq) = (dir.join("t.csv"), dir.join("t.parquet"));
        let mut text = String::from("trial,name,value\n");
        let n = ROW_GROUP + 10;
        for i in 0..n {
            let value = match i % 7 {
                0 => String::new(),
                _ => format!("{}", i as f64 * 0.1),
            };
            text += &format!("{i},b{},{value}\n", i % 3);
        }
        std::fs::write(&csv, &text).unwrap();
        csv_to_parquet(&csv, &pq).unwrap();
        let reader = SerializedFileReader::new(File::open(&pq).unwrap()).unwrap();
        assert_eq!(reader.metadata().num_row_groups(), 2);
        let rows: Vec<_> = reader
            .get_row_iter(None)
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(rows.len(), n);
        for (i, row) in rows.iter().enumerate() {
            let cells: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
            assert_eq!(cells[0], &Field::Double(i as f64));
            assert_eq!(cells[1], &Field::Str(format!("b{}", i % 3)));
            match i % 7 {
                0 => assert_eq!(cells[2], &Field::Null),
                _ => assert_eq!(cells[2], &Field::Double(i as f64 * 0.1)),
            }
        }
        // And back as CSV text, cell for cell.
        let back = read_as_csv(&pq).unwrap();
        assert_eq!(back.lines().count(), text.lines().count());
        for (a, b) in back.lines().zip(text.lines()).skip(1) {
            let (a, b): (Vec<&str>, Vec<&str>) = (a.split(',').collect(), b.split(',').collect());
            assert_eq!(a[1], b[1]);
            for k in [0, 2] {
                assert_eq!(a[k].parse::<f64>().ok(), b[k].parse::<f64>().ok());
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
