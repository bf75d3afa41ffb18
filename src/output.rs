//! Output files: `frames.csv` (every non-fixed body at every frame), `events.csv` (every impulse,
//! with `tumble run --events`) and `summary.json` (the end state, counters and timings of a run).
//!
//! Numbers are written as the shortest text that reads back to the same `f64` bits, so the files
//! lose nothing and stay as small as the values allow: Rust's `{}` formatting for magnitudes in
//! [1e-5, 1e16) and zero, its `{:e}` formatting outside (where `{}` would print hundreds of
//! digits, e.g. for 1e-300).

use crate::body::Motion;
use crate::parquet_tables::{Kind, ParquetTable};
use crate::world::{BodyState, Counts, ImpulseEvent, World};
use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

/// The first line of `frames.csv`.
pub const FRAMES_HEADER: &str = "t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz";

/// An I/O failure while writing an output file; the message names the path.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct OutputError {
    /// The file or directory being written.
    pub path: PathBuf,
    /// The underlying error.
    #[source]
    pub source: std::io::Error,
}

impl OutputError {
    pub(crate) fn new(path: &Path, source: std::io::Error) -> Self {
        OutputError {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The format of the tables a run writes (`--format csv|parquet`): the same columns either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated text, numbers as the shortest text that reads back to the same `f64`.
    #[default]
    Csv,
    /// Parquet (float64 numbers, UTF-8 names; see [`crate::parquet_tables`]).
    Parquet,
}

impl TableFormat {
    /// The file extension: `csv` or `parquet`.
    pub fn extension(self) -> &'static str {
        match self {
            TableFormat::Csv => "csv",
            TableFormat::Parquet => "parquet",
        }
    }
}

/// Where a table's rows go.
enum Table {
    Csv(WholeFrames),
    Parquet(Box<ParquetTable>),
}

impl Table {
    /// Creates (truncates) `path` as a table of `header`'s columns (comma-separated), the
    /// `text` ones UTF-8 strings and the others numbers.
    fn create(
        path: &Path,
        header: &str,
        text: &[&str],
        format: TableFormat,
    ) -> Result<Table, OutputError> {
        match format {
            TableFormat::Csv => create_csv(path, header).map(Table::Csv),
            TableFormat::Parquet => {
                let columns: Vec<(&str, Kind)> = header
                    .split(',')
                    .map(|c| match text.contains(&c) {
                        true => (c, Kind::Text),
                        false => (c, Kind::Number),
                    })
                    .collect();
                ParquetTable::create(path, &columns)
                    .map(|t| Table::Parquet(Box::new(t)))
                    .map_err(|e| parquet_error(path, e))
            }
        }
    }

    /// Opens the CSV table at `path` written up to `bytes` (a checkpoint's mark) to go on
    /// writing it: what was written after the mark is cut off. Parquet tables end with a footer
    /// and cannot be reopened.
    fn reopen(path: &Path, bytes: u64, format: TableFormat) -> Result<Table, OutputError> {
        if format == TableFormat::Parquet {
            return Err(OutputError::new(path, no_parquet_checkpoints()));
        }
        let map = |e| OutputError::new(path, e);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(map)?;
        let len = file.metadata().map_err(map)?.len();
        if len < bytes {
            return Err(map(std::io::Error::other(format!(
                "the file has {len} bytes, fewer than the {bytes} it had at the checkpoint"
            ))));
        }
        file.set_len(bytes).map_err(map)?;
        file.seek(std::io::SeekFrom::End(0)).map_err(map)?;
        Ok(Table::Csv(WholeFrames {
            file,
            buf: Vec::with_capacity(WholeFrames::CAPACITY),
        }))
    }

    /// Writes out what is buffered and syncs it to disk; returns the file's length in bytes (a
    /// mark to reopen it at). CSV only (see [`Table::reopen`]).
    fn sync(&mut self, path: &Path) -> Result<u64, OutputError> {
        let map = |e| OutputError::new(path, e);
        match self {
            Table::Csv(out) => {
                out.write_out().map_err(map)?;
                out.file.sync_data().map_err(map)?;
                out.file.stream_position().map_err(map)
            }
            Table::Parquet(_) => Err(map(no_parquet_checkpoints())),
        }
    }

    /// Flushes and closes it.
    fn finish(self, path: &Path) -> Result<(), OutputError> {
        match self {
            Table::Csv(mut out) => out.write_out().map_err(|e| OutputError::new(path, e)),
            Table::Parquet(t) => t.finish().map_err(|e| parquet_error(path, e)),
        }
    }

