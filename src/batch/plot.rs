//! The stable-pose bar chart, `poses.svg`: per pose, the observed fraction of trials as a bar, its
//! 95 % Wilson interval as an error bar, and the quasi-static estimate (Wiegley, Rao & Goldberg
//! 1992) as a marker.
//!
//! Drawn with plotters' SVG backend and no font features: text is written as SVG `<text>` and laid
//! out by plotters' crude size estimate, so no font file is needed to draw it.

use plotters::prelude::*;
use std::path::Path;

/// Chart size in SVG pixels.
const SIZE: (u32, u32) = (800, 500);
/// Fill colour of the bars (steel blue).
pub const BAR_COLOR: RGBColor = RGBColor(70, 130, 180);
/// Colour of the quasi-static markers.
const MARKER_COLOR: RGBColor = RGBColor(200, 30, 30);
/// Gap (SVG pixels) on each side of a bar within its pose's slot.
const BAR_GAP: u32 = 12;

/// One bar of the chart: one stable pose and its statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseRow {
    /// Pose id (the label under the bar).
    pub pose: usize,
    /// Fraction of trials that ended in this pose, in [0, 1].
    pub fraction: f64,
    /// Lower end of the 95 % interval of `fraction`.
    pub ci_low: f64,
    /// Upper end of the 95 % interval of `fraction`.
    pub ci_high: f64,
    /// Quasi-static probability of the pose.
    pub quasi_static: f64,
    /// Number of trials that ended in this pose.
    pub count: u64,
}

/// Why the chart could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// A row holds a value that is not finite.
    #[error("pose {pose}: {what} is not finite ({value})")]
    NotFinite {
        /// The row's pose id.
        pose: usize,
        /// Which field.
        what: &'static str,
        /// The value.
        value: f64,
    },
    /// Drawing or writing the file failed.
    #[error("cannot draw the pose chart: {0}")]
    Draw(String),
}

/// Writes the SVG bar chart of `rows` to `path`, one bar per row in the given order (an empty
/// slice gives empty axes). The legend shows one swatch of each element, so the file holds
/// `rows.len() + 1` rectangles of [`BAR_COLOR`].
pub fn write_pose_plot(path: &Path, rows: &[PoseRow]) -> Result<(), PlotError> {
    for r in rows {
        for (what, value) in [
            ("fraction", r.fraction),
            ("ci_low", r.ci_low),
            ("ci_high", r.ci_high),
            ("quasi_static", r.quasi_static),
        ] {
            if !value.is_finite() {
                return Err(PlotError::NotFinite {
                    pose: r.pose,
                    what,
                    value,
                });
            }
        }
    }
    let top = rows
        .iter()
        .map(|r| r.fraction.max(r.ci_high).max(r.quasi_static))
        .fold(0.0, f64::max);
    // Headroom for the legend, at most a little above 1.
    let top = (top * 1.25).clamp(0.1, 1.1);
    let slots = rows.len().max(1);

    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(draw)?;
    // One segment per pose; bars span their segment less a margin, markers sit at its centre.
    // (plotters integer ranges include their end: 0..slots - 1 is `slots` values.)
    let x_range = (0..slots - 1).into_segmented();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "Stable poses ({})",
                crate::plural::count(rows.iter().map(|r| r.count).sum::<u64>(), "trial", "trials")
            ),
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(x_range, 0.0..top)
        .map_err(draw)?;
    let label = |x: &SegmentValue<usize>| match x {
        SegmentValue::CenterOf(i) => rows.get(*i).map_or(String::new(), |r| r.pose.to_string()),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("pose")
        .y_desc("fraction of trials")
        .x_label_formatter(&label)
        .draw()
        .map_err(draw)?;

    chart
        .draw_series(rows.iter().enumerate().map(|(i, r)| {
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(i), 0.0),
                    (SegmentValue::Exact(i + 1), r.fraction),
                ],
                BAR_COLOR.filled(),
            );
            bar.set_margin(0, 0, BAR_GAP, BAR_GAP);
            bar
        }))
        .map_err(draw)?
        .label("observed fraction")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], BAR_COLOR.filled()));
    chart
        .draw_series(rows.iter().enumerate().map(|(i, r)| {
            ErrorBar::new_vertical(
                SegmentValue::CenterOf(i),
                r.ci_low,
                r.fraction,
                r.ci_high,
                BLACK.stroke_width(2),
                12,
            )
        }))
        .map_err(draw)?
        .label("95 % Wilson interval")
        .legend(|(x, y)| {
            PathElement::new(vec![(x + 8, y - 6), (x + 8, y + 6)], BLACK.stroke_width(2))
        });
    chart
        .draw_series(rows.iter().enumerate().map(|(i, r)| {
            Cross::new(
                (SegmentValue::CenterOf(i), r.quasi_static),
                7,
                MARKER_COLOR.stroke_width(3),
            )
        }))
        .map_err(draw)?
        .label("quasi-static estimate")
        .legend(|(x, y)| Cross::new((x + 8, y), 5, MARKER_COLOR.stroke_width(3)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(draw)?;
    root.present().map_err(draw)
}

/// A plotters error as a [`PlotError::Draw`].
fn draw(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize) -> Vec<PoseRow> {
        (0..n)
            .map(|pose| {
                let count = 10 * (n - pose) as u64;
                let total = (10 * n * (n + 1) / 2) as u64;
                let (ci_low, ci_high) = crate::batch::poses::wilson_interval(count, total);
                PoseRow {
                    pose,
                    fraction: count as f64 / total as f64,
                    ci_low,
                    ci_high,
                    quasi_static: 1.0 / n as f64,
                    count,
                }
            })
            .collect()
    }

    fn bar_rects(svg: &str) -> usize {
        let fill = format!(
            "fill=\"#{:02X}{:02X}{:02X}\"",
            BAR_COLOR.0, BAR_COLOR.1, BAR_COLOR.2
        );
        svg.split("<rect")
            .skip(1)
            .filter(|r| r.split('>').next().unwrap().contains(&fill))
            .count()
    }

    #[test]
    fn writes_one_bar_per_pose() {
        let dir = std::env::temp_dir().join(format!("tumble-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for n in [0, 3, 6] {
            let path = dir.join(format!("poses{n}.svg"));
            write_pose_plot(&path, &rows(n)).unwrap();
            let svg = std::fs::read_to_string(&path).unwrap();
            assert!(
                svg.trim_start().starts_with("<svg"),
                "{}",
                &svg[..80.min(svg.len())]
            );
            assert!(svg.trim_end().ends_with("</svg>"));
            println!(
                "{n} poses: {} bar-coloured rects, {} bytes",
                bar_rects(&svg),
                svg.len()
            );
            // One bar per pose plus the legend swatch.
            assert_eq!(bar_rects(&svg), n + 1);
            assert!(svg.contains("fraction of trials") && svg.contains("quasi-static estimate"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn refuses_non_finite_rows() {
        let mut r = rows(2);
        r[1].ci_high = f64::NAN;
        let path = std::env::temp_dir().join("tumble-plot-never-written.svg");
        let err = write_pose_plot(&path, &r).unwrap_err();
        assert!(err.to_string().contains("pose 1: ci_high"), "{err}");
        assert!(!path.exists());
    }
}
