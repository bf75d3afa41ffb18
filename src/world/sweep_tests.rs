//! The contact step's sweeps in colour order: the colouring, the f64 coloured sweeps against the
//! sweeps over the tree of parts, and the device's f32 sweeps against the f64 coloured ones, on
//! the contacts of a jammed pile (small-funnel.toml at 1.6 s: 50 cubes in the outlet).

use super::World;
use crate::resting_contact::{RestingContact, Solver, StepSettings, Sweeps};
use glam::DVec3;

/// small-funnel.toml run to `until` on the host path, its next steps not prepared, so that
/// its contacts are the last contact step's.
fn jammed_pile(until: f64) -> World {
    let scene = crate::scene::load(std::path::Path::new("scenes/small-funnel.toml")).unwrap();
    let mut world = World::new(&scene).unwrap();
    world.no_prepare = true;
    while world.stores.clock.time < until - 1e-12 {
        world.step_frame(until).unwrap();
    }
    world
}

/// The pile's contacts, solver and bodies, and step settings of `sweeps` sweeps at `tolerance`.
fn pile_step(
    world: &World,
    sweeps: usize,
    tolerance: f64,
) -> (Vec<RestingContact>, Solver, StepSettings) {
    let s = &world.stores;
    let mut settings = s.step_settings(s.clock.contact_step, tolerance, sweeps, 0.25);
    settings.shock_iterations = 0;
    (
        s.contacts.step.contacts.clone(),
        s.contacts.step.solver.clone(),
        settings,
    )
}

/// Velocities of every body after a solve of `contacts` by `sweeps`, and the report.
fn solve(
    world: &World,
    contacts: &[RestingContact],
    solver: &Solver,
    settings: &StepSettings,
    sweeps: Sweeps<'_>,
) -> (
    Vec<(DVec3, DVec3)>,
    crate::resting_contact::StepReport,
    Solver,
) {
    let mut bodies = world.stores.bodies.clone();
    let mut solver = solver.clone();
    let report = solver.solve_on(&mut bodies, contacts, settings, true, sweeps, |_| {});
    let v = bodies
        .iter()
        .map(|b| (b.velocity, b.angular_velocity))
        .collect();
    (v, report, solver)
}

/// The largest difference of linear and of angular velocity between two solves.
fn largest_difference(x: &[(DVec3, DVec3)], y: &[(DVec3, DVec3)]) -> (f64, f64) {
    x.iter().zip(y).fold((0.0, 0.0), |(dv, dw), (a, b)| {
        (
            f64::max(dv, (a.0 - b.0).length()),
            f64::max(dw, (a.1 - b.1).length()),
        )
    })
}

/// No two patches of a colour share a moving body, the floor and walls (fixed) constrain
/// nothing, and the f64 sweeps in colour order end where the sweeps over the tree of parts do:
/// both are Gauss–Seidel to 10⁻⁶ m on the same rows, so the velocities they leave agree to
/// what that tolerance allows over a step.
#[test]
fn coloured_sweeps_share_no_body_and_agree_with_the_tree() {
    let world = jammed_pile(1.6);
    let (contacts, solver, settings) = pile_step(&world, 256, 1e-9);
    assert!(contacts.len() > 100, "{} contacts", contacts.len());
    let (tree, tree_report, _) = solve(&world, &contacts, &solver, &settings, Sweeps::Tree);
    let (coloured, report, after) = solve(&world, &contacts, &solver, &settings, Sweeps::Coloured);
    let (colours, independent) = after.last_colouring();
    let (dv, dw) = largest_difference(&tree, &coloured);
    eprintln!(
        "{} contacts, {colours} colours; sweeps: tree {} (residual {:.2e}), coloured {} \
         ({:.2e}); largest difference {dv:.2e} m/s, {dw:.2e} rad/s",
        contacts.len(),
        tree_report.iterations,
        tree_report.residual,
        report.iterations,
        report.residual
    );
    assert!(independent);
    assert!((2..=32).contains(&colours), "{colours} colours");
    assert!(report.residual <= 1e-9 || report.iterations == 256);
    // Projected Gauss–Seidel with friction cones stalls short of 1e-9 m on a pile (about 5e-7
    // m either way), and the loads of a face on four corners are indeterminate, so the two
    // orders may end a little apart; what matters is where that puts the bodies at the step's
    // end: within a hundredth of ε_c (a cube's corners are at most √3/2 m from its centre).
    let h = settings.h;
    let drift = (dv + dw * 0.87) * h;
    eprintln!("end-position difference over h = {h} s: {drift:.2e} m");
    assert!(
        drift < world.stores.settings.epsilon / 100.0,
        "{dv:.2e} m/s, {dw:.2e} rad/s (h = {h})"
    );
}

