//! `tumble render`, `tumble view` and `tumble export`: a finished run's pictures, page and glTF.

use crate::Failure;
use clap::Args;
use indicatif::ProgressBar;
use std::io::IsTerminal;
use std::path::PathBuf;
use tumble::plural::count;

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// The run's output directory (with summary.json and frames.csv).
    run_dir: PathBuf,
    /// Output directory [default: RUN_DIR/render].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Picture width in pixels.
    #[arg(long, value_name = "W", default_value_t = 640, value_parser = super::flag_values::pixels)]
    width: u32,
    /// Picture height in pixels.
    #[arg(long, value_name = "H", default_value_t = 480, value_parser = super::flag_values::pixels)]
    height: u32,
    /// Render every K-th frame, starting with the first.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = super::flag_values::every)]
    every: u64,
    /// Camera eye, optionally the point looked at and the vertical field of view in degrees:
    /// EX,EY,EZ[,TX,TY,TZ[,FOV]] [default: framing the moving bodies over the run].
    #[arg(
        long,
        value_name = "EX,EY,EZ[,TX,TY,TZ[,FOV]]",
        allow_hyphen_values = true
    )]
    camera: Option<tumble::render::CameraSpec>,
    /// Draw each frame's impulses from RUN_DIR/events.csv (`tumble run --events`) as arrows
    /// scaled by their magnitude.
    #[arg(long)]
    contacts: bool,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The run's output directory (with summary.json and frames.csv).
    run_dir: PathBuf,
    /// The glTF binary to write (its directory is created).
    #[arg(long, value_name = "FILE.glb")]
    gltf: PathBuf,
}

#[derive(Args, Debug)]
pub struct ViewArgs {
    /// The run's output directory (with summary.json and frames.csv).
    run_dir: PathBuf,
    /// The HTML file to write (its directory is created) [default: RUN_DIR/view.html].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Keep every K-th frame (the first and the last included), for long runs.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = super::flag_values::every)]
    every: u64,
}

/// `tumble render`: read the run back, draw its frames, write the PNGs and the GIF.
pub fn render(args: &RenderArgs) -> Result<(), Failure> {
    use tumble::render::{self, RenderError, RenderOptions};
    let run = tumble::run_record::RunRecord::load(&args.run_dir)
        .map_err(|e| Failure::invalid(e.to_string()))?;
    let options = RenderOptions {
        out: args
            .out
            .clone()
            .unwrap_or_else(|| render::default_out(&args.run_dir)),
        width: args.width,
        height: args.height,
        every: usize::try_from(args.every).unwrap_or(usize::MAX),
        camera: args.camera,
        contacts: args.contacts,
    };
    let total = run.frames.len().div_ceil(options.every) as u64;
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(total).with_style(super::progress::style("pictures"))
    } else {
        ProgressBar::hidden()
    };
    let report = render::render(&run, &options, |done, _| bar.set_position(done as u64)).map_err(
        |e| match e {
            RenderError::Input(m) => Failure::invalid(m),
            RenderError::Gpu(tumble::render::GpuRenderError::Device(d)) => {
                Failure::invalid(format!("cannot render: {d}"))
            }
            other => Failure::failed(other.to_string()),
        },
    )?;
    bar.finish_and_clear();
    println!(
        "{} pictures {}x{} on {} in {}: draw {:.3} s (median {:.1} ms per picture, first {:.1} ms), \
         PNG and GIF encoding {:.3} s",
        report.pictures,
        options.width,
        options.height,
        report.adapter,
        options.out.display(),
        report.draw_seconds.iter().sum::<f64>(),
        1e3 * report.median_draw_seconds(),
        1e3 * report.draw_seconds.first().copied().unwrap_or(0.0),
        report.encode_seconds,
    );
    if !report.cut_away.is_empty() {
        // A long list (a maze of walls) is cut short: the count says the rest.
        const SHOWN: usize = 6;
        let mut names = report.cut_away[..report.cut_away.len().min(SHOWN)].join(", ");
        if report.cut_away.len() > SHOWN {
            names += &format!(" and {} more", report.cut_away.len() - SHOWN);
        }
        println!(
            "not drawn, as they stood between the camera and the moving bodies: {names} \
             (their shadows are; --camera draws everything)"
        );
    }
    Ok(())
}

/// `tumble export`: read the run back and write it as one glTF binary.
pub fn export(args: &ExportArgs) -> Result<(), Failure> {
    let run = tumble::run_record::RunRecord::load(&args.run_dir)
        .map_err(|e| Failure::invalid(e.to_string()))?;
    let r =
        tumble::export::write_glb(&run, &args.gltf).map_err(|e| Failure::failed(e.to_string()))?;
    println!(
        "wrote {}: {} ({}, {}), {} over {:.3} s as keyframes of {}, {:.1} kB",
        args.gltf.display(),
        count(r.nodes, "node", "nodes"),
        count(r.meshes, "mesh", "meshes"),
        count(r.triangles, "triangle", "triangles"),
        count(r.frames, "frame", "frames"),
        r.seconds,
        count(r.channels, "animation channel", "animation channels"),
        r.bytes as f64 / 1e3,
    );
    Ok(())
}

/// `tumble view`: read the run back, write the page, report its size (and warn when a browser
/// would struggle with it).
pub fn view(args: &ViewArgs) -> Result<(), Failure> {
    use tumble::view::{self, ViewError, ViewOptions};
    let run = tumble::run_record::RunRecord::load(&args.run_dir)
        .map_err(|e| Failure::invalid(e.to_string()))?;
    let options = ViewOptions {
        out: args
            .out
            .clone()
            .unwrap_or_else(|| view::default_out(&args.run_dir)),
        every: usize::try_from(args.every).unwrap_or(usize::MAX),
    };
    let report = view::write(&run, &options).map_err(|e| match e {
        ViewError::Input(m) => Failure::invalid(m),
        ViewError::Output(m) => Failure::failed(m),
    })?;
    println!("{}", report.describe());
    if let Some(warning) = report.warning() {
        eprintln!("warning: {warning}");
    }
    Ok(())
}
