//! Unit tests of the contact step's internals.

use super::patch::Load;
use super::sweep::StallWatch;
use glam::DVec3;

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

/// The loads of a patch as its friction sees them (`Load`): a rectangular face resting on its
/// four corners has its centre of pressure at the centroid and its twisting moment at the
/// corners' distance, whatever the statically indeterminate share of its weight (the
/// diagonal mode); a face pressed harder at one edge moves the centre that way; a curved
/// body's lowest vertex carrying the whole load puts the centre there and leaves no
/// twisting moment, its neighbours within the margin carrying nothing.
#[test]
fn friction_acts_at_the_centre_of_pressure() {
    let load = |points: &[(f64, DVec3)]| {
        let mut l = Load::default();
        for &(p, s) in points {
            l.add_point(p, s, s.length_squared());
        }
        l
    };
    let corners = [
        DVec3::new(0.3, 0.2, 0.0),
        DVec3::new(-0.3, 0.2, 0.0),
        DVec3::new(-0.3, -0.2, 0.0),
        DVec3::new(0.3, -0.2, 0.0),
    ];
    let d = corners[0].length();
    for shift in [0.0, 0.1, 0.24] {
        // Diagonal pairs take 0.25 ± shift of a unit weight each.
        let l = load(&[
            (0.25 + shift, corners[0]),
            (0.25 - shift, corners[1]),
            (0.25 + shift, corners[2]),
            (0.25 - shift, corners[3]),
        ]);
        assert!(l.centre().length() < 1e-15, "{:?}", l.centre());
        assert!((l.twist_moment() - d).abs() < 1e-15, "{}", l.twist_moment());
    }
    // Pressed at the +x edge: the centre moves 0.3·(0.8 − 0.2) towards it.
    let l = load(&[
        (0.4, corners[0]),
        (0.1, corners[1]),
        (0.1, corners[2]),
        (0.4, corners[3]),
    ]);
    assert!((l.centre() - DVec3::new(0.18, 0.0, 0.0)).length() < 1e-15);
    // RMS distance from that centre: sqrt(0.8·(0.12² + 0.2²) + 0.2·(0.48² + 0.2²)).
    let rms = (0.8 * (0.12f64.powi(2) + 0.04) + 0.2 * (0.48f64.powi(2) + 0.04)).sqrt();
    assert!(
        (l.twist_moment() - rms).abs() < 1e-12,
        "{} {rms}",
        l.twist_moment()
    );
    // One loaded vertex among unloaded neighbours.
    let lowest = DVec3::new(0.004, -0.002, 0.0);
    let l = load(&[(2.0, lowest), (0.0, corners[0]), (0.0, corners[2])]);
    assert!((l.centre() - lowest).length() < 1e-15);
    assert!(l.twist_moment() < 1e-9, "{}", l.twist_moment());
    // No load: no centre, no moment.
    let l = load(&[(0.0, corners[0])]);
    assert_eq!(l.centre(), DVec3::ZERO);
    assert_eq!(l.twist_moment(), 0.0);
}
