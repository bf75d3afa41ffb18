//! The run directory's tables of a flow, written frame by frame as the run goes: `inserted.csv`
//! (`t,source,body,kind`: each body a source poured in, and which of its kinds it is),
//! `removed.csv` (`t,sink,body`) and `probes.csv` (`t,probe,quantity,value`), each for a scene
//! with sources, sinks or probes.

use crate::output::OutputError;
use crate::scene::Scene;
use crate::world::{Insertion, Removal, World};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// One CSV file written line by line.
struct CsvLog {
    out: BufWriter<File>,
    path: PathBuf,
}

impl CsvLog {
    /// Creates (truncates) `path` with `header`.
    fn create(path: PathBuf, header: &str) -> Result<CsvLog, OutputError> {
        let io = |e| OutputError::new(&path, e);
        let mut out = BufWriter::new(File::create(&path).map_err(io)?);
        writeln!(out, "{header}").map_err(io)?;
        Ok(CsvLog { out, path })
    }

    fn line(&mut self, args: std::fmt::Arguments) -> Result<(), OutputError> {
        writeln!(self.out, "{args}").map_err(|e| OutputError::new(&self.path, e))
    }

    fn finish(mut self) -> Result<(), OutputError> {
        self.out
            .flush()
            .map_err(|e| OutputError::new(&self.path, e))
    }
}

/// The names of the tables, and whether `scene` writes each.
fn tables(scene: &Scene) -> [(&'static str, bool); 3] {
    [
        ("inserted.csv", !scene.sources.is_empty()),
        ("removed.csv", !scene.sinks.is_empty()),
        ("probes.csv", !scene.probes.is_empty()),
    ]
}

/// The tables a run of `scene` writes in `dir`.
pub struct FlowTables {
    inserted: Option<CsvLog>,
    removed: Option<CsvLog>,
    probes: Option<CsvLog>,
    insertions: Vec<Insertion>,
    removals: Vec<Removal>,
}

impl FlowTables {
    /// The tables of `scene` in `dir`, created with their headers; `None` for a scene with no
    /// sources, sinks or probes.
    pub fn create(dir: &Path, scene: &Scene) -> Result<Option<FlowTables>, OutputError> {
        let [inserted, removed, probes] = tables(scene);
        let open = |(name, on): (&str, bool), header: &str| match on {
            true => CsvLog::create(dir.join(name), header).map(Some),
            false => Ok(None),
        };
        let t = FlowTables {
            inserted: open(inserted, "t,source,body,kind")?,
            removed: open(removed, "t,sink,body")?,
            probes: open(probes, "t,probe,quantity,value")?,
            insertions: Vec::new(),
            removals: Vec::new(),
        };
        let any = t.inserted.is_some() || t.removed.is_some() || t.probes.is_some();
        Ok(any.then_some(t))
    }

    /// The tables `scene` does not write, which an earlier run may have left in `dir`.
    pub fn not_written(dir: &Path, scene: &Scene) -> Vec<PathBuf> {
        tables(scene)
            .into_iter()
            .filter(|(_, on)| !on)
            .map(|(name, _)| dir.join(name))
            .collect()
    }

    /// Writes what the world recorded since the last call: the bodies it took in and out, and
    /// the probes' values over the frame that just ended.
    pub fn write(&mut self, world: &mut World) -> Result<(), OutputError> {
        if let Some(log) = self.inserted.as_mut() {
            self.insertions.clear();
            world.take_insertions(&mut self.insertions);
            for r in &self.insertions {
                log.line(format_args!("{},{},{},{}", r.t, r.by, r.body, r.kind))?;
            }
        }
        if let Some(log) = self.removed.as_mut() {
            self.removals.clear();
            world.take_removals(&mut self.removals);
            for r in &self.removals {
                log.line(format_args!("{},{},{}", r.t, r.by, r.body))?;
            }
        }
        if let Some(log) = self.probes.as_mut() {
            for r in world.probe_rows() {
                log.line(format_args!(
                    "{},{},{},{}",
                    r.t, r.probe, r.quantity, r.value
                ))?;
            }
        }
        Ok(())
    }

    /// Hands every row written so far to the files.
    pub fn finish(self) -> Result<(), OutputError> {
        for log in [self.inserted, self.removed, self.probes]
            .into_iter()
            .flatten()
        {
            log.finish()?;
        }
        Ok(())
    }
}
