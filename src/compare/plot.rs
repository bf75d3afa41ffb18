//! `compare.svg`: the LCP runs' state and velocity errors at the scene's end against their
//! step h, log–log (a first-order method's points fall on a line of slope 1), beside a
//! slope-1 guide through the finest step. Drawn as `batch/plot.rs` draws: plotters' SVG
//! backend, no font features.

use super::Comparison;
use crate::scene::Method;
use plotters::prelude::*;
use std::path::Path;

/// Chart size in SVG pixels.
const SIZE: (u32, u32) = (800, 500);

/// Writes the chart of `c` to `path` (empty axes when no LCP run has a finite, positive error).
pub fn write_plot(path: &Path, c: &Comparison) -> Result<(), String> {
    let draw = |e: &dyn std::fmt::Display| format!("cannot draw {}: {e}", path.display());
    let end = c.times.len() - 1;
    let mut series: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for r in c.rows.iter().filter(|r| r.method == Method::Lcp) {
        let Some(h) = r.time_step else { continue };
        for (s, e) in series
            .iter_mut()
            .zip([r.state_error[end], r.velocity_error[end]])
        {
            if e.is_finite() && e > 0.0 {
                s.push((h, e));
            }
        }
    }
    for s in &mut series {
        s.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let all = series.iter().flatten();
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (1e-3, 1e-1, 1e-6, 1.0);
    }
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "LCP method: error at the end against the event-driven run",
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (x0 / 1.5..x1 * 1.5).log_scale(),
            (y0 / 3.0..y1 * 3.0).log_scale(),
        )
        .map_err(|e| draw(&e))?;
    chart
        .configure_mesh()
        .x_desc("time step h (s)")
        .y_desc("error at the end")
        .draw()
        .map_err(|e| draw(&e))?;
    let styles = [("state error (m)", BLUE), ("velocity error (m/s)", RED)];
    for (s, (label, color)) in series.iter().zip(styles) {
        chart
            .draw_series(std::iter::once(PathElement::new(
                s.clone(),
                color.stroke_width(2),
            )))
            .map_err(|e| draw(&e))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
        chart
            .draw_series(s.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(|e| draw(&e))?;
    }
    if let Some(&(h, e)) = series[0].first() {
        let guide = [(h, e), (x1, e * x1 / h)];
        chart
            .draw_series(std::iter::once(PathElement::new(
                guide.to_vec(),
                BLACK.stroke_width(1),
            )))
            .map_err(|e| draw(&e))?
            .label("slope 1 (first order)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| draw(&e))?;
    root.present().map_err(|e| draw(&e))?;
    Ok(())
}
