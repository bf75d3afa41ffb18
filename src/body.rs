//! Rigid bodies: hot state (advanced lazily, each body on its own clock), cold data, and how a
//! body moves ([`Motion`]).
//!
//! The body frame has its origin at the centre of mass and its axes along the principal axes of
//! inertia, so the inertia tensor is diagonal there. Users write poses of the *shape* frame; the
//! fixed transform between the two (`com_in_shape`, `principal_axes`) converts back for output.

use crate::ballistic;
use crate::kinematic_path::KinematicPath;
use crate::narrow_phase::{box_corners, Collider, Pose};
use crate::shape::Shape;
use crate::toi_bound::MotionBound;
use glam::{DMat3, DQuat, DVec3};
use std::sync::Arc;

mod world_inertia;
pub(crate) use world_inertia::WorldInertia;

/// Polytopes with more vertices than this use the support-function TOI bound instead.
pub const MAX_BOUND_VERTICES: usize = 16;

/// Bodies from which a pass that reads every body ([`read_each`]) runs on the pool's threads.
const PARALLEL_READS: usize = 4096;

/// `read` of every body into `out` (cleared first), in body order: on all cores in a large
/// world, where each body read is a cache miss (a body is hundreds of bytes).
pub(crate) fn read_each<T: Send>(
    bodies: &[Body],
    out: &mut Vec<T>,
    read: impl Fn(&Body) -> T + Sync + Send,
) {
    out.clear();
    if bodies.len() >= PARALLEL_READS {
        use rayon::prelude::*;
        let each = bodies.par_iter().with_min_len(PARALLEL_READS / 4);
        out.par_extend(each.map(read));
    } else {
        out.extend(bodies.iter().map(read));
    }
}

/// Body-frame vertices of a polytope shape for the per-vertex TOI bound (see
/// [`crate::toi_bound::EnvelopeBound`]); empty for curved shapes and large hulls.
pub(crate) fn bound_vertices(shape: &Shape, shape_to_body: &Pose) -> Vec<DVec3> {
    match shape {
        Shape::Box { half_extents } => box_corners(
            shape_to_body.position,
            shape_to_body.orientation,
            *half_extents,
        )
        .to_vec(),
        Shape::Convex { vertices }
        | Shape::Mesh {
            collision: crate::mesh::MeshCollision::Hull { vertices },
            ..
        } if vertices.len() <= MAX_BOUND_VERTICES => vertices
            .iter()
            .map(|v| shape_to_body.position + shape_to_body.orientation * *v)
            .collect(),
        _ => Vec::new(),
    }
}

/// How a body moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    /// Moves under gravity and collisions.
    Dynamic,
    /// Never moves; infinite mass.
    Fixed,
    /// Moves forever with its given linear and angular velocity, or along its prescribed path
    /// ([`Body::path`]); infinite mass.
    Kinematic,
}

impl Motion {
    /// The name used in scene files and output ("dynamic", "fixed", "kinematic").
    pub fn as_str(self) -> &'static str {
        match self {
            Motion::Dynamic => "dynamic",
            Motion::Fixed => "fixed",
            Motion::Kinematic => "kinematic",
        }
    }
}

/// A body's state in its user frame (the frame its scene entry was written in).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct BodyState {
    /// Position of the shape frame's origin (m).
    pub position: DVec3,
    /// Orientation of the shape frame.
    pub orientation: DQuat,
    /// Velocity of the shape frame's origin (m/s).
    pub velocity: DVec3,
    /// Angular velocity (rad/s, world).
    pub angular_velocity: DVec3,
}

impl BodyState {
    /// The state as 13 numbers, in `frames.csv`'s order: position x y z, orientation w x y z,
    /// velocity x y z, angular velocity x y z.
    pub fn to_array(&self) -> [f64; 13] {
        let (p, q, v, w) = (
            self.position,
            self.orientation,
            self.velocity,
            self.angular_velocity,
        );
        [
            p.x, p.y, p.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, w.x, w.y, w.z,
        ]
    }

    /// The state of 13 numbers in [`BodyState::to_array`]'s order.
    pub fn from_array(s: &[f64; 13]) -> BodyState {
        BodyState {
            position: DVec3::new(s[0], s[1], s[2]),
            orientation: DQuat::from_xyzw(s[4], s[5], s[6], s[3]),
            velocity: DVec3::new(s[7], s[8], s[9]),
            angular_velocity: DVec3::new(s[10], s[11], s[12]),
        }
    }
}

