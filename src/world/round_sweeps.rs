//! The sweeps of a joint collision round (`impacts.rs`, Bender & Schmitt 2006 §3.1) on the
//! round's own bodies: their velocities gathered into a small store for the round, each row in
//! Jacobian form (its normal, and `r × n` and `I⁻¹ (r × n)` for both bodies, found once per
//! round), so a normal update is a few dot products and scaled additions instead of two
//! points' velocities from the whole `Body` and two impulses through the inverse inertia.
//!
//! Why: a round converges to rounding (`impacts::EXACT`) and sweeps its rows hundreds of
//! times; per row update the bodies' velocities and inertia were read from the body store and
//! `r × n` formed again. The arithmetic is that of `Body::point_velocity` and
//! `Body::apply_impulse` rearranged (`n·(ω × r) = ω·(r × n)`), equal up to rounding.

use crate::body::{Body, SavedVelocity};
use crate::narrow_phase::ContactPoint;
use glam::{DMat3, DVec3};

/// How far a joint round's iterations go: at most `max_sweeps` sweeps of the normal impulses
/// (and again of friction), stopping once no sweep changes a point's relative velocity by more
/// than `tolerance` times the round's largest approach speed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Convergence {
    pub(super) tolerance: f64,
    pub(super) max_sweeps: usize,
}

/// A contact point of a joint round.
#[derive(Clone, Copy, Debug)]
pub(super) struct Row {
    pub(super) a: usize,
    pub(super) b: usize,
    pub(super) point: ContactPoint,
    /// Newton's target: the normal relative velocity after the round is at least this.
    pub(super) target: f64,
    /// The normal relative velocity at the round's start (m/s, < 0), for the event log.
    pub(super) approach: f64,
    /// The pair's collision matrix at the point (Bender & Schmitt's K; constant within the
    /// instant), and 1 / (n·K·n) (their eq. 1).
    pub(super) k: DMat3,
    pub(super) mass: f64,
    pub(super) friction: f64,
    /// Accumulated normal and tangential impulses.
    pub(super) normal: f64,
    pub(super) tangent: DVec3,
}

/// How a body of the round takes impulses: zero for one that does not yield (fixed,
/// kinematic, asleep), whose velocity the sweeps only read.
#[derive(Clone, Copy)]
struct Yield {
    inv_mass: f64,
    inv_inertia: DMat3,
}

/// A row in Jacobian form: its bodies' slots, the lever arms and what a unit normal impulse
/// does to each body.
#[derive(Clone, Copy)]
struct Jacobian {
    a: u32,
    b: u32,
    normal: DVec3,
    ra: DVec3,
    rb: DVec3,
    /// `r_a × n` and `r_b × n`: the normal relative velocity is
    /// `n·(v_a − v_b) + (r_a × n)·ω_a − (r_b × n)·ω_b`.
    turn_a: DVec3,
    turn_b: DVec3,
    /// Per unit normal impulse: `n/m_a` and `I_a⁻¹ (r_a × n)` (b's with the opposite sign).
    push_a: DVec3,
    spin_a: DVec3,
    push_b: DVec3,
    spin_b: DVec3,
}

/// The round's bodies and rows as the sweeps use them; kept between rounds so that a round
/// allocates nothing once grown.
#[derive(Default)]
pub(super) struct RoundSweeps {
    /// Linear and angular velocity of each of the round's bodies, in the order of `saved`.
    velocity: Vec<(DVec3, DVec3)>,
    yields: Vec<Yield>,
    rows: Vec<Jacobian>,
    /// Each body's slot while gathering (`u32::MAX`: not in the round).
    slot_of: Vec<u32>,
}

