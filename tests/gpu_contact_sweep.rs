//! The contact step's sweeps and the jammed islands' collision rounds on the device end to end,
//! on the jammed pile of small-funnel.toml to 2 s:
//!
//! - with the device minimums at 0 (`World::set_device_minimums`), every contact step is swept
//!   and the jam's collision rounds are solved on the device, none falls back to the host, and
//!   the run keeps the method's guarantees: no overlap deeper than ε_c, nothing escaped through
//!   a wall;
//! - with the default minimums, `tumble bench --backend gpu` keeps this small pile's steps and
//!   rounds on the host, where they are faster on any device (`DEVICE_MIN_POINTS`).
//!
//! (The sweeps and rounds against their f64 references are `src/world/sweep_tests.rs` and
//! `tests/gpu_collision_round.rs`.)

#[path = "cli_support/mod.rs"]
mod cli_support;
#[path = "gpu_support/mod.rs"]
mod gpu_support;

use cli_support::{text, tumble};
use gpu_support::adapter_found;
use tumble::bench::quality;
use tumble::gpu::{select, BackendKind};
use tumble::world::World;

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn a_jammed_pile_is_solved_on_the_device_within_epsilon() {
    if !adapter_found() {
        return;
    }
    let scene = tumble::scene::load(std::path::Path::new("scenes/small-funnel.toml")).unwrap();
    let mut world = World::new(&scene).unwrap();
    let selection = select(BackendKind::Gpu, scene.motion_counts().0).unwrap();
    selection.backend.install(&mut world);
    world.set_device_minimums(0, 0);
    world.set_run_end(2.0);
    while world.time() < 2.0 - 1e-12 {
        world.step_frame(2.0).unwrap();
    }
    let c = world.counts();
    let t = world.stage_times();
    let q = quality(&world, None);
    eprintln!(
        "{} contact steps, {} on the device ({:.3} s); {} collision rounds on the device \
         ({:.3} s); deepest overlap {:.2e} m; {} escaped",
        c.contact_steps,
        c.device_contact_steps,
        t.device_sweeps,
        c.device_rounds,
        t.device_rounds,
        q.max_penetration,
        q.escaped
    );
    assert!(c.contact_steps > 100, "{} contact steps", c.contact_steps);
    assert_eq!(c.device_contact_steps, c.contact_steps);
    assert_eq!(c.device_sweep_failures, 0);
    assert!(c.device_rounds > 0);
    assert_eq!(c.device_round_failures, 0);
    assert!(t.device_sweeps > 0.0 && t.device_rounds > 0.0);
    assert!(q.max_penetration <= 1e-3);
    assert_eq!(q.escaped, 0);
}

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn small_steps_stay_on_the_host_by_default() {
    if !adapter_found() {
        return;
    }
    let out = tumble(&[
        "bench",
        "scenes/small-funnel.toml",
        "--backend",
        "gpu",
        "--duration",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let json = stdout
        .lines()
        .find_map(|l| l.strip_prefix("JSON: "))
        .expect("a JSON line");
    let report: serde_json::Value = serde_json::from_str(json).unwrap();
    let count = |name: &str| report["counts"][name].as_u64().unwrap();
    assert!(count("contact_steps") > 100);
    assert_eq!(count("device_contact_steps"), 0);
    assert_eq!(count("device_rounds"), 0);
    let share = report["device_share"]
        .as_f64()
        .expect("a device share on the gpu backend");
    assert!(share > 0.0 && share <= 1.0, "device share {share}");
}
