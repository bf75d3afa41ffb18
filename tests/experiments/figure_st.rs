//! Trajectory figures of the experiments: stacked panels of line series, written as SVG to
//! `docs/images/experiments/<name>.svg` when `TUMBLE_WRITE_FIGURES=1` (plotters' SVG backend,
//! no font features: text is left to the viewer, as in `src/batch/plot.rs`).
#![allow(dead_code)]

use plotters::prelude::*;
use std::path::PathBuf;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    /// A solid polyline.
    Line,
    /// A dashed polyline (a reference or closed form).
    Dashed,
    /// One dot per point.
    Dots,
}

/// One named series of (x, y) points.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend entry; empty: none.
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
    /// Index into the palette (default: the series' own index).
    pub color: Option<usize>,
}

impl Series {
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>, style: Style) -> Series {
        Series {
            name: name.into(),
            points,
            style,
            color: None,
        }
    }
}

/// One panel: axes, series, and labelled vertical marks (event times).
#[derive(Clone, Debug, Default)]
pub struct Panel {
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    pub marks: Vec<(String, f64)>,
    /// Keep the x and y scales equal (plan views).
    pub equal_aspect: bool,
    /// Where the legend goes (default: upper right).
    pub legend: Option<SeriesLabelPosition>,
}

impl Panel {
    pub fn new(x_label: &str, y_label: &str) -> Panel {
        Panel {
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            ..Panel::default()
        }
    }

    pub fn line(mut self, name: impl Into<String>, points: Vec<(f64, f64)>) -> Panel {
        self.series.push(Series::new(name, points, Style::Line));
        self
    }

    pub fn dashed(mut self, name: impl Into<String>, points: Vec<(f64, f64)>) -> Panel {
        self.series.push(Series::new(name, points, Style::Dashed));
        self
    }

    pub fn dots(mut self, name: impl Into<String>, points: Vec<(f64, f64)>) -> Panel {
        self.series.push(Series::new(name, points, Style::Dots));
        self
    }

    /// A dashed series in the colour of series `color` (its reference), without a legend entry.
    pub fn reference(mut self, color: usize, points: Vec<(f64, f64)>) -> Panel {
        let mut s = Series::new("", points, Style::Dashed);
        s.color = Some(color);
        self.series.push(s);
        self
    }

    pub fn mark(mut self, label: impl Into<String>, x: f64) -> Panel {
        self.marks.push((label.into(), x));
        self
    }

    pub fn legend_at(mut self, position: SeriesLabelPosition) -> Panel {
        self.legend = Some(position);
        self
    }
}

/// Most points drawn per series (longer series are thinned evenly: the files stay small).
const MOST_POINTS: usize = 1000;

/// Whether the figures are to be written (`TUMBLE_WRITE_FIGURES=1`).
pub fn enabled() -> bool {
    std::env::var("TUMBLE_WRITE_FIGURES").as_deref() == Ok("1")
}

/// Where figure `name` goes.
pub fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("docs/images/experiments")
        .join(format!("{name}.svg"))
}

/// Writes figure `name` (panels stacked top to bottom) if [`enabled`]; returns whether it did.
pub fn write(name: &str, title: &str, panels: &[Panel]) -> bool {
    if !enabled() {
        return false;
    }
    let path = path(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    draw(&path, title, panels).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    eprintln!("wrote {}", path.display());
    true
}

/// The colour of series `i`.
fn color(i: usize) -> RGBColor {
    const COLORS: [RGBColor; 10] = [
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
    COLORS[i % COLORS.len()]
}

/// The range of `values` with a margin (a unit range around a single value).
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        0.05 * (hi - lo)
    } else {
        0.5 * lo.abs().max(1e-9)
    };
    (lo - pad, hi + pad)
}

