//! An independent integration of the tippe top for `tippe_top.rs` to compare against: the same
//! rigid body (mass, centre of mass and moments as the world computes them) on the table with
//! compliant contacts at its two spherical surfaces, the ball and the stem's rounded end. The
//! normal force is a stiff spring with damping (k = 2·10⁵ N/m: 1.6 µm of sag), friction is
//! Coulomb's, μ·N against the slip, regularized below 0.1 mm/s, and the equations of motion are
//! integrated by fourth-order Runge–Kutta at 2 µs. Nothing is shared with the engine but the
//! mass properties. Its turning time moves by less than 10⁻⁴ s with the regularization at
//! 0.01 mm/s and the spring five times stiffer.

use glam::{DMat3, DQuat, DVec3};

/// Contact stiffness (N/m), damping ratio, and the slip speed below which friction is
/// regularized (m/s).
const STIFFNESS: f64 = 2e5;
const DAMPING_RATIO: f64 = 0.3;
const SLIP_REGULARIZATION: f64 = 1e-4;
/// Integration step (s).
const STEP: f64 = 2e-6;
const GRAVITY: f64 = 9.81;

/// The top: mass, transverse and axial moments about the centre of mass, and its spherical
/// surfaces as (centre along the symmetry axis from the centre of mass, radius).
pub struct Top {
    pub mass: f64,
    pub transverse: f64,
    pub axial: f64,
    pub spheres: Vec<(f64, f64)>,
}

/// One run: the tilt of the symmetry axis from the vertical (rad) and the centre of mass's
/// height (m) every `sample` seconds with the spin about the vertical then (rad/s), and when the
/// axis first passed horizontal.
pub struct Run {
    pub samples: Vec<(f64, f64, f64)>,
    pub spins: Vec<f64>,
    pub over: Option<f64>,
    pub final_spin: DVec3,
}

#[derive(Clone, Copy)]
struct State {
    x: DVec3,
    v: DVec3,
    q: DQuat,
    w: DVec3,
}

type Rate = (DVec3, DVec3, DQuat, DVec3);

impl Top {
    fn rate(&self, s: &State, friction: f64) -> Rate {
        let r = DMat3::from_quat(s.q);
        let inertia = DVec3::new(self.transverse, self.transverse, self.axial);
        let i_world = r * DMat3::from_diagonal(inertia) * r.transpose();
        let damping = 2.0 * DAMPING_RATIO * (STIFFNESS * self.mass).sqrt();
        let mut force = DVec3::new(0.0, 0.0, -GRAVITY * self.mass);
        let mut torque = DVec3::ZERO;
        for &(along, radius) in &self.spheres {
            let centre = s.x + s.q * DVec3::new(0.0, 0.0, along);
            let depth = radius - centre.z;
            if depth <= 0.0 {
                continue;
            }
            let arm = DVec3::new(centre.x, centre.y, 0.0) - s.x;
            let u = s.v + s.w.cross(arm);
            let normal = (STIFFNESS * depth - damping * u.z).max(0.0);
            let slip = DVec3::new(u.x, u.y, 0.0);
            let f = DVec3::new(0.0, 0.0, normal)
                - friction * normal * slip / slip.length().max(SLIP_REGULARIZATION);
            force += f;
            torque += arm.cross(f);
        }
        let w_dot = i_world.inverse() * (torque - s.w.cross(i_world * s.w));
        let q_dot = DQuat::from_xyzw(s.w.x, s.w.y, s.w.z, 0.0) * s.q * 0.5;
        (s.v, force / self.mass, q_dot, w_dot)
    }

    /// Flies the top from resting on its ball (the ball's centre `ball_height` above the table,
    /// the sag under its weight added), tilted by `tilt` about x and spun at `spin` rad/s
    /// about the vertical through the ball's centre, for `duration` seconds.
    pub fn run(&self, friction: f64, tilt: f64, spin: f64, duration: f64, sample: f64) -> Run {
        let q = DQuat::from_rotation_x(tilt);
        let ball = self.spheres[0].0;
        let sag = self.mass * GRAVITY / STIFFNESS;
        let centre = DVec3::new(0.0, 0.0, self.spheres[0].1 - sag);
        let com = centre - q * DVec3::new(0.0, 0.0, ball);
        let w = DVec3::new(0.0, 0.0, spin);
        let mut s = State {
            x: com,
            v: w.cross(com - centre),
            q,
            w,
        };
        let every = (sample / STEP).round() as usize;
        let steps = (duration / STEP).round() as usize;
        let mut run = Run {
            samples: Vec::new(),
            spins: Vec::new(),
            over: None,
            final_spin: DVec3::ZERO,
        };
        let tilt_of = |s: &State| (s.q * DVec3::Z).z.clamp(-1.0, 1.0).acos();
        for i in 0..=steps {
            let t = i as f64 * STEP;
            if i % every == 0 {
                run.samples.push((t, tilt_of(&s), s.x.z));
                run.spins.push(s.w.z);
            }
            if run.over.is_none() && (s.q * DVec3::Z).z < 0.0 {
                run.over = Some(t);
            }
            let add = |s: &State, d: &Rate, h: f64| State {
                x: s.x + d.0 * h,
                v: s.v + d.1 * h,
                q: s.q + d.2 * h,
                w: s.w + d.3 * h,
            };
            let k1 = self.rate(&s, friction);
            let k2 = self.rate(&add(&s, &k1, 0.5 * STEP), friction);
            let k3 = self.rate(&add(&s, &k2, 0.5 * STEP), friction);
            let k4 = self.rate(&add(&s, &k3, STEP), friction);
            let h6 = STEP / 6.0;
            s = State {
                x: s.x + (k1.0 + 2.0 * (k2.0 + k3.0) + k4.0) * h6,
                v: s.v + (k1.1 + 2.0 * (k2.1 + k3.1) + k4.1) * h6,
                q: (s.q + (k1.2 + (k2.2 + k3.2) * 2.0 + k4.2) * h6).normalize(),
                w: s.w + (k1.3 + 2.0 * (k2.3 + k3.3) + k4.3) * h6,
            };
        }
        run.final_spin = s.w;
        run
    }
}
