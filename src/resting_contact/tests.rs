//! Unit tests of the contact step's internals.

use super::sweep::StallWatch;

/// The first sweep (from 0) at which a watch over `window` sweeps calls `residuals` stalled.
fn stall_at(window: usize, residuals: impl Iterator<Item = f64>) -> Option<usize> {
    let mut watch = StallWatch::new(window);
    residuals
        .take(64)
        .enumerate()
        .find_map(|(k, r)| watch.stalled(k, r).then_some(k))
}

/// A residual halving every sweep (Gauss–Seidel converging) never stalls; a flat one stalls
/// at the first sweep the watch may judge, 2·window; one that cycles (up, down, up …) stalls
/// too; one that falls by 10 % a sweep (34 % per window of four) goes on; no window never
/// stalls.
#[test]
fn stall_watch_stops_flat_and_cycling_residuals_only() {
    assert_eq!(stall_at(4, (0..).map(|k| 0.5f64.powi(k))), None);
    assert_eq!(stall_at(4, (0..).map(|k| 0.9f64.powi(k))), None);
    assert_eq!(stall_at(4, std::iter::repeat(1e-5)), Some(8));
    assert_eq!(stall_at(3, std::iter::repeat(1e-5)), Some(6));
    let cycle = [1e-4, 3e-5, 2e-4, 5e-5];
    assert_eq!(stall_at(4, (0..).map(|k| cycle[k % 4])), Some(8));
    // Falling by 4 % a sweep is 15 % over four: stalled.
    assert_eq!(stall_at(4, (0..).map(|k| 0.96f64.powi(k))), Some(8));
    assert_eq!(stall_at(0, std::iter::repeat(1e-5)), None);
}
