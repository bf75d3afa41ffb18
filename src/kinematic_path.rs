//! Prescribed motion of kinematic bodies (`path = { type = … }` in a scene): a body's pose,
//! velocity and angular velocity at any time come from its path in closed form, never from
//! integration, so contacts see the true surface velocity of a moving fixture.
//!
//! A path moves the body's shape frame from the pose its scene entry gives (`position` x₀,
//! `orientation` q₀); a kinematic body's body frame is its shape frame, so the path moves the
//! body's reference point itself:
//!
//! - **oscillate**: `x(t) = x₀ + A (sin(2πf t + φ) − sin φ)`, orientation q₀;
//! - **rock**: `q(t) = R(u, Θ (sin(2πf t + φ) − sin φ)) q₀` about the axis u through x₀;
//! - **keyframes**: `x(t) = x₀ + p(t)`, `q(t) = r(t) q₀`, with p piecewise linear and r a
//!   slerp between the key rotations (so the angular velocity is constant on each segment),
//!   held at the first key before `times[0]` and at the last after the end unless the path
//!   repeats.
//!
//! Both sinusoids start at the scene pose (`x(0) = x₀`) with velocity `A 2πf cos φ`.
//!
//! The time-of-impact bounds need more than the velocity now: a path departs from the line
//! `x + v t` of its present velocity. [`KinematicPath::speed_slack`] and
//! [`KinematicPath::acceleration_slack`] bound that departure, for all time ahead, by
//! `|x(t + s) − x(t) − v(t) s| ≤ β s + ½ α s²` (see `docs/design.md`, Prescribed motion).

use glam::{DQuat, DVec3};
use std::f64::consts::{FRAC_PI_2, TAU};

/// Relative margin for rounding on every bound a path gives.
const ROUND: f64 = 1e-12;

/// A path as a scene gives it, relative to the body's scene pose.
#[derive(Clone, Debug, PartialEq)]
pub enum PathSpec {
    /// Sinusoidal translation: `A (sin(2πf t + φ) − sin φ)`.
    Oscillate {
        /// Amplitude vector A (m).
        amplitude: DVec3,
        /// Frequency f (Hz, ≥ 0).
        frequency: f64,
        /// Phase φ (rad).
        phase: f64,
    },
    /// Sinusoidal rotation about `axis` through the body's origin: angle
    /// `Θ (sin(2πf t + φ) − sin φ)`.
    Rock {
        /// Unit axis (world).
        axis: DVec3,
        /// Amplitude Θ (rad).
        amplitude: f64,
        /// Frequency f (Hz, ≥ 0).
        frequency: f64,
        /// Phase φ (rad).
        phase: f64,
    },
    /// Piecewise linear displacement and slerped rotation between keys.
    Keyframes {
        /// Key times (s), strictly increasing, at least two.
        times: Vec<f64>,
        /// Displacement of the body's origin from its scene position at each key (m).
        positions: Vec<DVec3>,
        /// Rotation (unit quaternion, world axes) applied to the scene orientation at each key.
        orientations: Vec<DQuat>,
        /// Loop from the last key back to the first (which must then be equal).
        repeat: bool,
    },
}