/// One rigid body.
#[derive(Clone)]
pub struct Body {
    /// Unique name from the scene.
    pub name: String,
    /// Dynamic, fixed or kinematic.
    pub motion: Motion,
    /// The time the state below refers to (s): bodies are advanced lazily (§3.1).
    pub time: f64,
    /// Centre of mass, world (m).
    pub position: DVec3,
    /// Body frame (principal axes) → world.
    pub orientation: DQuat,
    /// Centre-of-mass velocity (m/s).
    pub velocity: DVec3,
    /// Angular velocity, world (rad/s).
    pub angular_velocity: DVec3,
    /// 1 / mass; 0 for fixed and kinematic bodies.
    pub inv_mass: f64,
    /// Principal moments of inertia (kg m²); infinite for fixed and kinematic bodies.
    pub inertia: DVec3,
    /// Reciprocals of the principal moments; 0 for fixed and kinematic bodies.
    pub inv_inertia: DVec3,
    /// The world inverse inertia kept for the orientation it was computed at (see
    /// [`Body::inv_inertia_world`], [`Body::refresh_inertia`]).
    pub(crate) world_inertia: WorldInertia,
    /// Bumped whenever the body's trajectory changes (a collision): heap entries computed with
    /// an older version are stale.
    pub version: u32,
    /// Bounds on ω until the next change: |ω| at most `max_speed` (see
    /// [`Body::max_angular_speed`]), within `wobble` of the constant `steady` part along the
    /// angular momentum (see [`ballistic::SpinBound`]).
    pub spin: ballistic::SpinBound,
    /// The shape's axis of symmetry (body frame; see [`Collider::symmetry_axis`]), if any.
    pub symmetry_axis: Option<DVec3>,
    /// Collision geometry in the body frame.
    pub collider: Collider,
    /// Largest distance of a body point from the centre of mass (m).
    pub bounding_radius: f64,
    /// See [`Collider::rotation_radius`].
    pub rotation_radius: f64,
    /// True if the body is convex (the separating-axis TOI bound applies).
    pub convex: bool,
    /// Vertices in the body frame when the body is a polytope (box, convex hull) of at most
    /// [`MAX_BOUND_VERTICES`] vertices: they give the per-vertex TOI bound; empty otherwise.
    pub vertices: Vec<DVec3>,
    /// Index of the body's material.
    pub material: usize,
    /// Centre of mass in the user's shape frame.
    pub com_in_shape: DVec3,
    /// Principal axes in the user's shape frame (shape frame = body frame rotated by this).
    pub principal_axes: DQuat,
    /// Asleep (Mirtich 1996, §4.2): a resting dynamic body that stopped generating
    /// microcollisions; it neither moves nor yields (infinite mass) until woken.
    pub asleep: bool,
    /// Pose and time since which the body has stayed within the rest tolerance.
    pub rest_anchor: (DVec3, DQuat, f64),
    /// Last time a contact impulse pushed the body up from a fixed or sleeping support (s).
    pub supported_at: f64,
    /// A kinematic body's prescribed motion: its pose and velocities at any time come from the
    /// path (exact); `None` for constant velocities.
    pub path: Option<Arc<KinematicPath>>,
    /// The contact step's push-out over the present step (split impulses): the velocity and
    /// the world angular momentum it added, which the body flies with until the step's end
    /// and which are taken off there, so a push moves positions without leaving velocity.
    pub push: Push,
    /// Collisions and local re-solves this body took part in so far (a count that only grows):
    /// the jammed-island switch rule reads its growth per contact step (`world::jam`).
    pub activity: u32,
    /// In an island the switch rule steps as a whole over the present contact step.
    pub jammed: bool,
    /// The stall guard's counts (`world/event_loop.rs`), one per window: when the body's present
    /// window began (s) and the events it took part in since, within it.
    pub instant: [(f64, u32); 2],
}

/// A push-out carried over one contact step: see [`Body::add_push`] and [`Body::end_push`].
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Push {
    /// Centre-of-mass velocity added (m/s).
    pub velocity: DVec3,
    /// World angular momentum added (kg m²/s): what torque-free flight keeps, so taking it
    /// off at the step's end removes exactly the spin the push gave, however the body turned.
    pub momentum: DVec3,
}

