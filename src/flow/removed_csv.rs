//! `removed.csv`: one row per body a sink took out, `t,sink,body`, in the order they were.

use crate::output::OutputError;
use crate::world::{Removal, World};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes `removed.csv` as the frames go.
pub struct RemovedWriter {
    out: BufWriter<File>,
    path: PathBuf,
    rows: u64,
    scratch: Vec<Removal>,
}

impl RemovedWriter {
    /// Creates (truncates) the file and writes the header.
    pub fn create(path: &Path) -> Result<RemovedWriter, OutputError> {
        let io = |e| OutputError::new(path, e);
        let mut out = BufWriter::new(File::create(path).map_err(io)?);
        writeln!(out, "t,sink,body").map_err(io)?;
        Ok(RemovedWriter {
            out,
            path: path.to_path_buf(),
            rows: 0,
            scratch: Vec::new(),
        })
    }

    /// Writes the bodies the world took out since the last call.
    pub fn write(&mut self, world: &mut World) -> Result<(), OutputError> {
        self.scratch.clear();
        world.take_removals(&mut self.scratch);
        for r in &self.scratch {
            writeln!(self.out, "{},{},{}", r.t, r.by, r.body)
                .map_err(|e| OutputError::new(&self.path, e))?;
            self.rows += 1;
        }
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Hands every row written so far to the file.
    pub fn finish(mut self) -> Result<(), OutputError> {
        self.out
            .flush()
            .map_err(|e| OutputError::new(&self.path, e))
    }
}