impl PathSpec {
    /// The name used in scene files ("oscillate", "rock", "keyframes").
    pub fn type_name(&self) -> &'static str {
        match self {
            PathSpec::Oscillate { .. } => "oscillate",
            PathSpec::Rock { .. } => "rock",
            PathSpec::Keyframes { .. } => "keyframes",
        }
    }

    /// Checks what [`KinematicPath::new`] relies on (the scene reader reports the same problems
    /// with their place in the file; this guards specs built in code).
    pub fn validate(&self) -> Result<(), String> {
        let frequency_ok = |f: f64| f.is_finite() && f >= 0.0;
        let ok = match self {
            PathSpec::Oscillate {
                amplitude,
                frequency,
                phase,
            } => amplitude.is_finite() && frequency_ok(*frequency) && phase.is_finite(),
            PathSpec::Rock {
                axis,
                amplitude,
                frequency,
                phase,
            } => {
                (axis.length() - 1.0).abs() < 1e-9
                    && amplitude.is_finite()
                    && frequency_ok(*frequency)
                    && phase.is_finite()
            }
            PathSpec::Keyframes {
                times,
                positions,
                orientations,
                repeat,
            } => {
                let n = times.len();
                n >= 2
                    && positions.len() == n
                    && orientations.len() == n
                    && times.iter().all(|t| t.is_finite())
                    && times.windows(2).all(|w| w[1] > w[0])
                    && positions.iter().all(|p| p.is_finite())
                    && orientations
                        .iter()
                        .all(|q| q.is_finite() && (q.length() - 1.0).abs() < 1e-9)
                    && (!repeat
                        || ((positions[n - 1] - positions[0]).length()
                            <= 1e-12 * (1.0 + positions[0].length())
                            && orientations[n - 1].dot(orientations[0]).abs() >= 1.0 - 1e-12))
            }
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "invalid {} path (frequencies must be finite and >= 0, a rock's axis a unit \
                 vector, keyframes at least two with increasing times, one unit orientation \
                 and one position per time, and a loop closed): {self:?}",
                self.type_name()
            ))
        }
    }
}

/// A body's pose and velocities on its path at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathState {
    /// Position of the body's origin (m).
    pub position: DVec3,
    /// Orientation.
    pub orientation: DQuat,
    /// Velocity of the origin (m/s).
    pub velocity: DVec3,
    /// Angular velocity, world (rad/s).
    pub angular_velocity: DVec3,
}

/// One keyframe segment, `[t0, t0 + dt]`.
#[derive(Clone, Debug)]
struct Segment {
    t0: f64,
    dt: f64,
    /// Displacement at the start and over the segment.
    p0: DVec3,
    dp: DVec3,
    /// Rotation at the start, and the rotation over the segment as axis × angle.
    r0: DQuat,
    turn: DVec3,
}

/// A path placed at a body's scene pose, with the bounds its motion needs.
#[derive(Clone, Debug)]
pub struct KinematicPath {
    spec: PathSpec,
    /// Scene position and orientation (the pose the path starts from).
    origin: DVec3,
    orientation: DQuat,
    /// Keyframe segments (empty for the sinusoids).
    segments: Vec<Segment>,
    /// Largest speed of the origin (m/s) and largest |ω| (rad/s) along the whole path.
    max_speed: f64,
    max_angular_speed: f64,
    /// Largest acceleration of the origin (m/s²); ∞ for keyframes (velocity jumps at keys).
    max_acceleration: f64,
}

impl KinematicPath {
    /// Places `spec` at the scene pose `(origin, orientation)`. The spec must be valid (the
    /// scene reader checks it: frequencies ≥ 0, a unit axis, increasing times, unit keys).
    pub fn new(spec: PathSpec, origin: DVec3, orientation: DQuat) -> Self {
        let mut path = KinematicPath {
            origin,
            orientation,
            segments: Vec::new(),
            max_speed: 0.0,
            max_angular_speed: 0.0,
            max_acceleration: 0.0,
            spec,
        };
        match &path.spec {
            PathSpec::Oscillate {
                amplitude,
                frequency,
                ..
            } => {
                let w = TAU * frequency;
                path.max_speed = amplitude.length() * w;
                path.max_acceleration = amplitude.length() * w * w;
            }
            PathSpec::Rock {
                amplitude,
                frequency,
                ..
            } => {
                path.max_angular_speed = amplitude.abs() * TAU * frequency;
            }
            PathSpec::Keyframes {
                times,
                positions,
                orientations,
                repeat,
            } => {
                let n = times.len();
                for k in 0..n.saturating_sub(1) {
                    // A loop closes exactly on its first key.
                    let next = if *repeat && k + 2 == n { 0 } else { k + 1 };
                    let (ra, mut rb) = (orientations[k], orientations[next]);
                    if ra.dot(rb) < 0.0 {
                        rb = -rb;
                    }
                    let (axis, angle) = (rb * ra.inverse()).normalize().to_axis_angle();
                    let seg = Segment {
                        t0: times[k],
                        dt: times[k + 1] - times[k],
                        p0: positions[k],
                        dp: positions[next] - positions[k],
                        r0: ra,
                        turn: if angle == 0.0 {
                            DVec3::ZERO
                        } else {
                            axis * angle
                        },
                    };
                    path.max_speed = path.max_speed.max(seg.dp.length() / seg.dt);
                    path.max_angular_speed = path.max_angular_speed.max(seg.turn.length() / seg.dt);
                    path.segments.push(seg);
                }
                path.max_acceleration = if path.max_speed > 0.0 {
                    f64::INFINITY
                } else {
                    0.0
                };
            }
        }
        path
    }