/// Renumbers a pair of bodies `(a, b)` after bodies were taken out of the world: `new_of[i]`
/// is body i's new index, `u32::MAX` for a body taken out. False (the pair left as it was) if
/// either body is gone.
pub fn renumber_pair(new_of: &[u32], a: &mut u32, b: &mut u32) -> bool {
    let (na, nb) = (new_of[*a as usize], new_of[*b as usize]);
    if na == u32::MAX || nb == u32::MAX {
        return false;
    }
    (*a, *b) = (na, nb);
    true
}

impl Body {
    /// Adds a push-out velocity change (`dv`, `dw`) that [`Body::end_push`] takes back.
    pub fn add_push(&mut self, dv: DVec3, dw: DVec3) {
        self.velocity += dv;
        self.angular_velocity += dw;
        self.push.velocity += dv;
        let r = DMat3::from_quat(self.orientation);
        let inertia = r * DMat3::from_diagonal(self.inertia) * r.transpose();
        self.push.momentum += inertia * dw;
    }

    /// Takes off the push-outs added since the last step's end, and returns the velocity and
    /// angular velocity they made up now (`None`: there were none).
    pub fn take_push(&mut self) -> Option<(DVec3, DVec3)> {
        if self.push == Push::default() {
            return None;
        }
        self.refresh_inertia();
        let (dv, dw) = self.push_motion();
        self.velocity -= dv;
        self.angular_velocity -= dw;
        self.push = Push::default();
        Some((dv, dw))
    }

    /// Takes off the step's push-outs at its end: returns true if there were any (the body's
    /// trajectory changed).
    pub fn end_push(&mut self) -> bool {
        let any = self.take_push().is_some();
        if any {
            self.refresh_bounds();
        }
        any
    }

    /// True for dynamic bodies, asleep or not.
    pub fn is_dynamic(&self) -> bool {
        self.motion == Motion::Dynamic
    }

    /// True for bodies that collisions move now (dynamic and awake).
    pub fn is_awake_dynamic(&self) -> bool {
        self.motion == Motion::Dynamic && !self.asleep
    }

    /// True for bodies that move: awake dynamic or kinematic.
    pub fn moves(&self) -> bool {
        self.is_awake_dynamic() || self.motion == Motion::Kinematic
    }

    /// 1 / mass as collisions see it: 0 for fixed, kinematic and sleeping bodies.
    pub fn effective_inv_mass(&self) -> f64 {
        if self.is_awake_dynamic() {
            self.inv_mass
        } else {
            0.0
        }
    }

    /// The body's acceleration over a flight: gravity for awake dynamic bodies, else 0.
    pub fn acceleration(&self, gravity: DVec3) -> DVec3 {
        if self.is_awake_dynamic() {
            gravity
        } else {
            DVec3::ZERO
        }
    }

    /// Advances the ballistic state to time `t` (exact for the translation; see
    /// [`ballistic::advance_rotation`] for the rotation).
    pub fn advance_to(&mut self, t: f64, gravity: DVec3) {
        let dt = t - self.time;
        if dt == 0.0 {
            return;
        }
        match self.motion {
            Motion::Fixed => {}
            Motion::Dynamic if self.asleep => {}
            Motion::Kinematic => {
                if let Some(path) = &self.path {
                    // Prescribed: the exact state at t, never integrated.
                    let s = path.state_at(t);
                    self.position = s.position;
                    self.orientation = s.orientation;
                    self.velocity = s.velocity;
                    self.angular_velocity = s.angular_velocity;
                } else {
                    self.position += self.velocity * dt;
                    self.orientation =
                        ballistic::rotate_constant(self.orientation, self.angular_velocity, dt);
                }
            }
            Motion::Dynamic => {
                (self.position, self.velocity) =
                    ballistic::advance_linear(self.position, self.velocity, gravity, dt);
                (self.orientation, self.angular_velocity) = ballistic::advance_rotation(
                    self.orientation,
                    self.angular_velocity,
                    self.inertia,
                    dt,
                );
            }
        }
        self.time = t;
    }

    /// The body frame's pose now.
    pub fn pose(&self) -> Pose {
        Pose {
            position: self.position,
            orientation: self.orientation,
        }
    }

    /// Inverse inertia tensor in world coordinates, `R diag(1/I) Rᵀ` (zero for bodies that do
    /// not yield): the kept one where [`Body::refresh_inertia`] kept it for this orientation.
    #[inline]
    pub fn inv_inertia_world(&self) -> DMat3 {
        if !self.is_awake_dynamic() {
            return DMat3::ZERO;
        }
        self.world_inertia.get(self.orientation, self.inv_inertia)
    }

