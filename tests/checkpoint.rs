//! Checkpoints: a world saved between frames and loaded into a world built again from its scene
//! goes on bit for bit as the saved one does (the library), and `tumble run --resume` continues a
//! run stopped at a checkpoint, or killed with SIGKILL, to the same frames.csv, events.csv and
//! summary.json counts as a run never stopped (the binary); bad checkpoints are refused with exit
//! code 2 and a message naming the file.

use std::ops::ControlFlow;
use std::path::Path;
use tumble::checkpoint::{self, RunInfo, RunOptions, SceneRecord};
use tumble::output::FramesMark;
use tumble::scene::{self, Method, Scene};
use tumble::simulation::{FrameSink, Simulation, SinkError};
use tumble::world::{ImpulseEvent, World};

/// Everything a frame shows, as bits: the time, every body's state (frames.csv's 13 numbers and
/// the raw pose and velocities), the counters, the deepest overlap and the impulses recorded.
#[derive(Default)]
struct Trace {
    frames: Vec<Vec<u64>>,
    events: Vec<ImpulseEvent>,
}

impl FrameSink for Trace {
    fn frame(&mut self, world: &mut World) -> Result<ControlFlow<()>, SinkError> {
        let mut row = vec![world.time().to_bits()];
        for i in 0..world.body_count() {
            row.extend(world.body_state(i).to_array().map(f64::to_bits));
            let b = world.body(i);
            let raw = [b.position.to_array(), b.velocity.to_array()].concat();
            row.extend(raw.into_iter().map(f64::to_bits));
            row.push(u64::from(b.asleep));
            row.push(u64::from(b.version));
        }
        let counts = serde_json::to_value(world.counts())?;
        for v in counts.as_object().into_iter().flat_map(|m| m.values()) {
            row.push(v.as_u64().unwrap_or(u64::MAX));
        }
        row.push(world.max_penetration().to_bits());
        world.take_events(&mut self.events);
        self.frames.push(row);
        Ok(ControlFlow::Continue(()))
    }
}

/// A run's record for a checkpoint made in memory (the library tests do not run the binary).
fn info(scene: &Scene, world: &World) -> RunInfo {
    RunInfo {
        scene: SceneRecord {
            name: scene.source.display().to_string(),
            path: scene.source.clone(),
            text: String::new(),
        },
        options: RunOptions {
            duration: scene.world.duration,
            every: 1,
            record: Vec::new(),
            format: "csv".into(),
            events: true,
            backend: "cpu".into(),
            checkpoint_every: 0.1,
            threads: None,
        },
        frames: FramesMark {
            bytes: 0,
            offered: 0,
            last_written: None,
        },
        events: None,
        stored_scene: None,
        time: world.time(),
        wall_time: 0.0,
    }
}

/// Runs `scene` to `split`, checkpoints it in memory, loads the checkpoint into a world built
/// again from the scene, and runs both on to `end`: every frame after the split must be the
/// same bits in both, and the checkpoint of the loaded world the same bytes as the original's.
fn goes_on_bit_for_bit(scene: &Scene, split: f64, end: f64) {
    let label = scene.source.display().to_string();
    let mut first = Simulation::new(scene).unwrap();
    first.world_mut().record_events(true);
    let mut before = Trace::default();
    first.run(Some(split), &mut [&mut before]).unwrap();
    assert!(
        !before.frames.is_empty(),
        "{label}: no frame before the split"
    );
    let hash = [7u8; 32];
    let bytes = checkpoint::encode(&hash, &info(scene, first.world()), first.world()).unwrap();
    let read = checkpoint::decode(Path::new("memory"), &bytes).unwrap();
    assert_eq!(read.scene_hash, hash);
    assert_eq!(read.info.time, first.time());
    assert_eq!(read.world.time(), first.time());
    let mut world = read.into_world(scene).unwrap();
    world.record_events(true);
    let again = checkpoint::encode(&hash, &info(scene, &world), &world).unwrap();
    assert!(
        again == bytes,
        "{label}: the loaded world's checkpoint differs from the saved one's ({} against {} \
         bytes; first difference at byte {:?})",
        again.len(),
        bytes.len(),
        again.iter().zip(&bytes).position(|(x, y)| x != y)
    );
    let mut second = Simulation::from_world(world, scene);
    let (mut a, mut b) = (Trace::default(), Trace::default());
    first.run(Some(end), &mut [&mut a]).unwrap();
    second.run(Some(end), &mut [&mut b]).unwrap();
    assert!(
        a.frames.len() > 1,
        "{label}: too few frames after the split"
    );
    assert_eq!(a.frames.len(), b.frames.len(), "{label}: frame counts");
    for (k, (x, y)) in a.frames.iter().zip(&b.frames).enumerate() {
        if x != y {
            let at = x.iter().zip(y).position(|(p, q)| p != q);
            panic!(
                "{label}: frame {k} after the split (t = {}) differs from the uninterrupted \
                 run's at value {at:?} of {}",
                f64::from_bits(x[0]),
                x.len()
            );
        }
    }
    assert!(a.events == b.events, "{label}: the impulses differ");
    println!(
        "{label}: {} frames after t = {split} identical, {} impulses, checkpoint {} bytes",
        a.frames.len(),
        a.events.len(),
        bytes.len()
    );
}

