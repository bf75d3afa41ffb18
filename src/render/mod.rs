//! `tumble render RUN_DIR`: pictures of a finished run, headless. Reads the run back
//! ([`crate::run_record`]), draws every K-th frame with wgpu into an offscreen texture (shaded
//! bodies of every shape, fixed ones too, a floor grid, shadows from a shadow map, the
//! camera framing the moving bodies unless one is given, and then cutting away the fixed bodies
//! that would hide them) and writes `frame_00000.png`, … and
//! `animation.gif`. With `--contacts`, each frame's impulses from `events.csv` are drawn as
//! arrows. Works on any adapter wgpu finds, Mesa's lavapipe included.

pub mod camera;
mod contacts;
pub mod cutaway;
pub mod geometry;
mod gpu;

pub use camera::CameraSpec;
pub use gpu::RenderError as GpuRenderError;

use crate::run_record::{RecordedFrame, RunRecord};
use camera::{automatic_eye, view, View};
use cutaway::CutReport;
use geometry::Picture;
use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, RgbaImage};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What to render and where.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    /// Output directory (created).
    pub out: PathBuf,
    /// Picture size (pixels).
    pub width: u32,
    /// Picture size (pixels).
    pub height: u32,
    /// Render every K-th frame (K ≥ 1), starting with the first.
    pub every: usize,
    /// The camera; `None`: frame the moving bodies automatically.
    pub camera: Option<CameraSpec>,
    /// Draw the impulses of `RUN_DIR/events.csv` as arrows.
    pub contacts: bool,
}

/// Why rendering failed.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// Bad input: options, or `events.csv` missing or malformed (exit code 2).
    #[error("{0}")]
    Input(String),
    /// No device, or the device failed (exit code 1 unless the device is missing).
    #[error(transparent)]
    Gpu(#[from] gpu::RenderError),
    /// An output file could not be written (exit code 1).
    #[error("{0}")]
    Output(String),
}

/// What a render did.
#[derive(Clone, Debug)]
pub struct RenderReport {
    /// Pictures written.
    pub pictures: usize,
    /// The PNG files, in order.
    pub files: Vec<PathBuf>,
    /// The GIF.
    pub gif: PathBuf,
    /// The adapter that drew them.
    pub adapter: String,
    /// Seconds spent drawing and reading back each picture, in order (the first includes the
    /// driver's first use of the pipelines).
    pub draw_seconds: Vec<f64>,
    /// Seconds spent encoding PNG and GIF (all pictures).
    pub encode_seconds: f64,
    /// The fixed bodies the automatic camera cut away, by name (`"the ground"` for the ground
    /// square), in scene order; none with `--camera`.
    pub cut_away: Vec<String>,
}

/// The picture and the view `render` draws `frames` of `run` with, for pictures of `aspect`
/// (width / height): the meshes, and the camera `camera` or, without one, the automatic camera,
/// which also cuts away the fixed bodies between it and the moving bodies.
pub fn prepare(
    run: &RunRecord,
    frames: &[&RecordedFrame],
    camera: Option<&CameraSpec>,
    aspect: f64,
) -> (Picture, View, CutReport) {
    let mut picture = Picture::new(run, frames);
    let mut v = view(picture.focus, camera, aspect, picture.scene_radius);
    v.grid_spacing = picture.grid_spacing as f32;
    let cut = match camera {
        Some(_) => CutReport::default(),
        None => picture.cut_away(automatic_eye(picture.focus, aspect), frames),
    };
    (picture, v, cut)
}