    /// The path as the scene gave it.
    pub fn spec(&self) -> &PathSpec {
        &self.spec
    }

    /// True if the path ever turns the body (else its orientation is always the scene's).
    pub fn rotates(&self) -> bool {
        self.max_angular_speed > 0.0
    }

    /// Largest speed of the body's origin along the path (m/s).
    pub fn max_speed(&self) -> f64 {
        self.max_speed * (1.0 + ROUND)
    }

    /// Largest angular speed along the path (rad/s).
    pub fn max_angular_speed(&self) -> f64 {
        self.max_angular_speed * (1.0 + ROUND)
    }

    /// β (m/s) of the departure bound `|x(t + s) − x(t) − v(t) s| ≤ β s + ½ α s²`, given the
    /// velocity `v` now: for keyframes, whose velocity jumps at the keys, `|v(t + s) − v(t)|` is
    /// at most the path's largest speed plus the present one; 0 for the sinusoids, which
    /// [`Self::acceleration_slack`] bounds instead.
    pub fn speed_slack(&self, velocity: DVec3) -> f64 {
        match self.spec {
            PathSpec::Keyframes { .. } if self.max_speed > 0.0 => {
                (self.max_speed + velocity.length()) * (1.0 + ROUND)
            }
            _ => 0.0,
        }
    }

    /// α (m/s²) of the departure bound (see [`Self::speed_slack`]): the largest acceleration
    /// of the origin, `(2πf)² |A|`, for an oscillation (Taylor's theorem); 0 otherwise (a rock
    /// never moves the origin; keyframes use β).
    pub fn acceleration_slack(&self) -> f64 {
        match self.spec {
            PathSpec::Oscillate { .. } => self.max_acceleration * (1.0 + ROUND),
            _ => 0.0,
        }
    }

    /// Pose and velocities at time `t` (s), exact (no integration).
    pub fn state_at(&self, t: f64) -> PathState {
        match &self.spec {
            PathSpec::Oscillate {
                amplitude,
                frequency,
                phase,
            } => {
                let w = TAU * frequency;
                let theta = w * t + phase;
                PathState {
                    position: self.origin + *amplitude * (theta.sin() - phase.sin()),
                    orientation: self.orientation,
                    velocity: *amplitude * (w * theta.cos()),
                    angular_velocity: DVec3::ZERO,
                }
            }
            PathSpec::Rock {
                axis,
                amplitude,
                frequency,
                phase,
            } => {
                let w = TAU * frequency;
                let theta = w * t + phase;
                let angle = amplitude * (theta.sin() - phase.sin());
                PathState {
                    position: self.origin,
                    orientation: (DQuat::from_axis_angle(*axis, angle) * self.orientation)
                        .normalize(),
                    velocity: DVec3::ZERO,
                    angular_velocity: *axis * (amplitude * w * theta.cos()),
                }
            }
            PathSpec::Keyframes { .. } => {
                let (seg, s, moving) = self.segment_at(t);
                let f = s / seg.dt;
                let r = DQuat::from_scaled_axis(seg.turn * f) * seg.r0;
                let (velocity, angular_velocity) = if moving {
                    (seg.dp / seg.dt, seg.turn / seg.dt)
                } else {
                    (DVec3::ZERO, DVec3::ZERO)
                };
                PathState {
                    position: self.origin + (seg.p0 + seg.dp * f),
                    orientation: (r * self.orientation).normalize(),
                    velocity,
                    angular_velocity,
                }
            }
        }
    }

