//! The contact step's sweeps in colour order: the colouring, the f64 coloured sweeps against the
//! sweeps over the tree of parts, and the device's f32 sweeps against the f64 coloured ones, on
//! the contacts of a jammed pile (small-funnel.toml at 1.6 s: 50 cubes in the outlet).

use super::World;
use crate::resting_contact::{RestingContact, Solver, StepSettings, Sweeps};
use glam::DVec3;

/// small-funnel.toml run to `until` on the host path, its next steps not prepared, so that
/// its contacts are the last contact step's.
fn jammed_pile(until: f64) -> World {
    pile_of("scenes/small-funnel.toml", until)
}

/// `scene` run to `until` on the host path, its next steps not prepared (see `jammed_pile`).
fn pile_of(scene: &str, until: f64) -> World {
    let scene = crate::scene::load(std::path::Path::new(scene)).unwrap();
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
    // end: within a twentieth of ε_c (a cube's corners are at most √3/2 m from its centre). A
    // cube whose twist sits at its friction limit is the largest: the two orders leave it
    // turning up to about 5e-3 rad/s apart (2e-5 m over the step), the scalar sweep in the
    // tree's own order as well as the lanes.
    let h = settings.h;
    let drift = (dv + dw * 0.87) * h;
    eprintln!("end-position difference over h = {h} s: {drift:.2e} m");
    assert!(
        drift < world.stores.settings.epsilon / 20.0,
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

/// A collision round through the device path with the f64 twin as the device
/// (`stages::collision_round::collision_round`) against the host's joint round over the same
/// rows in the same colour order: the packing (points from the centres, K, effective masses,
/// world inverse inertias, which bodies move), the twin and the unpacking (f64 velocities plus
/// the round's change) together give the host's velocities to f32's precision.
#[test]
fn a_collision_round_through_the_device_path_matches_the_host() {
    use super::impacts::ImpactScratch;
    use super::island_step::STEP;
    use crate::stages::collision_round::{
        collision_round, CollisionRounds, RoundInput, RoundOutput,
    };
    use crate::stages::StageError;

    struct Twin(usize);
    impl CollisionRounds for Twin {
        fn collision_round(&mut self, input: &RoundInput<'_>) -> Result<RoundOutput, StageError> {
            self.0 = input.params.colours as usize;
            Ok(collision_round(input))
        }
    }

    let mut world = super::tests::stacks_on_a_floor("", &[-1.0, 0.0, 1.0], 4);
    world.no_prepare = true;
    while world.stores.clock.time < 0.3 - 1e-12 {
        world.step_frame(0.3).unwrap();
    }
    // Every cube falls faster than the one below it and spins a little, so that every contact
    // of the stacks approaches as an impact.
    let s = &mut world.stores;
    for (k, b) in s
        .bodies
        .iter_mut()
        .enumerate()
        .filter(|(_, b)| b.is_dynamic())
    {
        b.velocity = DVec3::new(0.0, 0.0, -0.5 * (1 + k % 4) as f64);
        b.angular_velocity = DVec3::new(0.3, -0.2, 0.1 * (k % 3) as f64);
    }
    let contacts = s.contacts.step.contacts.clone();
    let mut set = ImpactScratch::default();
    for c in &contacts {
        let (x, y) = (c.a as usize, c.b as usize);
        let p = c.point();
        let un = s.normal_speed(x, y, &p);
        if un < 0.0 {
            set.rows.push(s.impact_row(x, y, &p, un));
        }
    }
    assert!(set.rows.len() >= 24, "{} rows", set.rows.len());
    let mut seen = std::collections::HashSet::new();
    for r in &set.rows {
        for i in [r.a, r.b] {
            if seen.insert(i) {
                set.saved
                    .push(crate::body::SavedVelocity::of(i, &s.bodies[i]));
            }
        }
    }
    let start = s.bodies.clone();
    let mut twin = Twin(0);
    s.device_joint_round(&mut set, STEP, &mut twin);
    let device: Vec<_> = s
        .bodies
        .iter()
        .map(|b| (b.velocity, b.angular_velocity))
        .collect();
    // The host's round over the rows as the device path left them: in colour order.
    s.bodies = start;
    s.joint_round(&mut set, 1.0, STEP);
    let host: Vec<_> = s
        .bodies
        .iter()
        .map(|b| (b.velocity, b.angular_velocity))
        .collect();
    let (dv, dw) = largest_difference(&host, &device);
    eprintln!(
        "{} rows, {} colours: largest difference {dv:.2e} m/s, {dw:.2e} rad/s",
        set.rows.len(),
        twin.0
    );
    assert!(twin.0 >= 2);
    assert_eq!(s.stats.counts.device_rounds, 1);
    assert!(dv < 1e-5 && dw < 1e-4, "{dv:.2e} m/s, {dw:.2e} rad/s");
}

/// The lanes sweep against its scalar twin in the same order: the same velocities and
/// impulses bit for bit, after a fixed number of sweeps and with the world's stopping rule;
/// and both against the scalar sweep in the tree's own order, to the solve's tolerance.
#[test]
fn lanes_match_their_scalar_twin_bit_for_bit() {
    let world = jammed_pile(1.6);
    for (sweeps, tolerance) in [(16, 0.0), (256, 1e-6)] {
        let (contacts, solver, mut settings) = pile_step(&world, sweeps, tolerance);
        settings.shock_iterations = 2;
        let (lanes, lanes_report, after) =
            solve(&world, &contacts, &solver, &settings, Sweeps::Tree);
        let (groups, full) = after.last_lanes();
        // Groups close when full or when eight are open: most lanes hold a patch.
        eprintln!("{groups} groups of 4 lanes, {full} holding a patch");
        assert!(
            full * 10 >= groups * 4 * 8,
            "{full} of {} lanes",
            groups * 4
        );
        let (twin, twin_report, _) = solve(&world, &contacts, &solver, &settings, Sweeps::Scalar);
        let (plain, plain_report, _) = solve(&world, &contacts, &solver, &settings, Sweeps::Plain);
        let bits = |v: &[(DVec3, DVec3)]| -> Vec<u64> {
            v.iter()
                .flat_map(|(a, b)| [a.x, a.y, a.z, b.x, b.y, b.z])
                .map(f64::to_bits)
                .collect()
        };
        let (dv, dw) = largest_difference(&lanes, &plain);
        eprintln!(
            "{} contacts, {sweeps} sweeps at most: lanes {} (residual {:.3e}), twin {} \
             ({:.3e}), tree order {} ({:.3e}); lanes against the tree order: {dv:.2e} m/s, \
             {dw:.2e} rad/s",
            contacts.len(),
            lanes_report.iterations,
            lanes_report.residual,
            twin_report.iterations,
            twin_report.residual,
            plain_report.iterations,
            plain_report.residual,
        );
        assert!(bits(&lanes) == bits(&twin), "lanes and twin differ");
        assert_eq!(lanes_report.iterations, twin_report.iterations);
        assert_eq!(
            lanes_report.residual.to_bits(),
            twin_report.residual.to_bits()
        );
        if tolerance > 0.0 {
            let drift = (dv + dw * 0.87) * settings.h;
            assert!(
                drift < world.stores.settings.epsilon / 100.0,
                "{drift:.2e} m"
            );
        }
    }
}

/// Wall time of the three host sweeps on the pile's step (a measurement, not a check: run
/// with `--ignored --nocapture`).
#[test]
#[ignore]
fn time_the_host_sweeps() {
    // TUMBLE_PILE="scenes/funnel.toml 2.0" times a larger pile.
    let pile = std::env::var("TUMBLE_PILE").unwrap_or("scenes/small-funnel.toml 1.6".into());
    let (scene, until) = pile.split_once(' ').unwrap();
    let world = pile_of(scene, until.parse().unwrap());
    let (contacts, solver, settings) = pile_step(&world, 32, 0.0);
    let runs = (400_000 / contacts.len()).max(4);
    for (name, kind) in [
        ("plain", 0),
        ("scalar", 1),
        ("lanes", 2),
        ("plain", 0),
        ("lanes", 2),
    ] {
        let clock = std::time::Instant::now();
        let mut report = None;
        for _ in 0..runs {
            let sweeps = match kind {
                0 => Sweeps::Plain,
                1 => Sweeps::Scalar,
                _ => Sweeps::Tree,
            };
            report = Some(solve(&world, &contacts, &solver, &settings, sweeps).1);
        }
        let r = report.unwrap();
        eprintln!(
            "{name}: {:.2} µs a solve, sweeps {:.3} ms in all, {:.1} ns per point-sweep",
            clock.elapsed().as_secs_f64() / runs as f64 * 1e6,
            r.sweep_seconds * 1e3,
            r.sweep_seconds / (contacts.len() * r.iterations) as f64 * 1e9
        );
    }
}

/// A step large enough to be prepared in chunks on the pool's threads, with pairs whose two
/// bodies do not yield (two fixed bodies) among its contacts: their contacts make no rows,
/// which leaves gaps in the chunks' rows, closed before the solve. The solve is that of the
/// step without them, bit for bit.
#[test]
fn pairs_that_cannot_yield_leave_no_rows() {
    let world = pile_of("scenes/funnel-250.toml", 2.5);
    let (contacts, solver, settings) = pile_step(&world, 16, 1e-6);
    assert!(contacts.len() >= 1024, "{} contacts", contacts.len());
    let fixed: Vec<u32> = (0..world.stores.bodies.len())
        .filter(|&i| !world.stores.bodies[i].is_dynamic())
        .map(|i| i as u32)
        .collect();
    assert!(fixed.len() >= 2);
    // Two contacts of the fixed pair before every 40th pair's run.
    let mut padded = Vec::new();
    let mut runs = 0;
    for (k, c) in contacts.iter().enumerate() {
        if k == 0 || (contacts[k - 1].a, contacts[k - 1].b) != (c.a, c.b) {
            if runs % 40 == 0 {
                let mut f = *c;
                (f.a, f.b) = (fixed[0], fixed[1]);
                padded.extend([f, f]);
            }
            runs += 1;
        }
        padded.push(*c);
    }
    let (v, report, _) = solve(&world, &contacts, &solver, &settings, Sweeps::Tree);
    let (v_padded, report_padded, _) = solve(&world, &padded, &solver, &settings, Sweeps::Tree);
    assert!(padded.len() > contacts.len() + 20);
    assert_eq!(report.iterations, report_padded.iterations);
    assert_eq!(report.residual.to_bits(), report_padded.residual.to_bits());
    assert!(v == v_padded, "the velocities differ");
}