impl RoundSweeps {
    /// Gathers the round: the bodies of `saved` (every body of `rows`, each once) at their
    /// present velocities, and `rows` in Jacobian form.
    pub(super) fn gather(&mut self, bodies: &[Body], saved: &[SavedVelocity], rows: &[Row]) {
        if self.slot_of.len() < bodies.len() {
            self.slot_of.resize(bodies.len(), u32::MAX);
        }
        self.velocity.clear();
        self.yields.clear();
        for (k, i) in saved.iter().map(|s| s.body).enumerate() {
            let body = &bodies[i];
            self.slot_of[i] = k as u32;
            self.velocity.push((body.velocity, body.angular_velocity));
            self.yields.push(Yield {
                inv_mass: body.effective_inv_mass(),
                inv_inertia: body.inv_inertia_world(),
            });
        }
        self.rows.clear();
        for r in rows {
            let (a, b) = (self.slot_of[r.a], self.slot_of[r.b]);
            debug_assert!(a != u32::MAX && b != u32::MAX, "a row's body is not saved");
            let (ya, yb) = (self.yields[a as usize], self.yields[b as usize]);
            let n = r.point.normal;
            let ra = r.point.position - bodies[r.a].position;
            let rb = r.point.position - bodies[r.b].position;
            let (turn_a, turn_b) = (ra.cross(n), rb.cross(n));
            self.rows.push(Jacobian {
                a,
                b,
                normal: n,
                ra,
                rb,
                turn_a,
                turn_b,
                push_a: n * ya.inv_mass,
                spin_a: ya.inv_inertia * turn_a,
                push_b: n * yb.inv_mass,
                spin_b: yb.inv_inertia * turn_b,
            });
        }
        for s in saved {
            self.slot_of[s.body] = u32::MAX;
        }
    }

    /// Writes the round's velocities back to the bodies that yield (in the order of `saved`,
    /// as gathered).
    pub(super) fn scatter(&self, bodies: &mut [Body], saved: &[SavedVelocity]) {
        for (i, &(v, w)) in saved.iter().map(|s| s.body).zip(&self.velocity) {
            if bodies[i].is_awake_dynamic() {
                bodies[i].velocity = v;
                bodies[i].angular_velocity = w;
            }
        }
    }

    /// The normal relative velocity of row `j`.
    #[inline(always)]
    fn normal_speed(&self, j: &Jacobian) -> f64 {
        let (va, wa) = self.velocity[j.a as usize];
        let (vb, wb) = self.velocity[j.b as usize];
        j.normal.dot(va - vb) + j.turn_a.dot(wa) - j.turn_b.dot(wb)
    }

    /// The relative velocity of row `j`'s point (a's against b's).
    #[inline(always)]
    fn point_velocity(&self, j: &Jacobian) -> DVec3 {
        let (va, wa) = self.velocity[j.a as usize];
        let (vb, wb) = self.velocity[j.b as usize];
        va + wa.cross(j.ra) - vb - wb.cross(j.rb)
    }

    /// Normal impulses over the rows until no sweep changes a point's normal velocity by more
    /// than the tolerance times `scale`: toward each row's target, or, with `inelastic`, only
    /// as far as stopping its approach, on top of the impulses already applied (kept in
    /// `extra`; the others in each row's `normal`).
    pub(super) fn normal_sweeps(
        &mut self,
        rows: &mut [Row],
        extra: &mut [f64],
        scale: f64,
        inelastic: bool,
        convergence: Convergence,
    ) {
        for _ in 0..convergence.max_sweeps {
            let mut change: f64 = 0.0;
            for ((row, done), k) in rows.iter_mut().zip(extra.iter_mut()).zip(0..) {
                let j = self.rows[k];
                let un = self.normal_speed(&j);
                let (target, acc) = if inelastic {
                    (0.0, *done)
                } else {
                    (row.target, row.normal)
                };
                let next = (acc + row.mass * (target - un)).max(0.0);
                let delta = next - acc;
                if delta != 0.0 {
                    let (a, b) = (j.a as usize, j.b as usize);
                    self.velocity[a].0 += j.push_a * delta;
                    self.velocity[a].1 += j.spin_a * delta;
                    self.velocity[b].0 -= j.push_b * delta;
                    self.velocity[b].1 -= j.spin_b * delta;
                    if inelastic {
                        *done = next;
                    } else {
                        row.normal = next;
                    }
                    change = change.max((delta / row.mass).abs());
                }
            }
            if change <= convergence.tolerance * scale {
                break;
            }
        }
    }