    /// Keeps the world inverse inertia of the present orientation, for a body about to be read
    /// several times before it turns (a contact step's patches, a collision round's rows).
    #[inline]
    pub fn refresh_inertia(&mut self) {
        if self.is_awake_dynamic() {
            self.world_inertia
                .refresh(self.orientation, self.inv_inertia);
        }
    }

    /// Angular acceleration of the torque-free flight now (rad/s², world): Euler's equations
    /// `I ω̇ = −ω × I ω` in the principal frame. Zero for bodies that do not fly freely.
    pub fn angular_acceleration(&self) -> DVec3 {
        if !self.is_awake_dynamic() {
            return DVec3::ZERO;
        }
        let w = self.orientation.inverse() * self.angular_velocity;
        self.orientation * (-(w.cross(self.inertia * w)) * self.inv_inertia)
    }

    /// Velocity of the body point currently at world position `p` (eq. 1).
    pub fn point_velocity(&self, p: DVec3) -> DVec3 {
        self.velocity + self.angular_velocity.cross(p - self.position)
    }

    /// Applies impulse `impulse` at world point `p`: `Δv = p/m`, `Δω = I⁻¹ (r × p)` (eq. 3–4).
    pub fn apply_impulse(&mut self, impulse: DVec3, p: DVec3) {
        if !self.is_awake_dynamic() {
            return;
        }
        self.velocity += impulse * self.inv_mass;
        let inv_inertia = *self
            .world_inertia
            .refresh(self.orientation, self.inv_inertia);
        self.angular_velocity += inv_inertia * (p - self.position).cross(impulse);
    }

    /// Recomputes the angular-speed bound after a change of angular velocity (for a body on a
    /// path, the largest angular speed along the whole path).
    pub fn refresh_bounds(&mut self) {
        self.spin = match (self.motion, &self.path) {
            (Motion::Dynamic, _) => {
                let (q, w, inertia) = (self.orientation, self.angular_velocity, self.inertia);
                let mut spin = ballistic::spin_bound(q, w, inertia);
                if let Some(axis) = self.symmetry_axis {
                    spin.shape_turn = ballistic::shape_turn(axis, q, w, inertia);
                }
                spin
            }
            (_, Some(path)) => ballistic::SpinBound::speed_only(
                path.max_angular_speed().max(self.angular_velocity.length()),
            ),
            _ => ballistic::SpinBound::speed_only(self.angular_velocity.length()),
        };
    }

    /// Upper bound on |ω| until the next change (rad/s).
    pub fn max_angular_speed(&self) -> f64 {
        self.spin.max_speed
    }

    /// For a body on a path: the acceleration `a` for which the mean velocity over the next `h`
    /// of its material point at `r` (from its origin, now) is `v + ½ h a`, `v` that point's
    /// velocity now: exact over the step, however fast the path turns (a vibrating plate
    /// at 50 Hz turns 0.8 rad of its cycle in a 2.5 ms step, where the instantaneous
    /// acceleration would be off by about 5 %). With `h = 0`, the instantaneous acceleration.
    /// `None` for bodies without a path.
    ///
    /// Inlined: the prepare stage asks it of both bodies of every contact, most without a path.
    #[inline]
    pub fn path_acceleration(&self, r: DVec3, h: f64) -> Option<DVec3> {
        let path = self.path.as_ref()?;
        Some(self.acceleration_on_path(path, r, h))
    }

    /// [`Body::path_acceleration`] of a body on `path`.
    fn acceleration_on_path(&self, path: &KinematicPath, r: DVec3, h: f64) -> DVec3 {
        let v = self.point_velocity(self.position + r);
        if h > 0.0 {
            let s = path.state_at(self.time + h);
            let turned = s.orientation * (self.orientation.inverse() * r);
            let mean = (s.position + turned - self.position - r) / h;
            2.0 * (mean - v) / h
        } else {
            let (a, alpha) = path.acceleration_at(self.time);
            let w = self.angular_velocity;
            a + alpha.cross(r) + w.cross(w.cross(r))
        }
    }