/// Renders `run` as `options` say; `progress` is called after each picture with (done, total).
pub fn render(
    run: &RunRecord,
    options: &RenderOptions,
    mut progress: impl FnMut(usize, usize),
) -> Result<RenderReport, RenderError> {
    if options.width == 0 || options.height == 0 || options.every == 0 {
        return Err(RenderError::Input(
            "--width, --height and --every must be at least 1".into(),
        ));
    }
    let chosen: Vec<&RecordedFrame> = run.frames.iter().step_by(options.every).collect();
    let events = if options.contacts {
        contacts::read_events(&run.dir.join("events.csv")).map_err(RenderError::Input)?
    } else {
        Vec::new()
    };
    let aspect = options.width as f64 / options.height as f64;
    let (picture, v, cut) = prepare(run, &chosen, options.camera.as_ref(), aspect);
    let reach = 0.25 * picture.focus.radius;
    let scale = contacts::arrow_scale(&events, reach);
    let mut renderer = gpu::Renderer::new(
        options.width,
        options.height,
        &picture.vertices,
        (&picture.indices, picture.drawn),
        picture.instance_count(),
    )?;
    std::fs::create_dir_all(&options.out)
        .map_err(|e| RenderError::Output(format!("{}: {e}", options.out.display())))?;
    let gif_path = options.out.join("animation.gif");
    let gif_file = std::fs::File::create(&gif_path)
        .map_err(|e| RenderError::Output(format!("{}: {e}", gif_path.display())))?;
    let mut gif = GifEncoder::new_with_speed(std::io::BufWriter::new(gif_file), 10);
    gif.set_repeat(Repeat::Infinite)
        .map_err(|e| RenderError::Output(format!("{}: {e}", gif_path.display())))?;
    // GIF delays are in hundredths of a second, and players slow anything under 2/100 down.
    let period = run.frames.get(1).map_or(0.02, |f| f.t - run.frames[0].t) * options.every as f64;
    let delay_ms = ((period * 1000.0).round() as u32).max(20);
    let (mut draw_seconds, mut encode_seconds) = (Vec::new(), 0.0);
    let mut files = Vec::new();
    let mut previous_t = f64::NEG_INFINITY;
    for (k, frame) in chosen.iter().enumerate() {
        let started = Instant::now();
        let (mut av, mut ai) = (Vec::new(), Vec::new());
        if options.contacts {
            contacts::push_arrows(
                &events,
                (previous_t, frame.t),
                scale,
                reach,
                0.03 * picture.focus.radius,
                picture.arrow_instance(),
                &mut av,
                &mut ai,
            );
        }
        previous_t = frame.t;
        let rgba = renderer.draw(&v, &picture.instances(frame), (&av, &ai))?;
        draw_seconds.push(started.elapsed().as_secs_f64());
        let started = Instant::now();
        let image = RgbaImage::from_raw(options.width, options.height, rgba)
            .ok_or_else(|| RenderError::Output("picture of the wrong size".into()))?;
        let path = options.out.join(format!("frame_{k:05}.png"));
        image
            .save(&path)
            .map_err(|e| RenderError::Output(format!("{}: {e}", path.display())))?;
        gif.encode_frame(Frame::from_parts(
            image,
            0,
            0,
            Delay::from_numer_denom_ms(delay_ms, 1),
        ))
        .map_err(|e| RenderError::Output(format!("{}: {e}", gif_path.display())))?;
        encode_seconds += started.elapsed().as_secs_f64();
        files.push(path);
        progress(k + 1, chosen.len());
    }
    drop(gif);
    Ok(RenderReport {
        pictures: files.len(),
        files,
        gif: gif_path,
        adapter: renderer.adapter_name(),
        draw_seconds,
        encode_seconds,
        cut_away: cut
            .instances
            .iter()
            .map(|&i| {
                run.bodies
                    .get(i as usize)
                    .map_or_else(|| "the ground".to_string(), |b| b.name.clone())
            })
            .collect(),
    })
}

impl RenderReport {
    /// The median of the per-picture draw times (s): the steady cost of a picture.
    pub fn median_draw_seconds(&self) -> f64 {
        let mut t = self.draw_seconds.clone();
        t.sort_by(f64::total_cmp);
        t.get(t.len() / 2).copied().unwrap_or(0.0)
    }
}

/// The default output directory of `tumble render RUN_DIR`: `RUN_DIR/render`.
pub fn default_out(run_dir: &Path) -> PathBuf {
    run_dir.join("render")
}