/// The device's f32 sweeps against the f64 sweeps in the same colour order: a fixed number of
/// sweeps (no stopping rule) ends with the same velocities to f32's precision, and with the
/// world's own tolerance and stall rule both stop after nearly the same number of sweeps.
#[test]
#[cfg_attr(
    tumble_no_gpu,
    ignore = "no Vulkan driver when built: apt-get install mesa-vulkan-drivers (lavapipe), or a GPU's"
)]
fn device_sweeps_match_the_f64_coloured_sweeps() {
    let mut gpu = match crate::gpu::GpuStages::new() {
        Ok(g) => g,
        Err(e) => {
            assert_ne!(
                std::env::var("CI").as_deref(),
                Ok("true"),
                "CI=true but no GPU adapter: {e}"
            );
            eprintln!("SKIPPED: no GPU adapter ({e})");
            return;
        }
    };
    let world = jammed_pile(1.6);
    let (contacts, solver, settings) = pile_step(&world, 12, 0.0);
    let speed = world
        .stores
        .bodies
        .iter()
        .map(|b| b.velocity.length())
        .fold(0.0, f64::max);
    let (f64_run, f64_report, _) = solve(&world, &contacts, &solver, &settings, Sweeps::Coloured);
    let (f32_run, f32_report, _) = solve(
        &world,
        &contacts,
        &solver,
        &settings,
        Sweeps::Device(&mut gpu),
    );
    let (dv, dw) = largest_difference(&f64_run, &f32_run);
    eprintln!(
        "{} contacts, fastest body {speed:.3} m/s; 12 sweeps each: largest difference \
         {dv:.2e} m/s, {dw:.2e} rad/s; residuals {:.3e} (f64) and {:.3e} (f32)",
        contacts.len(),
        f64_report.residual,
        f32_report.residual
    );
    assert!(f32_report.on_device);
    assert_eq!(f32_report.iterations, 12);
    assert_eq!(f64_report.iterations, 12);
    // f32 keeps about 7 digits of a few m/s through 12 sweeps of the pile's rows.
    let tol = 1e-4 * speed.max(1.0);
    assert!(dv < tol && dw < 10.0 * tol, "{dv:.2e} m/s, {dw:.2e} rad/s");
    let rel = (f64_report.residual - f64::from(f32_report.residual as f32)).abs();
    assert!(
        rel <= 1e-3 * f64_report.residual + 1e-7,
        "residuals differ by {rel:.2e}"
    );

    // The world's own rule: 10⁻⁶ m or a stall, at most 64 sweeps.
    let (contacts, solver, mut settings) = pile_step(&world, 64, 1e-6);
    settings.stall_window = 4;
    let (_, f64_report, _) = solve(&world, &contacts, &solver, &settings, Sweeps::Coloured);
    let (_, f32_report, _) = solve(
        &world,
        &contacts,
        &solver,
        &settings,
        Sweeps::Device(&mut gpu),
    );
    eprintln!(
        "stopping rule: {} sweeps (f64), {} (f32)",
        f64_report.iterations, f32_report.iterations
    );
    assert!(f64_report.iterations.abs_diff(f32_report.iterations) <= 2);
}