    /// A frame's rows are all written: a CSV hands them to the file once a buffer's worth has
    /// gathered (Parquet writes whole row groups on its own).
    fn end_frame(&mut self, path: &Path) -> Result<(), OutputError> {
        match self {
            Table::Csv(out) if out.buf.len() >= WholeFrames::CAPACITY => {
                out.write_out().map_err(|e| OutputError::new(path, e))
            }
            _ => Ok(()),
        }
    }

    /// Hands every finished row to the file now (a summary or checkpoint is about to name it).
    fn flush(&mut self, path: &Path) -> Result<(), OutputError> {
        match self {
            Table::Csv(out) => out.write_out().map_err(|e| OutputError::new(path, e)),
            Table::Parquet(_) => Ok(()),
        }
    }
}

/// A CSV's rows gathered in memory and handed to the file at frame ends only, so that a run
/// killed at any moment (`kill -9`, a cluster's time limit) leaves whole lines of whole frames:
/// a `BufWriter` flushes when it is full, in the middle of a row.
struct WholeFrames {
    file: File,
    buf: Vec<u8>,
}

impl WholeFrames {
    /// About a 10 000-body frame of text.
    const CAPACITY: usize = 1 << 21;

    /// One `write` of everything gathered: a write to a regular file is not cut short by a
    /// signal, so the file grows by whole frames.
    fn write_out(&mut self) -> std::io::Result<()> {
        self.file.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

impl Write for WholeFrames {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Why a Parquet table cannot be marked or reopened.
fn no_parquet_checkpoints() -> std::io::Error {
    std::io::Error::other(
        "a Parquet table cannot be checkpointed or resumed (its footer is written at the end); \
         use --format csv",
    )
}

fn parquet_error(path: &Path, e: crate::parquet_tables::ParquetError) -> OutputError {
    OutputError::new(path, std::io::Error::other(e.message))
}

/// Creates the output directory (and its parents) if needed.
pub fn create_dir(dir: &Path) -> Result<(), OutputError> {
    std::fs::create_dir_all(dir).map_err(|e| OutputError::new(dir, e))
}

/// Creates (truncates) a CSV file and writes its header line.
fn create_csv(path: &Path, header: &str) -> Result<WholeFrames, OutputError> {
    let file = File::create(path).map_err(|e| OutputError::new(path, e))?;
    let mut out = WholeFrames {
        file,
        buf: Vec::with_capacity(WholeFrames::CAPACITY),
    };
    writeln!(out, "{header}").map_err(|e| OutputError::new(path, e))?;
    out.write_out().map_err(|e| OutputError::new(path, e))?;
    Ok(out)
}

/// Which frames and bodies `frames.csv` keeps (`tumble run --every K --record NAME,…`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameSelection {
    /// Keep every `every`-th frame (frame 0 first; 0 or 1: all), and the last.
    pub every: u64,
    /// Keep only these bodies (indices, ascending); `None`: every non-fixed body.
    pub bodies: Option<Vec<usize>>,
}

impl FrameSelection {
    /// Every frame of every non-fixed body.
    pub const ALL: FrameSelection = FrameSelection {
        every: 1,
        bodies: None,
    };

    /// Every `every`-th frame of the bodies `record` names (each a body's name, or a lattice's:
    /// every body named `NAME_<number>`); an empty `record`: every non-fixed body. A name that
    /// matches no body is an error naming it.
    pub fn new(every: u64, record: &[String], world: &World) -> Result<FrameSelection, String> {
        if record.is_empty() {
            return Ok(FrameSelection {
                every,
                bodies: None,
            });
        }
        let mut keep = vec![false; world.body_count()];
        for name in record {
            let lattice = |body: &str| crate::scene::generated_by(body, name);
            let mut any = false;
            for (i, k) in keep.iter_mut().enumerate() {
                let body = world.body_name(i);
                if body == name || lattice(body) {
                    *k = true;
                    any = true;
                }
            }
            if !any {
                return Err(format!(
                    "--record {name}: names no body or lattice of the scene"
                ));
            }
        }
        Ok(FrameSelection {
            every,
            bodies: Some((0..keep.len()).filter(|&i| keep[i]).collect()),
        })
    }
}

/// Where a [`FramesWriter`]'s table stood at a checkpoint: its length and what decides the rows
/// to come (frames offered so far, time of the last one written).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FramesMark {
    /// Bytes of the file, header included.
    pub bytes: u64,
    /// Frames offered so far (which of the next are kept with `--every`).
    pub offered: u64,
    /// Time of the last frame written (the end of a thinned run is written unless it was).
    pub last_written: Option<f64>,
}

/// Where an [`EventsWriter`]'s table stood at a checkpoint.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EventsMark {
    /// Bytes of the file, header included.
    pub bytes: u64,
    /// Rows written so far.
    pub rows: u64,
}

/// A buffered `frames.csv` writer: the header on creation, then one row per body per frame (of
/// the frames and bodies its [`FrameSelection`] keeps).
pub struct FramesWriter {
    out: Table,
    path: PathBuf,
    selection: FrameSelection,
    /// Frames offered so far, and the time of the last one written.
    offered: u64,
    last_written: Option<f64>,
}

impl FramesWriter {
    /// Creates (truncates) the file and writes the header; every frame of every non-fixed body
    /// is kept.
    pub fn create(path: &Path) -> Result<FramesWriter, OutputError> {
        FramesWriter::create_with(path, FrameSelection::ALL)
    }

