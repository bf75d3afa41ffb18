//! A jammed island's collision round on a device (`Stores::device_joint_round`): the round's
//! rows grouped by pair and the pairs coloured (no two of a colour share a moving body), packed
//! in f32 for [`CollisionRounds`] (`crate::stages::collision_round`), and the impulses and
//! velocities it returns put back. The energy guard stays here: a round that would add energy
//! is solved again with targets 0, as on the host (`impacts.rs`). The round gives up the
//! order of its points for the colours' (inside a jam the order means nothing; the host's
//! round takes them in pair order); its f64 twin sweeps them in the same colour order.

use super::impacts::ImpactScratch;
use super::round_sweeps::Convergence;
use super::stores::Stores;
use crate::stages::collision_round::{
    CollisionRounds, RoundBody, RoundInput, RoundOutput, RoundParams, RoundRow,
};
use crate::stages::contact_sweep::{f32_change, mat3_f32, vec3_f32, SLOT_STILL};
use glam::DVec3;

impl Stores {
    /// [`Stores::joint_round`] on `device`: the rows put in colour order, solved there, and the
    /// impulses and velocities taken back; again with targets 0 if the round gained energy.
    /// If the device fails, the round is solved on the host (counted in
    /// `device_round_failures`).
    pub(super) fn device_joint_round(
        &mut self,
        set: &mut ImpactScratch,
        convergence: Convergence,
        device: &mut dyn CollisionRounds,
    ) {
        let clock = std::time::Instant::now();
        self.colour_round(set);
        self.pack_round(set);
        let before = self.round_energy(&set.saved);
        let tolerance = convergence.tolerance * Self::round_scale(set);
        for restitution in [1.0, 0.0] {
            if restitution == 0.0 {
                // Again from the same velocities (restored), with Newton's targets at 0.
                set.device.rows.iter_mut().for_each(|r| r.target = 0.0);
            }
            let d = &set.device;
            let input = RoundInput {
                params: RoundParams {
                    tolerance: tolerance as f32,
                    max_sweeps: convergence.max_sweeps as u32,
                    colours: d.colouring.colours() as u32,
                    pad: 0,
                },
                rows: &d.rows,
                pairs: &d.pairs,
                starts: &d.starts,
                bodies: &d.packed,
            };
            let out = match device.collision_round(&input) {
                Ok(out) if out.velocities.len() == d.packed.len() => out,
                _ => {
                    self.stats.counts.device_round_failures += 1;
                    self.restore_round(set);
                    self.joint_round(set, 1.0, convergence);
                    return;
                }
            };
            self.unpack_round(set, &out);
            let after = self.round_energy(&set.saved);
            if Self::gained(before, after) && restitution > 0.0 {
                self.restore_round(set);
                continue;
            }
            break;
        }
        self.stats.counts.device_rounds += 1;
        self.stats.stage_times.device_rounds += clock.elapsed().as_secs_f64();
        self.log_round(set);
    }

    /// The round's bodies numbered (`index`, cleared again by [`Self::pack_round`]), its pairs
    /// (runs of rows of one pair) coloured by their moving bodies, and the rows put in colour
    /// order.
    fn colour_round(&mut self, set: &mut ImpactScratch) {
        let d = &mut set.device;
        d.index.resize(self.bodies.len(), u32::MAX);
        d.bodies.clear();
        d.runs.clear();
        d.slots.clear();
        let mut moving = 0u32;
        d.slot_of.clear();
        for (k, r) in set.rows.iter().enumerate() {
            for i in [r.a, r.b] {
                if d.index[i] == u32::MAX {
                    d.index[i] = d.bodies.len() as u32;
                    d.bodies.push(i);
                    let slot = if self.bodies[i].is_awake_dynamic() {
                        moving += 1;
                        moving - 1
                    } else {
                        SLOT_STILL | (d.bodies.len() as u32 - 1)
                    };
                    d.slot_of.push(slot);
                }
            }
            if k == 0 || (set.rows[k - 1].a, set.rows[k - 1].b) != (r.a, r.b) {
                d.runs.push((k as u32, 0));
                let (sa, sb) = (d.index[r.a] as usize, d.index[r.b] as usize);
                d.slots.push((d.slot_of[sa], d.slot_of[sb]));
            }
        }
        let n = set.rows.len() as u32;
        for k in 0..d.runs.len() {
            d.runs[k].1 = d.runs.get(k + 1).map_or(n, |r| r.0);
        }
        d.colouring
            .colour_slots(d.slots.iter().copied(), moving as usize);
        d.gathered.clear();
        d.pairs.clear();
        d.starts.clear();
        d.starts.push(0);
        for c in 0..d.colouring.colours() {
            for &p in d.colouring.colour_patches(c) {
                let (from, to) = d.runs[p as usize];
                d.pairs.push(d.gathered.len() as u32);
                d.gathered
                    .extend_from_slice(&set.rows[from as usize..to as usize]);
            }
            d.starts.push(d.pairs.len() as u32);
        }
        d.pairs.push(d.gathered.len() as u32);
        std::mem::swap(&mut set.rows, &mut d.gathered);
    }

    /// The round's rows and bodies in f32, at the velocities before the round (which a round
    /// that gained energy is put back to, so one packing serves both passes).
    fn pack_round(&self, set: &mut ImpactScratch) {
        let d = &mut set.device;
        d.rows.clear();
        d.rows.extend(set.rows.iter().map(|r| {
            let (ba, bb) = (&self.bodies[r.a], &self.bodies[r.b]);
            RoundRow {
                ra: vec3_f32(r.point.position - ba.position),
                target: r.target as f32,
                rb: vec3_f32(r.point.position - bb.position),
                mass: r.mass as f32,
                normal: vec3_f32(r.point.normal),
                friction: r.friction as f32,
                k: mat3_f32(&r.k),
                tangent: [0.0; 3],
                impulse: 0.0,
                extra: 0.0,
                a: d.index[r.a],
                b: d.index[r.b],
                pad: 0,
            }
        }));
        // The body index is scratch sized to the world: cleared for the next round.
        for &i in &d.bodies {
            d.index[i] = u32::MAX;
        }
        d.packed.clear();
        d.packed.extend(d.bodies.iter().map(|&i| {
            let b = &self.bodies[i];
            RoundBody {
                v: vec3_f32(b.velocity),
                inv_mass: b.effective_inv_mass() as f32,
                w: vec3_f32(b.angular_velocity),
                moves: u32::from(b.is_awake_dynamic()),
                inv_inertia: mat3_f32(&b.inv_inertia_world()),
            }
        }));
    }

    /// The device's impulses into the rows, and each moving body's velocity changed by what
    /// the round changed it by (its f64 velocity plus the f32 difference).
    fn unpack_round(&mut self, set: &mut ImpactScratch, out: &RoundOutput) {
        let d = &set.device;
        set.extra.clear();
        set.extra.resize(set.rows.len(), 0.0);
        for ((row, extra), p) in set.rows.iter_mut().zip(&mut set.extra).zip(&out.impulses) {
            row.normal = f64::from(p[0]);
            *extra = f64::from(p[1]);
            row.tangent = DVec3::new(p[2].into(), p[3].into(), p[4].into());
        }
        for ((&i, before), after) in d.bodies.iter().zip(&d.packed).zip(&out.velocities) {
            if before.moves != 0 {
                let b = &mut self.bodies[i];
                b.velocity += f32_change(after[0], before.v);
                b.angular_velocity += f32_change(after[1], before.w);
            }
        }
    }
}
