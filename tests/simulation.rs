//! The frame loop every command shares ([`Simulation`]): one sink call per frame at k · frame
//! period (computed by multiplication) and a last frame that stops at the end time, also off the
//! grid; `step_frame` in a loop takes the same frames as `run`; a sink can end a run early; a run
//! already at its end does nothing; the names are the scene's, in body order.

use std::ops::ControlFlow;
use std::path::Path;
use tumble::scene::{self, Scene};
use tumble::simulation::{FrameSink, RunEnd, Simulation, SinkError};
use tumble::world::World;

/// Four balls landing, rolling and meeting, in frames of 0.02 s.
fn scene(duration: f64) -> Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/experiments/four-balls.toml");
    let mut scene = scene::load(&path).unwrap();
    scene.world.duration = duration;
    scene.world.config.frame_period = 0.02;
    scene
}

/// Records each frame's time and every body's state text; stops after `stop_after` frames.
#[derive(Default)]
struct Record {
    times: Vec<f64>,
    states: Vec<String>,
    stop_after: Option<usize>,
}

impl FrameSink for Record {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        self.times.push(world.time());
        self.states.push(states(world));
        Ok(match self.stop_after {
            Some(n) if self.times.len() >= n => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        })
    }
}

/// Every body's state, exactly (Debug prints the shortest text that reads back to the bits).
fn states(world: &World) -> String {
    (0..world.body_count())
        .map(|i| format!("{:?}", world.body_state(i)))
        .collect::<Vec<_>>()
        .join(";")
}

#[test]
fn run_calls_the_sinks_once_per_frame_on_the_frame_grid() {
    let scene = scene(0.5);
    let period = scene.world.config.frame_period;
    let mut sim = Simulation::new(&scene).unwrap();
    let mut record = Record::default();
    assert!(matches!(
        sim.run(None, &mut [&mut record]),
        Ok(RunEnd::Reached)
    ));
    let expected: Vec<f64> = (1..=25).map(|k| (k as f64 * period).min(0.5)).collect();
    assert_eq!(record.times, expected);
    assert_eq!(sim.time(), 0.5);
}

#[test]
fn an_end_off_the_grid_ends_the_last_frame_there() {
    let scene = scene(0.513);
    let mut sim = Simulation::new(&scene).unwrap();
    let mut record = Record::default();
    sim.run(None, &mut [&mut record]).unwrap();
    assert_eq!(record.times.len(), 26);
    assert_eq!(record.times[24], 25.0 * 0.02);
    assert_eq!(*record.times.last().unwrap(), 0.513);
    // At the end already: nothing to do, no frame.
    sim.run(None, &mut [&mut record]).unwrap();
    assert_eq!(record.times.len(), 26);
}

#[test]
fn step_frame_takes_the_frames_run_takes() {
    let scene = scene(0.513);
    let mut whole = Simulation::new(&scene).unwrap();
    let mut record = Record::default();
    whole.run(None, &mut [&mut record]).unwrap();

    let mut stepped = Simulation::new(&scene).unwrap();
    let mut times = Vec::new();
    let mut frames = Vec::new();
    while stepped.time() < stepped.end() {
        stepped.step_frame().unwrap();
        times.push(stepped.time());
        frames.push(states(stepped.world()));
    }
    assert_eq!(times, record.times);
    assert!(frames == record.states, "the states differ");
}

#[test]
fn a_sink_can_end_the_run_early() {
    let scene = scene(0.5);
    let mut sim = Simulation::new(&scene).unwrap();
    let mut record = Record {
        stop_after: Some(3),
        ..Record::default()
    };
    let mut all = Record::default();
    assert!(matches!(
        sim.run(None, &mut [&mut record, &mut all]),
        Ok(RunEnd::Stopped)
    ));
    // Every sink saw the frame that stopped it, and the run went no further.
    assert_eq!(record.times.len(), 3);
    assert_eq!(all.times, record.times);
    assert_eq!(sim.time(), 3.0 * 0.02);
}

