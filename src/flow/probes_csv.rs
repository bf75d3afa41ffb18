//! `probes.csv`: the probes' values at every frame in long form, `t,probe,quantity,value`.

use crate::output::OutputError;
use crate::world::{ProbeRow, World};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes `probes.csv` as the frames go.
pub struct ProbesWriter {
    out: BufWriter<File>,
    path: PathBuf,
    scratch: Vec<ProbeRow>,
}

impl ProbesWriter {
    /// Creates (truncates) the file and writes the header.
    pub fn create(path: &Path) -> Result<ProbesWriter, OutputError> {
        let io = |e| OutputError::new(path, e);
        let mut out = BufWriter::new(File::create(path).map_err(io)?);
        writeln!(out, "t,probe,quantity,value").map_err(io)?;
        Ok(ProbesWriter {
            out,
            path: path.to_path_buf(),
            scratch: Vec::new(),
        })
    }

    /// Writes the probes' values over the frame that just ended.
    pub fn write(&mut self, world: &mut World) -> Result<(), OutputError> {
        self.scratch.clear();
        world.take_probe_rows(&mut self.scratch);
        for r in &self.scratch {
            writeln!(self.out, "{},{},{},{}", r.t, r.probe, r.quantity, r.value)
                .map_err(|e| OutputError::new(&self.path, e))?;
        }
        Ok(())
    }

    /// Hands every row written so far to the file.
    pub fn finish(mut self) -> Result<(), OutputError> {
        self.out
            .flush()
            .map_err(|e| OutputError::new(&self.path, e))
    }
}