fn draw(path: &std::path::Path, title: &str, panels: &[Panel]) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let height = 60 + 340 * panels.len() as u32;
    let root = SVGBackend::new(path, (900, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let root = root
        .titled(title, ("sans-serif", 20))
        .map_err(|e| err(&e))?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let points = || panel.series.iter().flat_map(|s| s.points.iter());
        let mut xr = range(points().map(|p| p.0));
        let mut yr = range(points().map(|p| p.1));
        // Marks outside the data's span are left out.
        let span = xr;
        let marks = panel
            .marks
            .iter()
            .filter(|m| m.1 >= span.0 && m.1 <= span.1);
        if panel.equal_aspect {
            // Widen the shorter range so one metre is as long on both axes (the plot area is
            // about 780 × 280 pixels).
            let (w, h) = (xr.1 - xr.0, yr.1 - yr.0);
            let aspect = 780.0 / 280.0;
            if w / h < aspect {
                let c = 0.5 * (xr.0 + xr.1);
                xr = (c - 0.5 * h * aspect, c + 0.5 * h * aspect);
            } else {
                let c = 0.5 * (yr.0 + yr.1);
                yr = (c - 0.5 * w / aspect, c + 0.5 * w / aspect);
            }
        }
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(panel.x_label.as_str())
            .y_desc(panel.y_label.as_str())
            .draw()
            .map_err(|e| err(&e))?;
        for (k, (label, x)) in marks.enumerate() {
            let style = BLACK.mix(0.5).stroke_width(1);
            chart
                .draw_series(dashes(&[(*x, yr.0), (*x, yr.1)], xr, yr, style))
                .map_err(|e| err(&e))?;
            chart
                .draw_series(std::iter::once(Text::new(
                    label.clone(),
                    // Staggered, so that close marks keep readable labels.
                    (*x, yr.1 - (0.04 + 0.07 * k as f64) * (yr.1 - yr.0)),
                    ("sans-serif", 13),
                )))
                .map_err(|e| err(&e))?;
        }
        for (i, s) in panel.series.iter().enumerate() {
            let c = color(s.color.unwrap_or(i));
            let points = thin(&s.points, MOST_POINTS);
            let style = c.stroke_width(2);
            let annotated = match s.style {
                Style::Line => chart
                    .draw_series(std::iter::once(PathElement::new(points, style)))
                    .map_err(|e| err(&e))?,
                Style::Dashed => chart
                    .draw_series(dashes(&points, xr, yr, style))
                    .map_err(|e| err(&e))?,
                Style::Dots => chart
                    .draw_series(points.iter().map(|&p| Circle::new(p, 2, c.filled())))
                    .map_err(|e| err(&e))?,
            };
            if !s.name.is_empty() {
                annotated
                    .label(s.name.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
            }
        }
        if !panel.series.is_empty() {
            chart
                .configure_series_labels()
                .position(
                    panel
                        .legend
                        .clone()
                        .unwrap_or(SeriesLabelPosition::UpperRight),
                )
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(|e| err(&e))?;
        }
    }
    root.present().map_err(|e| err(&e))
}

/// A polyline cut into dashes of about 1/80 of the panel's diagonal, one path per dash.
fn dashes(
    points: &[(f64, f64)],
    xr: (f64, f64),
    yr: (f64, f64),
    style: ShapeStyle,
) -> Vec<PathElement<(f64, f64)>> {
    let (sx, sy) = (xr.1 - xr.0, yr.1 - yr.0);
    let dash: f64 = 1.0 / 80.0;
    let mut out = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    let mut on = true;
    let mut left = dash;
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        // Length in panel units (both axes scaled to 1).
        let len = (((b.0 - a.0) / sx).powi(2) + ((b.1 - a.1) / sy).powi(2)).sqrt();
        let p = |f: f64| (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f);
        if on && current.is_empty() {
            current.push(a);
        }
        let mut s = 0.0;
        while s < len {
            let step = left.min(len - s);
            s += step;
            left -= step;
            if left <= 1e-12 {
                if on {
                    current.push(p(s / len));
                    out.push(PathElement::new(std::mem::take(&mut current), style));
                } else {
                    current.push(p(s / len));
                }
                on = !on;
                left = dash;
            }
        }
        if on {
            current.push(b);
        } else {
            current.clear();
        }
    }
    if on && current.len() > 1 {
        out.push(PathElement::new(current, style));
    }
    out
}

/// At most `most` of `points`, evenly strided, keeping the last one.
fn thin(points: &[(f64, f64)], most: usize) -> Vec<(f64, f64)> {
    if points.len() <= most {
        return points.to_vec();
    }
    let every = points.len().div_ceil(most);
    let mut out: Vec<(f64, f64)> = points.iter().step_by(every).copied().collect();
    if out.last() != points.last() {
        out.push(*points.last().unwrap());
    }
    out
}
