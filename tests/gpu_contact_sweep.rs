//! The contact step's sweeps on the device end to end: `tumble bench --backend gpu` on the
//! jammed pile of small-funnel.toml sweeps every contact step on the device (none falls back to
//! the host), and the run keeps the method's guarantees: no overlap deeper than ε_c, nothing
//! escaped through a wall. (The sweeps against their f64 reference, step by step, are unit
//! tests in `src/world/sweep_tests.rs`.)

#[path = "cli_support/mod.rs"]
mod cli_support;

use cli_support::{text, tumble};
use tumble::gpu::GpuContext;

#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn a_jammed_pile_is_swept_on_the_device_within_epsilon() {
    if let Err(e) = GpuContext::new() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI=true but no GPU adapter: {e}"
        );
        println!("SKIPPED: no GPU adapter ({e})");
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
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = stdout
        .lines()
        .find_map(|l| l.strip_prefix("JSON: "))
        .expect("a JSON line");
    let report: serde_json::Value = serde_json::from_str(json).unwrap();
    let count = |name: &str| report["counts"][name].as_u64().unwrap();
    let (steps, on_device) = (count("contact_steps"), count("device_contact_steps"));
    let seconds = |name: &str| report["stage_times"][name].as_f64().unwrap();
    eprintln!(
        "{steps} contact steps, {on_device} on the device ({:.3} s of {:.3} s wall); \
         deepest overlap {} m; {} escaped; {} through the outlet",
        seconds("device_sweeps"),
        report["wall_time"].as_f64().unwrap(),
        report["max_penetration"],
        report["escaped"],
        report["through_outlet"]
    );
    assert!(steps > 100, "{steps} contact steps");
    assert_eq!(on_device, steps);
    assert_eq!(count("device_sweep_failures"), 0);
    assert!(seconds("device_sweeps") > 0.0);
    let share = report["device_share"].as_f64().expect("a device share on the gpu backend");
    assert!(share > 0.0 && share <= 1.0, "device share {share}");
    assert!(report["max_penetration"].as_f64().unwrap() <= 1e-3);
    assert_eq!(report["escaped"], 0);
}