    /// Coulomb friction over the rows until no sweep changes a point's velocity by more than
    /// the tolerance times `scale`: each point's tangential impulse toward sticking, within μ
    /// times its normal impulse (the maximal dissipation of a fixed normal load, a convex
    /// problem).
    pub(super) fn friction_sweeps(
        &mut self,
        rows: &mut [Row],
        scale: f64,
        convergence: Convergence,
    ) {
        for _ in 0..convergence.max_sweeps {
            let mut change: f64 = 0.0;
            for (k, row) in rows.iter_mut().enumerate() {
                if row.friction <= 0.0 || row.normal <= 0.0 {
                    continue;
                }
                let j = self.rows[k];
                let n = j.normal;
                let u = self.point_velocity(&j);
                let ut = u - u.dot(n) * n;
                let speed = ut.length();
                if speed <= convergence.tolerance * scale {
                    continue;
                }
                let dir = ut / speed;
                // The tangential effective mass along the slip.
                let mass_t = 1.0 / dir.dot(row.k * dir);
                let mut next = row.tangent - mass_t * ut;
                let limit = row.friction * row.normal;
                if next.length() > limit {
                    next *= limit / next.length();
                }
                let delta = next - row.tangent;
                let (a, b) = (j.a as usize, j.b as usize);
                let (ya, yb) = (self.yields[a], self.yields[b]);
                self.velocity[a].0 += delta * ya.inv_mass;
                self.velocity[a].1 += ya.inv_inertia * j.ra.cross(delta);
                self.velocity[b].0 -= delta * yb.inv_mass;
                self.velocity[b].1 -= yb.inv_inertia * j.rb.cross(delta);
                row.tangent = next;
                change = change.max(delta.length() / mass_t);
            }
            if change <= convergence.tolerance * scale {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision_impulse::collision_matrix;
    use crate::world::tests::stacks_on_a_floor;

    /// The sweeps as they were written on the bodies themselves (`Body::point_velocity` and
    /// `Body::apply_impulse`): the twin the Jacobian form is held to.
    fn on_the_bodies(bodies: &mut [Body], rows: &mut [Row], scale: f64, c: Convergence) {
        let velocity = |b: &[Body], r: &Row| {
            b[r.a].point_velocity(r.point.position) - b[r.b].point_velocity(r.point.position)
        };
        let apply = |b: &mut [Body], r: &Row, j: DVec3| {
            b[r.a].apply_impulse(j, r.point.position);
            b[r.b].apply_impulse(-j, r.point.position);
        };
        for _ in 0..c.max_sweeps {
            let mut change: f64 = 0.0;
            for row in rows.iter_mut() {
                let un = velocity(bodies, row).dot(row.point.normal);
                let next = (row.normal + row.mass * (row.target - un)).max(0.0);
                let delta = next - row.normal;
                if delta != 0.0 {
                    apply(bodies, row, delta * row.point.normal);
                    row.normal = next;
                    change = change.max((delta / row.mass).abs());
                }
            }
            if change <= c.tolerance * scale {
                break;
            }
        }
        for _ in 0..c.max_sweeps {
            let mut change: f64 = 0.0;
            for row in rows.iter_mut() {
                if row.friction <= 0.0 || row.normal <= 0.0 {
                    continue;
                }
                let n = row.point.normal;
                let u = velocity(bodies, row);
                let ut = u - u.dot(n) * n;
                let speed = ut.length();
                if speed <= c.tolerance * scale {
                    continue;
                }
                let dir = ut / speed;
                let mass_t = 1.0 / dir.dot(row.k * dir);
                let mut next = row.tangent - mass_t * ut;
                let limit = row.friction * row.normal;
                if next.length() > limit {
                    next *= limit / next.length();
                }
                let delta = next - row.tangent;
                apply(bodies, row, delta);
                row.tangent = next;
                change = change.max(delta.length() / mass_t);
            }
            if change <= c.tolerance * scale {
                break;
            }
        }
    }

    /// Two stacks of three cubes on a fixed floor, each cube turned and thrown, with a row at
    /// each corner of every face in contact (the floor's too): the Jacobian-form sweeps end
    /// at the velocities and impulses of the sweeps on the bodies, to rounding.
    #[test]
    fn jacobian_sweeps_match_the_sweeps_on_the_bodies() {
        let mut world = stacks_on_a_floor("", &[0.0, 0.5], 3);
        let bodies = &mut world.stores.bodies;
        for (i, body) in bodies.iter_mut().enumerate().skip(1) {
            let s = i as f64;
            body.velocity = DVec3::new(0.3 * s.sin(), -0.2 * s.cos(), -1.0 - 0.1 * s);
            body.angular_velocity = DVec3::new(2.0 * (1.3 * s).sin(), (0.7 * s).cos(), 0.5);
            body.orientation = glam::DQuat::from_rotation_z(0.1 * s);
            body.refresh_inertia();
        }
        // (below, above) pairs: floor under each stack's first cube, then cube on cube.
        let pairs = [(0, 1), (1, 2), (2, 3), (0, 4), (4, 5), (5, 6)];
        let mut rows = Vec::new();
        for &(below, above) in &pairs {
            let (a, b) = (&bodies[above], &bodies[below]);
            let top = if below == 0 { 0.0 } else { b.position.z + 0.1 };
            for (k, (x, y)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
                .into_iter()
                .enumerate()
            {
                let position = DVec3::new(a.position.x + 0.1 * x, a.position.y + 0.1 * y, top);
                let k_matrix = collision_matrix(
                    a.effective_inv_mass(),
                    &a.inv_inertia_world(),
                    position - a.position,
                    b.effective_inv_mass(),
                    &b.inv_inertia_world(),
                    position - b.position,
                );
                let normal = DVec3::Z;
                rows.push(Row {
                    a: above,
                    b: below,
                    point: ContactPoint {
                        position,
                        separation: 0.0,
                        normal,
                    },
                    target: 0.4 + 0.1 * k as f64,
                    approach: -1.0,
                    k: k_matrix,
                    mass: 1.0 / normal.dot(k_matrix * normal),
                    friction: 0.3,
                    normal: 0.0,
                    tangent: DVec3::ZERO,
                });
            }
        }
        let saved: Vec<_> = (0..bodies.len())
            .map(|i| SavedVelocity::of(i, &bodies[i]))
            .collect();
        let c = Convergence {
            tolerance: 1e-13,
            max_sweeps: 2_000,
        };
        let mut twin_bodies = bodies.clone();
        let mut twin_rows = rows.clone();
        on_the_bodies(&mut twin_bodies, &mut twin_rows, 1.0, c);
        let mut sweeps = RoundSweeps::default();
        sweeps.gather(bodies, &saved, &rows);
        let mut extra = vec![0.0; rows.len()];
        sweeps.normal_sweeps(&mut rows, &mut extra, 1.0, false, c);
        sweeps.friction_sweeps(&mut rows, 1.0, c);
        sweeps.scatter(bodies, &saved);
        let mut worst: f64 = 0.0;
        for (b, t) in bodies.iter().zip(&twin_bodies) {
            worst = worst.max((b.velocity - t.velocity).abs().max_element());
            worst = worst.max(
                (b.angular_velocity - t.angular_velocity)
                    .abs()
                    .max_element(),
            );
        }
        for (r, t) in rows.iter().zip(&twin_rows) {
            worst = worst.max((r.normal - t.normal).abs());
            worst = worst.max((r.tangent - t.tangent).abs().max_element());
        }
        eprintln!("largest difference from the sweeps on the bodies: {worst:.2e}");
        assert!(worst < 1e-9, "{worst}");
        assert!(rows
            .iter()
            .any(|r| r.normal > 0.0 && r.tangent != DVec3::ZERO));
        assert_eq!(bodies[0].velocity, DVec3::ZERO, "the floor does not yield");
    }
}