    /// Linear and angular acceleration at time `t` (m/s², rad/s²): the sinusoids' second
    /// derivatives; zero for keyframes (their velocity is piecewise constant).
    pub fn acceleration_at(&self, t: f64) -> (DVec3, DVec3) {
        match &self.spec {
            PathSpec::Oscillate {
                amplitude,
                frequency,
                phase,
            } => {
                let w = TAU * frequency;
                (-*amplitude * (w * w * (w * t + phase).sin()), DVec3::ZERO)
            }
            PathSpec::Rock {
                axis,
                amplitude,
                frequency,
                phase,
            } => {
                let w = TAU * frequency;
                (
                    DVec3::ZERO,
                    -*axis * (amplitude * w * w * (w * t + phase).sin()),
                )
            }
            PathSpec::Keyframes { .. } => (DVec3::ZERO, DVec3::ZERO),
        }
    }

    /// The keyframe segment at time `t`, the time into it, and whether the body moves along it
    /// (false while held before the first key or after the last).
    fn segment_at(&self, t: f64) -> (&Segment, f64, bool) {
        let first = &self.segments[0];
        let last = &self.segments[self.segments.len() - 1];
        let (t_first, t_end) = (first.t0, last.t0 + last.dt);
        let repeat = matches!(self.spec, PathSpec::Keyframes { repeat: true, .. });
        if t < t_first {
            return (first, 0.0, false);
        }
        let tau = if repeat {
            t_first + (t - t_first).rem_euclid(t_end - t_first)
        } else if t >= t_end {
            return (last, last.dt, false);
        } else {
            t
        };
        let k = self
            .segments
            .partition_point(|s| s.t0 <= tau)
            .saturating_sub(1);
        let seg = &self.segments[k];
        (seg, (tau - seg.t0).clamp(0.0, seg.dt), true)
    }

    /// A box containing the body's origin at every time in `[t0, t1]` (conservative: padded for
    /// rounding).
    pub fn position_range(&self, t0: f64, t1: f64) -> (DVec3, DVec3) {
        let (lo, hi) = match &self.spec {
            PathSpec::Oscillate {
                amplitude,
                frequency,
                phase,
            } => {
                let w = TAU * frequency;
                let (s_lo, s_hi) = sin_range(w * t0 + phase, w * t1 + phase);
                let (a, b) = (
                    *amplitude * (s_lo - phase.sin()),
                    *amplitude * (s_hi - phase.sin()),
                );
                (self.origin + a.min(b), self.origin + a.max(b))
            }
            PathSpec::Rock { .. } => (self.origin, self.origin),
            PathSpec::Keyframes { .. } => {
                // Piecewise linear: the extremes are at the interval's ends or at keys inside it.
                let p = self.state_at(t0).position;
                let (mut lo, mut hi) = (p, p);
                let mut take = |t: f64| {
                    let p = self.state_at(t).position;
                    lo = lo.min(p);
                    hi = hi.max(p);
                };
                take(t1);
                let first = self.segments[0].t0;
                let period = {
                    let last = &self.segments[self.segments.len() - 1];
                    last.t0 + last.dt - first
                };
                let repeat = matches!(self.spec, PathSpec::Keyframes { repeat: true, .. });
                if repeat && t1 - t0 >= period {
                    for seg in &self.segments {
                        lo = lo.min(self.origin + seg.p0);
                        hi = hi.max(self.origin + seg.p0);
                    }
                } else {
                    for seg in &self.segments {
                        let mut tk = seg.t0;
                        if repeat && tk < t0 {
                            tk += ((t0 - tk) / period).ceil() * period;
                        }
                        if tk >= t0 && tk <= t1 {
                            lo = lo.min(self.origin + seg.p0);
                            hi = hi.max(self.origin + seg.p0);
                        }
                    }
                }
                (lo, hi)
            }
        };
        let pad = ROUND
            * (1.0
                + self.origin.abs().max_element()
                + lo.abs().max_element()
                + hi.abs().max_element());
        (lo - DVec3::splat(pad), hi + DVec3::splat(pad))
    }
}