#[test]
fn names_are_the_scenes_in_body_order() {
    let scene = scene(0.1);
    let sim = Simulation::new(&scene).unwrap();
    let expected: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(sim.names(), expected);
}

/// `World::set_body_state` between frames: a ball resting on a floor, set 3 m up and moving,
/// flies its parabola from there (the prepared contact step for the old state undone), and a
/// fixed body or a non-unit quaternion is refused.
#[test]
fn a_body_set_between_frames_flies_from_its_new_state() {
    let text = r#"
[world]
duration = 1.0
frame_period = 0.01
[[bodies]]
name = "floor"
motion = "fixed"
shape = { type = "plane", normal = [0.0, 0.0, 1.0] }
[[bodies]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
mass = 1.0
position = [0.0, 0.0, 0.1005]
"#;
    let sc = scene::parse(text, Path::new("ball.toml")).expect("a valid scene");
    let mut sim = Simulation::new(&sc).unwrap();
    sim.run(Some(0.5), &mut []).unwrap();
    let mut s = sim.world().body_state(1);
    s.position = glam::DVec3::new(1.0, 2.0, 3.0);
    s.velocity = glam::DVec3::new(0.5, 0.0, 2.0);
    sim.world_mut().set_body_state(1, &s).unwrap();
    assert_eq!(sim.world().body_state(1).position, s.position);
    sim.run(Some(0.8), &mut []).unwrap();
    let (t, g) = (0.3, 9.81);
    let expected = glam::DVec3::new(1.0 + 0.5 * t, 2.0, 3.0 + 2.0 * t - 0.5 * g * t * t);
    let error = (sim.world().body_state(1).position - expected).length();
    println!("flight from the set state: position error {error:.2e} m after {t} s");
    assert!(error < 1e-9, "{error}");
    let floor = sim.world().body_state(0);
    assert!(sim.world_mut().set_body_state(0, &floor).is_err());
    let mut bad = sim.world().body_state(1);
    bad.orientation = glam::DQuat::from_xyzw(0.0, 0.0, 0.0, 2.0);
    let e = sim.world_mut().set_body_state(1, &bad).unwrap_err();
    assert!(e.contains("unit quaternion"), "{e}");
}

/// A run continued to a time a few ulps past a frame's end (`t + 0.1` sums give them: 1.58 +
/// 0.1 = 1.6800000000000002) takes no frame of a few ulps, whose contact step would divide its
/// push-out by 2e-16 s and throw the pile apart: the world counts that time as reached. The
/// small funnel's pile is resting at 1.3 s, as a Python user's `run(until=t + 0.1)` found it.
#[test]
fn a_time_a_few_ulps_past_a_frame_end_is_reached_without_a_frame_of_that_length() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/small-funnel.toml");
    let scene = scene::load(&path).unwrap();
    let frame_period = scene.world.config.frame_period;
    let mut sim = Simulation::new(&scene).unwrap();
    sim.run(Some(1.3), &mut []).unwrap();
    let at = sim.world().time();
    let until = 1.2 + 0.1000000000000002;
    assert!(until > at && until - at < 1e-12, "{until} against {at}");
    sim.run(Some(until), &mut []).expect("the run goes on");
    assert_eq!(sim.world().time(), at, "no frame of {:e} s", until - at);
    // And the next frame is a whole one, on the grid, with no body thrown out.
    sim.step_frame().expect("the next frame runs");
    let next = sim.world().time();
    println!("at {at} s, until {until:?}: next frame ends at {next} (period {frame_period})");
    assert!((next - at - frame_period).abs() < 1e-12);
    let world = sim.world();
    for i in 0..world.body_count() {
        let state = world.body_state(i);
        assert!(
            state.velocity.length() < 20.0 && state.angular_velocity.length() < 200.0,
            "{}: {state:?}",
            world.body_name(i)
        );
    }
}