fn load(path: &str) -> Scene {
    scene::load(Path::new(path)).unwrap()
}

#[test]
fn a_pile_goes_on_bit_for_bit() {
    // Across the jammed islands' steps (from about 1.1 s on): the jam rule's averages are state.
    goes_on_bit_for_bit(&load("scenes/small-funnel.toml"), 1.3, 2.0);
}

#[test]
fn a_kinematic_path_goes_on_bit_for_bit() {
    goes_on_bit_for_bit(&load("scenes/machinery/hopper.toml"), 0.5, 0.9);
    goes_on_bit_for_bit(&load("scenes/machinery/feeder.toml"), 0.3, 0.6);
}

#[test]
fn joints_go_on_bit_for_bit() {
    goes_on_bit_for_bit(&load("scenes/joints/flap-feeder.toml"), 0.8, 1.5);
    goes_on_bit_for_bit(&load("scenes/joints/chain.toml"), 0.3, 0.6);
}

#[test]
fn other_modes_go_on_bit_for_bit() {
    // Microcollisions, split push-outs, a mesh, and sleeping bodies.
    goes_on_bit_for_bit(
        &load("scenes/experiments/newtons-cradle-floor.toml"),
        0.2,
        0.5,
    );
    goes_on_bit_for_bit(&load("scenes/experiments/chain-of-balls.toml"), 0.1, 0.3);
    goes_on_bit_for_bit(&load("scenes/mesh-parts.toml"), 0.4, 0.8);
    goes_on_bit_for_bit(&load("scenes/stacking/stack20.toml"), 1.0, 1.3);
    goes_on_bit_for_bit(&load("scenes/dice-drop.toml"), 1.4, 2.0);
    // Stewart & Trinkle's time-stepping: the steps begun are state.
    let mut lcp = load("scenes/experiments/four-balls.toml");
    lcp.world.config.method = Method::Lcp;
    lcp.world.config.time_step = 0.003;
    goes_on_bit_for_bit(&lcp, 0.3, 0.6);
}

#[test]
fn the_parallel_event_loop_goes_on_bit_for_bit() {
    // Enough bodies for the step's event loop to split into islands on threads.
    goes_on_bit_for_bit(&load("scenes/funnel-250.toml"), 1.24, 1.4);
}

/// A loaded state must fit its world: another scene's is refused, not loaded half way.
#[test]
fn a_state_of_another_world_is_refused() {
    let scene = load("scenes/small-funnel.toml");
    let mut sim = Simulation::new(&scene).unwrap();
    sim.run(Some(0.1), &mut []).unwrap();
    let bytes = checkpoint::encode(&[0; 32], &info(&scene, sim.world()), sim.world()).unwrap();
    let read = checkpoint::decode(Path::new("memory"), &bytes).unwrap();
    let other = load("scenes/ramp.toml");
    let err = match read.into_world(&other) {
        Ok(_) => panic!("a state of 55 bodies loaded into a world of 3"),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains("memory: does not fit its scene: the state has 55 bodies"),
        "{err}"
    );
}