/// The range of `sin` over `[a, b]` (`a ≤ b`).
fn sin_range(a: f64, b: f64) -> (f64, f64) {
    // Also a NaN span: no range is known.
    if !(0.0..TAU).contains(&(b - a)) {
        return (-1.0, 1.0);
    }
    let (sa, sb) = (a.sin(), b.sin());
    let (mut lo, mut hi) = (sa.min(sb), sa.max(sb));
    // A crest at π/2 + 2πk or a trough at −π/2 + 2πk inside the interval.
    if FRAC_PI_2 + ((a - FRAC_PI_2) / TAU).ceil() * TAU <= b {
        hi = 1.0;
    }
    if -FRAC_PI_2 + ((a + FRAC_PI_2) / TAU).ceil() * TAU <= b {
        lo = -1.0;
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyframes(repeat: bool) -> KinematicPath {
        let spec = PathSpec::Keyframes {
            times: vec![0.5, 1.0, 2.0],
            positions: vec![DVec3::ZERO, DVec3::new(1.0, 0.0, 0.0), DVec3::ZERO],
            orientations: vec![
                DQuat::IDENTITY,
                DQuat::from_rotation_z(1.0),
                DQuat::IDENTITY,
            ],
            repeat,
        };
        KinematicPath::new(spec, DVec3::new(0.0, 0.0, 1.0), DQuat::IDENTITY)
    }

    /// The state's velocities are the derivatives of its pose (central differences).
    #[test]
    fn velocities_are_the_derivatives_of_the_pose() {
        let paths = [
            KinematicPath::new(
                PathSpec::Oscillate {
                    amplitude: DVec3::new(0.01, 0.0, 0.02),
                    frequency: 7.0,
                    phase: 0.4,
                },
                DVec3::ONE,
                DQuat::from_rotation_x(0.3),
            ),
            KinematicPath::new(
                PathSpec::Rock {
                    axis: DVec3::new(0.0, 0.6, 0.8),
                    amplitude: 0.3,
                    frequency: 2.0,
                    phase: 0.0,
                },
                DVec3::ONE,
                DQuat::from_rotation_x(0.3),
            ),
            keyframes(true),
        ];
        for path in &paths {
            for t in [0.6, 0.77, 1.3, 2.9] {
                let h = 1e-6;
                let (a, b, s) = (path.state_at(t - h), path.state_at(t + h), path.state_at(t));
                let v = (b.position - a.position) / (2.0 * h);
                assert!((v - s.velocity).length() < 1e-6, "{t}: {v} {}", s.velocity);
                let dq = b.orientation * a.orientation.inverse();
                let w = dq.to_scaled_axis() / (2.0 * h);
                assert!((w - s.angular_velocity).length() < 1e-6, "{t}: {w}");
            }
        }
    }

    #[test]
    fn keyframes_hold_loop_and_reach_their_keys() {
        let once = keyframes(false);
        assert_eq!(once.state_at(0.0).velocity, DVec3::ZERO);
        assert_eq!(once.state_at(1.0).position, DVec3::new(1.0, 0.0, 1.0));
        assert_eq!(once.state_at(5.0).position, DVec3::new(0.0, 0.0, 1.0));
        assert_eq!(once.state_at(5.0).velocity, DVec3::ZERO);
        let looped = keyframes(true);
        let (a, b) = (looped.state_at(0.75), looped.state_at(2.25));
        assert!((a.position - b.position).length() < 1e-12);
        assert_eq!(looped.state_at(0.75).velocity, DVec3::new(2.0, 0.0, 0.0));
        let (lo, hi) = looped.position_range(0.6, 0.7);
        assert!(lo.x <= 0.2 && hi.x >= 0.4 && hi.x < 0.41, "{lo} {hi}");
        let (_, hi) = looped.position_range(2.4, 2.6);
        assert!(hi.x >= 1.0 - 1e-12, "{hi}");
    }

    /// Sampled positions stay inside `position_range`, and the departure from the present
    /// velocity's line inside `β s + ½ α s²`.
    #[test]
    fn ranges_and_slacks_contain_the_path() {
        let osc = KinematicPath::new(
            PathSpec::Oscillate {
                amplitude: DVec3::new(0.003, -0.001, 0.002),
                frequency: 31.0,
                phase: 1.1,
            },
            DVec3::new(0.5, 0.0, 2.0),
            DQuat::IDENTITY,
        );
        for path in [&osc, &keyframes(true), &keyframes(false)] {
            for k in 0..200 {
                let t0 = 0.013 * k as f64;
                for dt in [1e-3, 2.5e-3, 0.02, 0.4] {
                    let (lo, hi) = path.position_range(t0, t0 + dt);
                    let s0 = path.state_at(t0);
                    let (beta, alpha) = (path.speed_slack(s0.velocity), path.acceleration_slack());
                    for j in 0..=50 {
                        let s = dt * j as f64 / 50.0;
                        let p = path.state_at(t0 + s).position;
                        assert!(p.cmpge(lo).all() && p.cmple(hi).all(), "{t0} {s}: {p}");
                        let off = (p - s0.position - s0.velocity * s).length();
                        assert!(off <= beta * s + 0.5 * alpha * s * s + 1e-12, "{t0} {s}");
                    }
                }
            }
        }
    }

    /// Specs built in code are checked before a path is placed (no panic on a bad one).
    #[test]
    fn validate_refuses_what_new_cannot_place() {
        let keys = |times: Vec<f64>, repeat: bool| PathSpec::Keyframes {
            positions: vec![DVec3::X; times.len()],
            orientations: vec![DQuat::IDENTITY; times.len()],
            times,
            repeat,
        };
        assert!(keys(vec![0.0, 1.0], true).validate().is_ok());
        assert!(keys(vec![0.0], false).validate().is_err());
        assert!(keys(vec![1.0, 1.0], false).validate().is_err());
        let rock = |axis: DVec3, frequency: f64| PathSpec::Rock {
            axis,
            amplitude: 0.1,
            frequency,
            phase: 0.0,
        };
        assert!(rock(DVec3::Z, 2.0).validate().is_ok());
        assert!(rock(DVec3::ZERO, 2.0).validate().is_err());
        assert!(rock(DVec3::Z, -1.0).validate().is_err());
        assert!(rock(DVec3::Z, f64::NAN).validate().is_err());
    }

    #[test]
    fn sin_range_finds_crests_and_troughs() {
        assert_eq!(sin_range(0.0, 2.0), (0.0, 1.0));
        assert_eq!(sin_range(-2.0, 0.0).0, -1.0);
        let (lo, hi) = sin_range(0.1, 0.2);
        assert!((lo - 0.1f64.sin()).abs() < 1e-15 && (hi - 0.2f64.sin()).abs() < 1e-15);
        assert_eq!(sin_range(0.0, 7.0), (-1.0, 1.0));
    }
}
