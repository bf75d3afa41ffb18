//! One-chart figures of the experiments: a front over [`super::figure_st`]'s engine (stacked
//! panels, SVG through plotters without font features), for the experiments that draw a single
//! chart. Written to `docs/images/experiments/<name>.svg` only when `TUMBLE_WRITE_FIGURES=1`, so
//! an ordinary test run leaves the committed figures alone.
#![allow(dead_code)]

use super::figure_st::{self, Panel};
use std::path::PathBuf;

pub use super::figure_st::{Series, Style};
/// Legend corner.
pub use plotters::chart::SeriesLabelPosition as Legend;

impl Series {
    /// A polyline through the points.
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series::new(label, points, Style::Line)
    }

    /// A dashed polyline (a closed form next to the measured line).
    pub fn dashed(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series::new(label, points, Style::Dashed)
    }

    /// A dot at each point.
    pub fn points(label: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series::new(label, points, Style::Dots)
    }

    /// The palette colour `index` instead of the series' own position's.
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

/// Whether figures are to be written (`TUMBLE_WRITE_FIGURES=1`).
pub fn enabled() -> bool {
    figure_st::enabled()
}

/// Writes the chart when [`enabled`]; returns the path written.
pub fn write(chart: &Chart) -> Option<PathBuf> {
    let mut panel = Panel::new(chart.x_label, chart.y_label).legend_at(chart.legend.clone());
    panel.series = chart.series.clone();
    panel.equal_aspect = chart.equal_aspect;
    figure_st::write(chart.name, chart.title, &[panel]).then(|| {
        let path = figure_st::path(chart.name);
        eprintln!("figure written: {}", path.display());
        path
    })
}
