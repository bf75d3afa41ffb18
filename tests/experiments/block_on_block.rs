//! Block dropped on block (Mirtich & Canny 1995; 1994 §4.5): it comes to rest and does not
//! creep. Scene: `scenes/experiments/block-on-block.toml`.
use crate::figure::{self, Chart, Legend, Series};
use crate::gallery::{self, Record};
use tumble::scene::RestingContactMode;

/// From this time on the block is at rest (it settles by about 1 s).
const SETTLED: f64 = 2.0;
/// Bounds on the top block's creep from [`SETTLED`] to the end (3 s).
const MAX_DRIFT: f64 = 5e-5;
const MAX_TURN: f64 = 1e-4;

/// Runs the scene in `mode`; returns the run and the top block's drift (m) and turn (rad) from
/// [`SETTLED`] to the end, relative to the world and relative to the base.
fn creep(mode: RestingContactMode) -> (Record, f64, f64, f64) {
    let scene = gallery::with_mode(gallery::scene("block-on-block.toml"), mode);
    let rec = gallery::run(&scene, None);
    let (top, base) = (rec.index("top"), rec.index("base"));
    let (a, b) = (rec.at(SETTLED), rec.frames.last().unwrap());
    let drift = (b.states[top].position - a.states[top].position).length();
    let turn = a.states[top]
        .orientation
        .angle_between(b.states[top].orientation);
    let relative = |f: &gallery::Frame| f.states[top].position - f.states[base].position;
    let drift_on_base = (relative(b) - relative(a)).length();
    let sink = a.states[top].position.z - b.states[top].position.z;
    eprintln!(
        "block on block ({mode:?}): from {SETTLED} s to {:.1} s the top block moves {:.3e} m \
         ({:.3e} m relative to the base, sinks {:.3e} m) and turns {turn:.3e} rad; max \
         penetration {:.3e} m; wall {:.3} s",
        b.t,
        drift,
        drift_on_base,
        sink,
        rec.world.max_penetration(),
        rec.wall
    );
    (rec, drift, drift_on_base, turn)
}

/// The top block's horizontal distance (mm) from where it is at the end, over the run.
fn distance_to_end(rec: &Record) -> Vec<(f64, f64)> {
    let top = rec.index("top");
    let end = rec.frames.last().unwrap().states[top].position.truncate();
    rec.series(top, |s| 1e3 * (s.position.truncate() - end).length())
}

#[test]
fn block_on_block_comes_to_rest_without_creep() {
    let (rec, drift, on_base, turn) = creep(RestingContactMode::Constraints);
    if figure::enabled() {
        let (micro, ..) = creep(RestingContactMode::Microcollisions);
        figure::write(&Chart {
            name: "block-on-block",
            title: "Block on block: the top block's horizontal distance from its final place",
            x_label: "t (s)",
            y_label: "distance (mm)",
            series: vec![
                Series::line("constraints (default)", distance_to_end(&rec)),
                Series::line("microcollisions", distance_to_end(&micro)),
            ],
            equal_aspect: false,
            legend: Legend::UpperRight,
        });
    }
    assert!(drift < MAX_DRIFT, "top block crept {drift} m");
    assert!(
        on_base < MAX_DRIFT,
        "top block crept {on_base} m on the base"
    );
    assert!(turn < MAX_TURN, "top block turned {turn} rad");
}

#[test]
#[ignore = "defect: resting contacts as microcollisions (Mirtich & Canny's §4.5 static-friction \
            rule) let the top block creep 5 mm, turn 0.23 mrad and sink 0.4 mm in 3 s"]
fn block_on_block_comes_to_rest_without_creep_microcollisions() {
    let (_, drift, on_base, turn) = creep(RestingContactMode::Microcollisions);
    assert!(drift < MAX_DRIFT, "top block crept {drift} m");
    assert!(
        on_base < MAX_DRIFT,
        "top block crept {on_base} m on the base"
    );
    assert!(turn < MAX_TURN, "top block turned {turn} rad");
}
