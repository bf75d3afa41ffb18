//! The run directory's tables of a flow, written frame by frame as the run goes: `inserted`
//! (`t,source,body,kind`: each body a source poured in, and which of its kinds it is),
//! `removed` (`t,sink,body`) and `probes` (`t,probe,quantity,value`), each for a scene with
//! sources, sinks or probes, in the run's table format (`.csv` or `.parquet`, as frames and
//! events).

use crate::output::{Cell, OutputError, RowTable, TableFormat};
use crate::scene::Scene;
use crate::world::{Insertion, Removal, World};
use std::path::{Path, PathBuf};

/// The tables' names, headers and name columns, and whether `scene` writes each.
fn tables(scene: &Scene) -> [(&'static str, &'static str, &'static [&'static str], bool); 3] {
    [
        (
            "inserted",
            "t,source,body,kind",
            &["source", "body"],
            !scene.sources.is_empty(),
        ),
        (
            "removed",
            "t,sink,body",
            &["sink", "body"],
            !scene.sinks.is_empty(),
        ),
        (
            "probes",
            "t,probe,quantity,value",
            &["probe", "quantity"],
            !scene.probes.is_empty(),
        ),
    ]
}

/// The tables a run of `scene` writes in `dir`.
pub struct FlowTables {
    inserted: Option<RowTable>,
    removed: Option<RowTable>,
    probes: Option<RowTable>,
    insertions: Vec<Insertion>,
    removals: Vec<Removal>,
}

impl FlowTables {
    /// The tables of `scene` in `dir` in `format`, created with their headers; `None` for a
    /// scene with no sources, sinks or probes.
    pub fn create(
        dir: &Path,
        scene: &Scene,
        format: TableFormat,
    ) -> Result<Option<FlowTables>, OutputError> {
        let [inserted, removed, probes] = tables(scene).map(|(name, header, text, on)| {
            let path = dir.join(format!("{name}.{}", format.extension()));
            on.then(|| RowTable::create(&path, header, text, format))
                .transpose()
        });
        let t = FlowTables {
            inserted: inserted?,
            removed: removed?,
            probes: probes?,
            insertions: Vec::new(),
            removals: Vec::new(),
        };
        let any = t.inserted.is_some() || t.removed.is_some() || t.probes.is_some();
        Ok(any.then_some(t))
    }

    /// The files of these tables that a run of `scene` in `format` does not write, which an
    /// earlier run may have left in `dir`: every format's of the tables it does not keep, and
    /// the other format's of those it does.
    pub fn not_written(dir: &Path, scene: &Scene, format: TableFormat) -> Vec<PathBuf> {
        let mut stale = Vec::new();
        for (name, _, _, on) in tables(scene) {
            for other in [TableFormat::Csv, TableFormat::Parquet] {
                if !on || other != format {
                    stale.push(dir.join(format!("{name}.{}", other.extension())));
                }
            }
        }
        stale
    }

    /// Writes what the world recorded since the last call: the bodies it took in and out, and
    /// the probes' values over the frame that just ended.
    pub fn write(&mut self, world: &mut World) -> Result<(), OutputError> {
        if let Some(table) = self.inserted.as_mut() {
            self.insertions.clear();
            world.take_insertions(&mut self.insertions);
            for r in &self.insertions {
                table.row(&[
                    Cell::Number(r.t),
                    Cell::Text(&r.by),
                    Cell::Text(&r.body),
                    Cell::Number(f64::from(r.kind)),
                ])?;
            }
            table.end_frame()?;
        }
        if let Some(table) = self.removed.as_mut() {
            self.removals.clear();
            world.take_removals(&mut self.removals);
            for r in &self.removals {
                table.row(&[Cell::Number(r.t), Cell::Text(&r.by), Cell::Text(&r.body)])?;
            }
            table.end_frame()?;
        }
        if let Some(table) = self.probes.as_mut() {
            for r in world.probe_rows() {
                table.row(&[
                    Cell::Number(r.t),
                    Cell::Text(&r.probe),
                    Cell::Text(r.quantity),
                    Cell::Number(r.value),
                ])?;
            }
            table.end_frame()?;
        }
        Ok(())
    }

    /// Writes out every row so far and closes the files.
    pub fn finish(self) -> Result<(), OutputError> {
        for table in [self.inserted, self.removed, self.probes]
            .into_iter()
            .flatten()
        {
            table.finish()?;
        }
        Ok(())
    }
}