    /// Creates (truncates) the file and writes the header; `selection` says which frames and
    /// bodies are kept.
    pub fn create_with(
        path: &Path,
        selection: FrameSelection,
    ) -> Result<FramesWriter, OutputError> {
        FramesWriter::create_as(path, selection, TableFormat::Csv)
    }

    /// Creates (truncates) the file in `format` and writes the header; `selection` says which
    /// frames and bodies are kept.
    pub fn create_as(
        path: &Path,
        selection: FrameSelection,
        format: TableFormat,
    ) -> Result<FramesWriter, OutputError> {
        Ok(FramesWriter {
            out: Table::create(path, FRAMES_HEADER, &["body"], format)?,
            path: path.to_path_buf(),
            selection,
            offered: 0,
            last_written: None,
        })
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes out and syncs every row so far and returns where the table stands, for a
    /// checkpoint ([`FramesWriter::reopen`] goes on from there). CSV only.
    pub fn mark(&mut self) -> Result<FramesMark, OutputError> {
        Ok(FramesMark {
            bytes: self.out.sync(&self.path)?,
            offered: self.offered,
            last_written: self.last_written,
        })
    }

    /// Reopens the CSV table at `path` as it was at `mark`, cutting off any rows written after
    /// it, to go on with the same `selection`: the rows it then writes are those the writer
    /// that made the mark would have written.
    pub fn reopen(
        path: &Path,
        selection: FrameSelection,
        format: TableFormat,
        mark: &FramesMark,
    ) -> Result<FramesWriter, OutputError> {
        Ok(FramesWriter {
            out: Table::reopen(path, mark.bytes, format)?,
            path: path.to_path_buf(),
            selection,
            offered: mark.offered,
            last_written: mark.last_written,
        })
    }

    /// Writes one row: time, body name and state.
    pub fn write_row(&mut self, t: f64, name: &str, s: &BodyState) -> Result<(), OutputError> {
        let map = |e| OutputError::new(&self.path, e);
        let values = s.to_array();
        match &mut self.out {
            Table::Csv(out) => {
                write!(out, "{},{}", Num(t), csv_field(name)).map_err(map)?;
                for x in values {
                    write!(out, ",{}", Num(x)).map_err(map)?;
                }
                writeln!(out).map_err(map)
            }
            Table::Parquet(table) => {
                table.number(0, t);
                table.text(1, name);
                for (k, x) in values.into_iter().enumerate() {
                    table.number(k + 2, x);
                }
                table.end_row().map_err(|e| parquet_error(&self.path, e))
            }
        }
    }

    /// Offers the frame `world` is at: if the selection keeps it (every `every`-th offered, the
    /// first included), writes one row per kept body at its current time (by default every
    /// non-fixed body: fixed bodies never move, so their rows would only repeat the scene).
    pub fn write_frame(&mut self, world: &World) -> Result<(), OutputError> {
        let every = self.selection.every.max(1);
        let keep = self.offered.is_multiple_of(every);
        self.offered += 1;
        if keep {
            self.write_now(world)?;
        }
        Ok(())
    }

    /// With frames thinned (`every` > 1), writes the frame `world` is at unless it was the last
    /// one written: the end of a thinned run is always in the file.
    pub fn write_last(&mut self, world: &World) -> Result<(), OutputError> {
        if self.selection.every > 1 && self.last_written != Some(world.time()) {
            self.write_now(world)?;
        }
        Ok(())
    }

    fn write_now(&mut self, world: &World) -> Result<(), OutputError> {
        self.write_rows(world)?;
        self.out.end_frame(&self.path)
    }

    fn write_rows(&mut self, world: &World) -> Result<(), OutputError> {
        let t = world.time();
        self.last_written = Some(t);
        match self.selection.bodies.take() {
            Some(bodies) => {
                let result = bodies
                    .iter()
                    .try_for_each(|&i| self.write_row(t, world.body_name(i), &world.body_state(i)));
                self.selection.bodies = Some(bodies);
                result
            }
            None => {
                for i in 0..world.body_count() {
                    if world.body_motion(i) != Motion::Fixed {
                        self.write_row(t, world.body_name(i), &world.body_state(i))?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Hands every row written so far to the file (whole frames; see [`Self::finish`]).
    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.out.flush(&self.path)
    }

    /// Flushes the buffer; call it before dropping so that errors are reported, not lost.
    pub fn finish(self) -> Result<(), OutputError> {
        self.out.finish(&self.path)
    }
}

/// The first line of `events.csv`.
pub const EVENTS_HEADER: &str = "t,kind,body_a,body_b,px,py,pz,nx,ny,nz,jn,jt,vn_before,vn_after";

/// A buffered `events.csv` writer: the header on creation, then one row per impulse, written as
/// the run goes (each frame's impulses at its end), so a run that fails keeps its log so far.
pub struct EventsWriter {
    out: Table,
    path: PathBuf,
    rows: u64,
    /// The impulses taken from the world, kept between frames so that its room is reused.
    scratch: Vec<ImpulseEvent>,
}

impl EventsWriter {
    /// Creates (truncates) the file and writes the header.
    pub fn create(path: &Path) -> Result<EventsWriter, OutputError> {
        EventsWriter::create_as(path, TableFormat::Csv)
    }

    /// Creates (truncates) the file in `format` and writes the header.
    pub fn create_as(path: &Path, format: TableFormat) -> Result<EventsWriter, OutputError> {
        Ok(EventsWriter {
            out: Table::create(path, EVENTS_HEADER, &["kind", "body_a", "body_b"], format)?,
            path: path.to_path_buf(),
            rows: 0,
            scratch: Vec::new(),
        })
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes out and syncs every row so far and returns where the table stands, for a
    /// checkpoint ([`EventsWriter::reopen`] goes on from there). CSV only.
    pub fn mark(&mut self) -> Result<EventsMark, OutputError> {
        Ok(EventsMark {
            bytes: self.out.sync(&self.path)?,
            rows: self.rows,
        })
    }

    /// Reopens the CSV table at `path` as it was at `mark`, cutting off any rows written after
    /// it.
    pub fn reopen(
        path: &Path,
        format: TableFormat,
        mark: &EventsMark,
    ) -> Result<EventsWriter, OutputError> {
        Ok(EventsWriter {
            out: Table::reopen(path, mark.bytes, format)?,
            path: path.to_path_buf(),
            rows: mark.rows,
            scratch: Vec::new(),
        })
    }

    /// Writes the impulses `world` recorded since the last call ([`World::take_events`]),
    /// naming the bodies.
    pub fn write_events(&mut self, world: &mut World) -> Result<(), OutputError> {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        world.take_events(&mut scratch);
        let map = |e| OutputError::new(&self.path, e);
        for e in scratch.iter() {
            let (a, b) = (world.event_body_name(e.a), world.event_body_name(e.b));
            let (p, n) = (e.point, e.normal);
            let values = [
                p.x,
                p.y,
                p.z,
                n.x,
                n.y,
                n.z,
                e.jn,
                e.jt,
                e.vn_before,
                e.vn_after,
            ];
            match &mut self.out {
                Table::Csv(out) => {
                    write!(
                        out,
                        "{},{},{},{}",
                        Num(e.t),
                        e.kind.as_str(),
                        csv_field(a),
                        csv_field(b)
                    )
                    .map_err(map)?;
                    for x in values {
                        write!(out, ",{}", Num(x)).map_err(map)?;
                    }
                    writeln!(out).map_err(map)?;
                }
                Table::Parquet(table) => {
                    table.number(0, e.t);
                    table.text(1, e.kind.as_str());
                    table.text(2, a);
                    table.text(3, b);
                    for (k, x) in values.into_iter().enumerate() {
                        table.number(k + 4, x);
                    }
                    table.end_row().map_err(|e| parquet_error(&self.path, e))?;
                }
            }
        }
        self.rows += scratch.len() as u64;
        self.scratch = scratch;
        self.out.end_frame(&self.path)
    }

    /// Hands every row written so far to the file (whole frames).
    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.out.flush(&self.path)
    }

    /// Flushes the buffer; call it before dropping so that errors are reported, not lost.
    pub fn finish(self) -> Result<(), OutputError> {
        self.out.finish(&self.path)
    }
}

/// A cell of a [`RowTable`] row.
#[derive(Clone, Copy, Debug)]
pub enum Cell<'a> {
    /// A name (UTF-8 text).
    Text(&'a str),
    /// A number (float64).
    Number(f64),
}

/// A table written row by row, in CSV or Parquet, with the numbers and names written as in
/// frames.csv and events.csv (the tables of a flow: `inserted`, `removed`, `probes`).
pub struct RowTable {
    out: Table,
    path: PathBuf,
}

impl RowTable {
    /// Creates (truncates) `path` as a table of `header`'s columns (comma-separated), the
    /// `text` ones names and the others numbers.
    pub fn create(
        path: &Path,
        header: &str,
        text: &[&str],
        format: TableFormat,
    ) -> Result<RowTable, OutputError> {
        Ok(RowTable {
            out: Table::create(path, header, text, format)?,
            path: path.to_path_buf(),
        })
    }

    /// Writes one row, its cells in the header's order.
    pub fn row(&mut self, cells: &[Cell]) -> Result<(), OutputError> {
        let map = |e| OutputError::new(&self.path, e);
        match &mut self.out {
            Table::Csv(out) => {
                for (k, cell) in cells.iter().enumerate() {
                    let sep = if k == 0 { "" } else { "," };
                    match *cell {
                        Cell::Text(s) => write!(out, "{sep}{}", csv_field(s)),
                        Cell::Number(x) => write!(out, "{sep}{}", Num(x)),
                    }
                    .map_err(map)?;
                }
                writeln!(out).map_err(map)
            }
            Table::Parquet(table) => {
                for (k, cell) in cells.iter().enumerate() {
                    match *cell {
                        Cell::Text(s) => table.text(k, s),
                        Cell::Number(x) => table.number(k, x),
                    }
                }
                table.end_row().map_err(|e| parquet_error(&self.path, e))
            }
        }
    }

    /// A frame's rows are all written (see [`FramesWriter::write_frame`]).
    pub fn end_frame(&mut self) -> Result<(), OutputError> {
        self.out.end_frame(&self.path)
    }

    /// Flushes and closes it; call it so that errors are reported, not lost.
    pub fn finish(self) -> Result<(), OutputError> {
        self.out.finish(&self.path)
    }
}

/// An `f64` formatted for the CSV: shortest round-trip text, in exponent form only for magnitudes
/// where the plain form would be long (see the module documentation).
struct Num(f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || (1e-5..1e16).contains(&a) || !a.is_finite() {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// A body name as a CSV field: quoted (RFC 4180) only when it contains a comma or a quote, so
/// ordinary names stay bare and the file stays trivially parseable.
fn csv_field(name: &str) -> std::borrow::Cow<'_, str> {
    if name.contains([',', '"']) {
        format!("\"{}\"", name.replace('"', "\"\"")).into()
    } else {
        name.into()
    }
}

/// One body in `summary.json`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BodySummary {
    /// The body's name.
    pub name: String,
    /// "dynamic", "fixed" or "kinematic".
    pub motion: &'static str,
    /// Position of the shape frame's origin (m).
    pub position: [f64; 3],
    /// Orientation as [w, x, y, z] (the scene's order, not glam's [x, y, z, w]).
    pub orientation: [f64; 4],
    /// Velocity (m/s).
    pub velocity: [f64; 3],
    /// Angular velocity (rad/s).
    pub angular_velocity: [f64; 3],
}

impl BodySummary {
    /// A body's summary entry from its state.
    pub fn new(name: &str, motion: Motion, s: &BodyState) -> BodySummary {
        let q = s.orientation;
        BodySummary {
            name: name.to_string(),
            motion: motion.as_str(),
            position: s.position.to_array(),
            orientation: [q.w, q.x, q.y, q.z],
            velocity: s.velocity.to_array(),
            angular_velocity: s.angular_velocity.to_array(),
        }
    }
}

/// The contents of `summary.json`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// The scene file.
    pub scene: String,
    /// "running" (rewritten every few seconds while the run goes; a run killed without warning
    /// leaves it so), "finished", "interrupted" (SIGINT or SIGTERM) or "failed".
    pub status: String,
    /// The backend that ran: "cpu" (the host's f64 path) or "gpu".
    pub backend: String,
    /// The GPU adapter's name, backend and type; `null` on the CPU backend.
    pub adapter: Option<String>,
    /// Simulated time reached (s).
    pub sim_time: f64,
    /// Wall-clock time of the simulation loop, output included (s).
    pub wall_time: f64,
    /// The world's counters.
    pub counts: Counts,
    /// Largest penetration depth seen (m).
    pub max_penetration: f64,
    /// The simulation error that stopped the run, or `null`.
    pub error: Option<String>,
    /// Every body (fixed ones included) at `sim_time`.
    pub bodies: Vec<BodySummary>,
    /// The run directory's copies of the scene and its files ([`crate::run_dir`]), when kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_scene: Option<crate::run_dir::StoredScene>,
}

impl Summary {
    /// The bodies of `world` at its current time, for [`Summary::bodies`].
    pub fn bodies_of(world: &World) -> Vec<BodySummary> {
        (0..world.body_count())
            .map(|i| {
                BodySummary::new(
                    world.body_name(i),
                    world.body_motion(i),
                    &world.body_state(i),
                )
            })
            .collect()
    }

    /// Writes the summary as pretty-printed JSON, atomically: into a temporary file beside it,
    /// synced, then renamed over it, so that a reader (or a run killed meanwhile, or a full
    /// disk) finds the old summary or the new one, never a torn one.
    pub fn write(&self, path: &Path) -> Result<(), OutputError> {
        write_atomically(path, |out| {
            serde_json::to_writer_pretty(&mut *out, self)?;
            writeln!(out)
        })
    }
}

/// Writes `path` through `fill` into `path` + `.tmp`, syncs it and renames it over `path`; on
/// failure the temporary file is removed and `path` is left as it was.
pub fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let written = (|| {
        let mut out = BufWriter::new(File::create(&tmp)?);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        OutputError::new(path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DQuat, DVec3};

    fn state() -> BodyState {
        BodyState {
            position: DVec3::new(0.1, -2.0, 3.5e-9),
            orientation: DQuat::from_xyzw(0.0, 0.0, 0.6, 0.8),
            velocity: DVec3::new(1.0, 0.0, -9.81),
            angular_velocity: DVec3::ZERO,
        }
    }

    #[test]
    fn rows_round_trip_at_full_precision() {
        let dir = std::env::temp_dir().join(format!("tumble-output-{}", std::process::id()));
        create_dir(&dir).unwrap();
        let path = dir.join("frames.csv");
        let mut w = FramesWriter::create(&path).unwrap();
        w.write_row(0.1 + 0.2, "a,b", &state()).unwrap();
        w.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(FRAMES_HEADER));
        assert_eq!(
            lines.next(),
            Some("0.30000000000000004,\"a,b\",0.1,-2,3.5e-9,0.8,0,0,0.6,1,0,-9.81,0,0,0")
        );
        assert_eq!(lines.next(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn numbers_are_short_and_exact() {
        for x in [
            0.0,
            -0.0,
            1.0,
            0.1,
            1e-5,
            9.99e15,
            1e16,
            1e308,
            -1e-300,
            5e-324,
            1.0 / 3.0,
        ] {
            let text = Num(x).to_string();
            assert!(text.len() <= 24, "{text}");
            assert_eq!(
                text.parse::<f64>().unwrap().to_bits(),
                x.to_bits(),
                "{text}"
            );
        }
        assert_eq!(Num(1e308).to_string(), "1e308");
        assert_eq!(Num(-2.5e-7).to_string(), "-2.5e-7");
        assert_eq!(Num(123.25).to_string(), "123.25");
        assert_eq!(Num(f64::NAN).to_string(), "NaN");
    }

    #[test]
    fn summary_orientation_is_w_first() {
        let b = BodySummary::new("ball", Motion::Kinematic, &state());
        assert_eq!(b.orientation, [0.8, 0.0, 0.0, 0.6]);
        assert_eq!(b.motion, "kinematic");
    }
}
