//! The push-out of a contact step (split impulses): contacts nearer than the target separation
//! are pushed back towards it by a velocity the bodies fly with over the step only
//! ([`Body::add_push`]; the world takes it off at the step's end, [`Body::end_push`]).
//!
//! A shortfall restored through the contact rows' own bias (Bender & Schmitt's eq. 8 with a
//! target) leaves the bodies the separating velocity that restored it. Under gravity the next
//! step takes it back, but sideways nothing does: touching balls on a frictionless floor (a
//! Newton's cradle) fly apart for good, and a ball on a table pushed out within a short frame
//! hops. Here the velocity solve only stops a near contact from closing further, and a second,
//! projected Gauss–Seidel over the same rows and friction patches (its own accumulators, no
//! accelerations) finds the push-out velocities, from the step's earlier push-outs.

use super::friction::friction_rows;
use super::patch::{Load, Patch, Row, RowOrder};
use super::prepare::PARALLEL_CONTACTS;
use super::slots::{Vel, Velocities, STILL};
use super::{RestingContact, StepSettings};
use crate::body::Body;
use glam::DVec3;

/// The push-out's data: the push-outs the step's bodies carried in, and the push-out solve's
/// velocities and accumulated impulses, kept so that a step allocates nothing once grown.
#[derive(Clone, Default)]
pub(super) struct PushApart {
    /// The push-outs the step's bodies carried in, by body ([`Self::take_pushes`]).
    carried: Vec<(usize, Vel)>,
    /// Whether each body has a contact in the step (scratch of [`Self::take_pushes`]).
    in_step: Vec<bool>,
    /// The push-out's velocities by moving slot, and its impulses by row.
    pushes: Vec<Vel>,
    push_impulses: Vec<f64>,
    /// The push-out's tangential and twisting impulses by patch.
    push_friction: Vec<(DVec3, f64)>,
}

impl PushApart {
    /// Takes the push-outs the bodies of `contacts` carry off their velocities, into
    /// `carried`: the velocity solve sees the bodies' own motion only (a push-out mistaken for
    /// an approach would be stopped by a real impulse, which stays). Keeps each body's world
    /// inverse inertia on the way, for the prepare stage's patches that read it.
    ///
    /// Each body's push-out is its own (a body's second visit finds none left), so the order
    /// the bodies are visited in changes nothing: a large step's bodies are visited once each,
    /// on the pool's threads, a small re-solve's where its contacts name them.
    pub(super) fn take_pushes(&mut self, bodies: &mut [Body], contacts: &[RestingContact]) {
        self.carried.clear();
        let take = |i: usize, body: &mut Body| {
            body.refresh_inertia();
            body.take_push().map(|(v, w)| (i, Vel { v, w }))
        };
        if contacts.len() < PARALLEL_CONTACTS {
            for c in contacts {
                for i in [c.a as usize, c.b as usize] {
                    self.carried.extend(take(i, &mut bodies[i]));
                }
            }
            return;
        }
        use rayon::prelude::*;
        let in_step = &mut self.in_step;
        in_step.clear();
        in_step.resize(bodies.len(), false);
        for c in contacts {
            in_step[c.a as usize] = true;
            in_step[c.b as usize] = true;
        }
        let each = bodies.par_iter_mut().zip(in_step.par_iter()).enumerate();
        self.carried.par_extend(
            each.with_min_len(64)
                .filter_map(|(i, (body, &in_step))| in_step.then(|| take(i, body)).flatten()),
        );
    }

    /// Solves the push-out of the `rows` just swept (their `push` biases) and their `patches`
    /// (whose accumulators it borrows and restores), from the push-outs `carried` (the step's
    /// earlier ones), and gives the `bodies` of the step's `velocities` slots the result as
    /// push-outs.
    pub(super) fn push_apart(
        &mut self,
        patches: &mut [Patch],
        rows: &[Row],
        velocities: &Velocities,
        bodies: &mut [Body],
        settings: &StepSettings,
    ) {
        let PushApart {
            carried,
            pushes,
            push_impulses: impulses,
            push_friction: friction,
            ..
        } = self;
        if carried.is_empty() && !rows.iter().any(|r| r.push > 0.0) {
            return;
        }
        pushes.clear();
        pushes.resize(velocities.moving.len(), Vel::default());
        for &(i, p) in carried.iter() {
            match velocities.slot.get(i) {
                Some(&s) if s & STILL == 0 => pushes[s as usize] = p,
                _ => bodies[i].add_push(p.v, p.w),
            }
        }
        let h = settings.h;
        let still = Vel::default();
        let mut sweeps = 0;
        impulses.clear();
        impulses.resize(rows.len(), 0.0);
        friction.clear();
        friction.resize(patches.len(), (DVec3::ZERO, 0.0));
        while sweeps < settings.max_iterations.max(1) {
            let order = RowOrder::of_sweep(sweeps);
            sweeps += 1;
            let mut residual: f64 = 0.0;
            for (j, patch) in patches.iter_mut().enumerate() {
                let (sa, sb) = (patch.sa, patch.sb);
                let (a_moves, b_moves) = (sa & STILL == 0, sb & STILL == 0);
                let mut va = if a_moves { pushes[sa as usize] } else { still };
                let mut vb = if b_moves { pushes[sb as usize] } else { still };
                let mut load = Load::default();
                for k in 0..patch.count {
                    let i = patch.first + order.index(k, patch.count);
                    let row = &rows[i];
                    let n = row.normal;
                    let un = n.dot(va.v + va.w.cross(row.ra) - vb.v - vb.w.cross(row.rb));
                    let p = (impulses[i] + (row.push - un) * row.inv_k_nn).max(0.0);
                    let dp = p - impulses[i];
                    load.add(p, row);
                    if dp == 0.0 {
                        continue;
                    }
                    residual = residual.max((row.k_nn * dp * h).abs());
                    row.apply_to(&mut va, &mut vb, a_moves, b_moves, dp);
                    impulses[i] = p;
                }
                if patch.friction > 0.0 && load.total > 0.0 {
                    // The push-out sticks within the friction cone of its own normal impulses:
                    // without it a push at a corner turns a body in a stack, and the stack
                    // walks sideways (the top of twelve cubes moved 0.17 mm while settling).
                    // The patch's accumulators and drift are the velocity solve's: they are
                    // swapped for the push-out's own while its friction rows run.
                    let kept = (patch.tangential, patch.twist, patch.drift);
                    (patch.tangential, patch.twist) = friction[j];
                    patch.drift = DVec3::ZERO;
                    let moves = [a_moves, b_moves];
                    let (k_tt_inv, twist_inv) = (patch.k_tt_inv, patch.twist_inv);
                    let patch_rows = &rows[patch.first..patch.first + patch.count];
                    let r = friction_rows(
                        patch, patch_rows, &mut va, &mut vb, moves, load, k_tt_inv, twist_inv, h,
                    );
                    residual = residual.max(r.sqrt());
                    friction[j] = (patch.tangential, patch.twist);
                    (patch.tangential, patch.twist, patch.drift) = kept;
                }
                if a_moves {
                    pushes[sa as usize] = va;
                }
                if b_moves {
                    pushes[sb as usize] = vb;
                }
            }
            if residual <= settings.tolerance {
                break;
            }
        }
        for (&i, p) in velocities.moving_bodies.iter().zip(pushes.iter()) {
            if p.v != DVec3::ZERO || p.w != DVec3::ZERO {
                bodies[i].add_push(p.v, p.w);
            }
        }
    }
}