    /// What this body contributes to a time-of-impact bound.
    pub fn motion_bound(&self, gravity: DVec3) -> MotionBound {
        let constant_spin = match &self.path {
            Some(path) => !path.rotates(),
            None => !self.is_awake_dynamic() || ballistic::is_spherical(self.inertia),
        };
        let (speed_slack, acceleration_slack) = self.path_slack();
        MotionBound {
            velocity: self.velocity,
            acceleration: self.acceleration(gravity),
            angular_velocity: self.angular_velocity,
            max_angular_speed: self.max_angular_speed(),
            steady_spin: self.spin.steady,
            spin_wobble: self.spin.wobble,
            shape_turn: self.spin.shape_turn,
            constant_spin,
            rotation_radius: self.rotation_radius,
            speed_slack,
            acceleration_slack,
        }
    }

    /// How far the body may depart from the parabola of its present velocity and acceleration,
    /// as `(β, α)` of `β t + ½ α t²` (see [`MotionBound::speed_slack`]): from its path, else 0.
    pub fn path_slack(&self) -> (f64, f64) {
        match &self.path {
            Some(path) => (path.speed_slack(self.velocity), path.acceleration_slack()),
            None => (0.0, 0.0),
        }
    }

    /// Kinetic energy `½ m v² + ½ ω·Iω` (J); 0 for bodies of infinite mass.
    pub fn kinetic_energy(&self) -> f64 {
        self.kinetic_energy_of(self.velocity, self.angular_velocity)
    }

    /// Kinetic energy of this body moving at `v` and `w` (J); 0 for bodies of infinite mass.
    fn kinetic_energy_of(&self, v: DVec3, w: DVec3) -> f64 {
        if !self.is_awake_dynamic() {
            return 0.0;
        }
        let wb = self.orientation.inverse() * w;
        0.5 * v.length_squared() / self.inv_mass + 0.5 * (self.inertia * wb).dot(wb)
    }

    /// The velocity and angular velocity the push-outs carried over the present step make up
    /// now (the angular part from the momentum they added, however the body turned since).
    fn push_motion(&self) -> (DVec3, DVec3) {
        let dw = if self.is_awake_dynamic() {
            self.inv_inertia_world() * self.push.momentum
        } else {
            DVec3::ZERO
        };
        (self.push.velocity, dw)
    }

    /// The body's own velocity and angular velocity: less a push-out it carries over the
    /// present step (split impulses move it without being its motion).
    pub fn own_motion(&self) -> (DVec3, DVec3) {
        if self.push == Push::default() || !self.is_awake_dynamic() {
            return (self.velocity, self.angular_velocity);
        }
        let (dv, dw) = self.push_motion();
        (self.velocity - dv, self.angular_velocity - dw)
    }

    /// The motion a frame reports: [`Body::own_motion`], or, where the impulses that start
    /// the next step were applied at this instant (`before`: the body just before them), the
    /// mean of the motion before and after them. Contact steps set velocities whose mean over
    /// the step is right (Bender & Schmitt's step-mean velocities), so the velocity just
    /// before a step boundary lags the motion by half a step and the one just after leads it
    /// by half a step; their mean is the motion at the boundary (a resting body reads 0, a
    /// domino pivoting on its edge its turning rate).
    pub fn reported_motion(&self, before: Option<&BodyHot>) -> (DVec3, DVec3) {
        let (v, w) = self.own_motion();
        match before {
            Some(b) if self.is_awake_dynamic() => {
                (0.5 * (v + b.velocity), 0.5 * (w + b.angular_velocity))
            }
            _ => (v, w),
        }
    }

    /// Kinetic energy of [`Body::reported_motion`] (J).
    pub fn reported_kinetic_energy(&self, before: Option<&BodyHot>) -> f64 {
        let (v, w) = self.reported_motion(before);
        self.kinetic_energy_of(v, w)
    }

    /// Pose and velocities of the user's shape frame, with the velocities of
    /// [`Body::reported_motion`].
    pub fn reported_state(&self, before: Option<&BodyHot>) -> BodyState {
        let q_user = (self.orientation * self.principal_axes.inverse()).normalize();
        let offset = q_user * self.com_in_shape;
        let (v, w) = self.reported_motion(before);
        BodyState {
            position: self.position - offset,
            orientation: q_user,
            velocity: v - w.cross(offset),
            angular_velocity: w,
        }
    }

    /// Pose and velocities of the user's shape frame (its own motion).
    pub fn user_state(&self) -> BodyState {
        self.reported_state(None)
    }

    /// True if every state component is finite.
    pub fn is_finite(&self) -> bool {
        self.position.is_finite()
            && self.velocity.is_finite()
            && self.orientation.is_finite()
            && self.angular_velocity.is_finite()
    }
}

