//! Trajectory figures of the experiments: line and point series on one chart, written as SVG
//! to `docs/images/experiments/<name>.svg` when `TUMBLE_WRITE_FIGURES=1` (and never otherwise,
//! so an ordinary test run leaves the committed figures alone).
//!
//! plotters' SVG backend without font features, as in `src/batch/plot.rs`: text is written as
//! SVG `<text>` and laid out by plotters' crude size estimate, so no font file is needed.
#![allow(dead_code)]

use plotters::prelude::*;
use std::path::PathBuf;

/// Chart size in SVG pixels.
const SIZE: (u32, u32) = (900, 560);

/// Series colours, in order (cycled).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// How a series is drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A polyline through the points.
    Line,
    /// A dashed polyline (a closed form next to the measured line).
    Dashed,
    /// A small circle at each point.
    Points,
}

/// One series of the chart.
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
    /// Index into the palette; `None`: the series' own position.
    pub color: Option<usize>,
}

impl Series {
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            points,
            style: Style::Line,
            color: None,
        }
    }

    pub fn dashed(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            style: Style::Dashed,
            ..Series::line(label, points)
        }
    }

    pub fn points(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            style: Style::Points,
            ..Series::line(label, points)
        }
    }

    pub fn color(mut self, index: usize) -> Series {
        self.color = Some(index);
        self
    }
}

/// A chart of series against two axes.
pub struct Chart<'a> {
    /// File stem under `docs/images/experiments/`.
    pub name: &'a str,
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub series: Vec<Series>,
    /// The same scale on both axes (plan views of trajectories).
    pub equal_aspect: bool,
    /// Where the legend goes.
    pub legend: Legend,
}

/// Legend corner.
pub use plotters::chart::SeriesLabelPosition as Legend;

/// Whether figures are to be written (`TUMBLE_WRITE_FIGURES=1`).
pub fn enabled() -> bool {
    std::env::var("TUMBLE_WRITE_FIGURES").is_ok_and(|v| v == "1")
}

/// Writes the chart when [`enabled`]; returns the path written.
pub fn write(chart: &Chart) -> Option<PathBuf> {
    if !enabled() {
        return None;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/images/experiments");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.svg", chart.name));
    draw(&path, chart).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    eprintln!("figure written: {}", path.display());
    Some(path)
}

fn draw(path: &std::path::Path, chart: &Chart) -> Result<(), Box<dyn std::error::Error>> {
    let all = chart.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        assert!(
            x.is_finite() && y.is_finite(),
            "{}: point not finite",
            chart.name
        );
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    let pad = |a: f64, b: f64| {
        let m = ((b - a) * 0.05).max(1e-9);
        (a - m, b + m)
    };
    (x0, x1) = pad(x0, x1);
    (y0, y1) = pad(y0, y1);
    // Plot area in pixels (less the margins and label areas), for an equal scale on both axes.
    let (margin, x_area, y_area, caption) = (15u32, 50u32, 75u32, 40u32);
    if chart.equal_aspect {
        let w = (SIZE.0 - 2 * margin - y_area) as f64;
        let h = (SIZE.1 - 2 * margin - x_area - caption) as f64;
        let (sx, sy) = ((x1 - x0) / w, (y1 - y0) / h);
        if sx > sy {
            let c = 0.5 * (y0 + y1);
            (y0, y1) = (c - 0.5 * sx * h, c + 0.5 * sx * h);
        } else {
            let c = 0.5 * (x0 + x1);
            (x0, x1) = (c - 0.5 * sy * w, c + 0.5 * sy * w);
        }
    }
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut ctx = ChartBuilder::on(&root)
        .caption(chart.title, ("sans-serif", 20))
        .margin(margin)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    ctx.configure_mesh()
        .x_desc(chart.x_label)
        .y_desc(chart.y_label)
        .draw()?;
    for (i, s) in chart.series.iter().enumerate() {
        let color = PALETTE[s.color.unwrap_or(i) % PALETTE.len()];
        let legend_color = color;
        match s.style {
            Style::Line => ctx
                .draw_series(LineSeries::new(
                    s.points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(&s.label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], legend_color.stroke_width(2))
                }),
            Style::Dashed => ctx
                .draw_series(DashedLineSeries::new(
                    s.points.iter().copied(),
                    6,
                    4,
                    color.stroke_width(2),
                ))?
                .label(&s.label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], legend_color.stroke_width(1))
                }),
            Style::Points => ctx
                .draw_series(s.points.iter().map(|&p| Circle::new(p, 4, color.filled())))?
                .label(&s.label)
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, legend_color.filled())),
        };
    }
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(chart.legend.clone())
        .draw()?;
    root.present()?;
    Ok(())
}
