//! Trajectory plots of the experiments: line charts drawn with plotters' SVG backend (no font
//! features: text is written as SVG `<text>`, as in `tumble::batch::plot`), written only when
//! `TUMBLE_WRITE_FIGURES=1`, into `docs/images/experiments/<name>.svg`.

use plotters::prelude::*;
use std::path::PathBuf;

/// One curve of a chart.
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Line colour.
    pub color: RGBColor,
    /// `(x, y)` points in order.
    pub points: Vec<(f64, f64)>,
}

/// A chart: caption, axis descriptions, curves and horizontal reference lines `(y, label)`.
pub struct Chart<'a> {
    /// Title above the plot.
    pub caption: &'a str,
    /// Description of the x axis.
    pub x_desc: &'a str,
    /// Description of the y axis.
    pub y_desc: &'a str,
    /// The curves.
    pub series: Vec<Series>,
    /// Horizontal grey lines at `y`, named in the legend.
    pub reference: Vec<(f64, String)>,
}

/// Steel blue, for one of two curves.
pub const BLUE: RGBColor = RGBColor(70, 130, 180);
/// Brick red, for the other.
pub const RED: RGBColor = RGBColor(200, 60, 40);

/// Whether the figures are to be written (`TUMBLE_WRITE_FIGURES=1`).
pub fn requested() -> bool {
    std::env::var("TUMBLE_WRITE_FIGURES").is_ok_and(|v| v == "1")
}

/// Writes `chart` to `docs/images/experiments/<name>.svg` when [`requested`]; returns the path
/// written.
pub fn write(name: &str, chart: &Chart) -> Option<PathBuf> {
    if !requested() {
        return None;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/images/experiments");
    std::fs::create_dir_all(&dir).expect("cannot create docs/images/experiments");
    let path = dir.join(format!("{name}.svg"));
    draw(&path, chart).unwrap_or_else(|e| panic!("cannot draw {}: {e}", path.display()));
    println!("wrote {}", path.display());
    Some(path)
}

fn draw(path: &std::path::Path, chart: &Chart) -> Result<(), Box<dyn std::error::Error>> {
    let all = chart.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    for (y, _) in &chart.reference {
        (y0, y1) = (y0.min(*y), y1.max(*y));
    }
    let pad = 0.08 * (y1 - y0).max(1e-12);
    let root = SVGBackend::new(path, (800, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut c = ChartBuilder::on(&root)
        .caption(chart.caption, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        // Headroom above the curves for the legend.
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + 4.0 * pad))?;
    c.configure_mesh()
        .x_desc(chart.x_desc)
        .y_desc(chart.y_desc)
        .draw()?;
    for (y, label) in &chart.reference {
        c.draw_series(LineSeries::new(
            [(x0, *y), (x1, *y)],
            BLACK.mix(0.5).stroke_width(1),
        ))?
        .label(label.as_str())
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK.mix(0.5)));
    }
    for s in &chart.series {
        let color = s.color;
        c.draw_series(LineSeries::new(
            s.points.iter().copied(),
            color.stroke_width(2),
        ))?
        .label(s.label.as_str())
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    c.configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