/// A body's velocities saved before a solve or a round, to see whether it changed them, to put
/// them back, or to report the change.
#[derive(Clone, Copy, Debug)]
pub struct SavedVelocity {
    /// The body's index.
    pub body: usize,
    pub velocity: DVec3,
    pub angular_velocity: DVec3,
}

impl SavedVelocity {
    /// Body `i`'s (`body`) present velocities.
    pub fn of(i: usize, body: &Body) -> Self {
        SavedVelocity {
            body: i,
            velocity: body.velocity,
            angular_velocity: body.angular_velocity,
        }
    }

    /// Whether the body's velocities differ from the saved ones.
    pub fn changed(&self, bodies: &[Body]) -> bool {
        let body = &bodies[self.body];
        body.velocity != self.velocity || body.angular_velocity != self.angular_velocity
    }

    /// Puts the saved velocities back.
    pub fn restore(&self, bodies: &mut [Body]) {
        let body = &mut bodies[self.body];
        body.velocity = self.velocity;
        body.angular_velocity = self.angular_velocity;
    }
}

impl Body {
    /// Puts the body to sleep: it stops where it is.
    pub fn sleep(&mut self) {
        self.asleep = true;
        self.velocity = DVec3::ZERO;
        self.angular_velocity = DVec3::ZERO;
        self.version = self.version.wrapping_add(1);
        self.refresh_bounds();
    }

    /// Wakes the body at rest at time `t` (it must already be at `t`).
    pub fn wake(&mut self, t: f64) {
        self.asleep = false;
        self.time = t;
        self.rest_anchor = (self.position, self.orientation, t);
        self.version = self.version.wrapping_add(1);
        self.refresh_bounds();
    }
}

/// The part of a body's state that the event loop changes (the rest is fixed at creation): a
/// snapshot to put a body back as it was (see `World`'s parallel event loop), and what a
/// checkpoint keeps of each body ([`crate::checkpoint`]).
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct BodyHot {
    time: f64,
    position: DVec3,
    orientation: DQuat,
    velocity: DVec3,
    angular_velocity: DVec3,
    version: u32,
    spin: ballistic::SpinBound,
    asleep: bool,
    rest_anchor: (DVec3, DQuat, f64),
    supported_at: f64,
    push: Push,
    activity: u32,
    instant: [(f64, u32); 2],
}

impl Body {
    /// Counts one more collision or local re-solve this body took part in (`activity`).
    pub fn count_event(&mut self) {
        self.activity = self.activity.wrapping_add(1);
    }

    /// Counts an event of this body at `t` for the stall guard, in each of its two windows: in
    /// the present one if `t` is within `windows[k]` of its start, else as the first of a new
    /// one. Returns the events of each window so far.
    pub fn count_at_instant(&mut self, t: f64, windows: [f64; 2]) -> [u32; 2] {
        let mut counts = [0; 2];
        for (k, window) in windows.into_iter().enumerate() {
            let (start, events) = self.instant[k];
            self.instant[k] = if t - start <= window {
                (start, events.saturating_add(1))
            } else {
                (t, 1)
            };
            counts[k] = self.instant[k].1;
        }
        counts
    }

    /// Snapshot of the state the event loop changes.
    pub fn hot(&self) -> BodyHot {
        BodyHot {
            time: self.time,
            position: self.position,
            orientation: self.orientation,
            velocity: self.velocity,
            angular_velocity: self.angular_velocity,
            version: self.version,
            spin: self.spin,
            asleep: self.asleep,
            rest_anchor: self.rest_anchor,
            supported_at: self.supported_at,
            push: self.push,
            activity: self.activity,
            instant: self.instant,
        }
    }

    /// Puts back the state of a snapshot taken with [`Body::hot`].
    pub fn restore(&mut self, hot: &BodyHot) {
        let BodyHot {
            time,
            position,
            orientation,
            velocity,
            angular_velocity,
            version,
            spin,
            asleep,
            rest_anchor,
            supported_at,
            push,
            activity,
            instant,
        } = *hot;
        self.activity = activity;
        self.instant = instant;
        self.spin = spin;
        self.push = push;
        self.time = time;
        self.position = position;
        self.orientation = orientation;
        self.velocity = velocity;
        self.angular_velocity = angular_velocity;
        self.version = version;
        self.asleep = asleep;
        self.rest_anchor = rest_anchor;
        self.supported_at = supported_at;
    }
}
