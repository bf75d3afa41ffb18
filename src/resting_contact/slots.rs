//! The bodies' velocities inside the solver: one slot per body of the step ([`Vel`]), moving
//! slots numbered from 0 and read-only ones flagged [`STILL`] ([`Velocities`]), and the
//! [`Slots`] views a part of a step sweeps through (every slot, or one node's of the step's
//! tree).

use crate::body::Body;
use glam::DVec3;

/// Velocity of a body inside the solver.
#[derive(Clone, Copy, Default)]
pub(super) struct Vel {
    pub(super) v: DVec3,
    pub(super) w: DVec3,
}

/// The velocities of a step's bodies by slot, filled by `split::assign_slots`: the sweeps
/// change the moving slots and read the still ones.
#[derive(Clone, Default)]
pub(super) struct Velocities {
    /// Velocities of the bodies the step moves, by slot, and their body indices.
    pub(super) moving: Vec<Vel>,
    pub(super) moving_bodies: Vec<usize>,
    /// Velocities of the other bodies of the step (read-only slots), and their body indices.
    pub(super) still: Vec<Vel>,
    pub(super) still_bodies: Vec<usize>,
    /// Slot of each body (u32::MAX: not in the step).
    pub(super) slot: Vec<u32>,
}

impl Velocities {
    /// Empties the slots for a step of a world of `bodies` bodies: only the last step's bodies
    /// hold a slot, so only they are put back (a local re-solve names a few dozen bodies of a
    /// world of thousands, and refilling the whole table was a cost per re-solve that grew with
    /// the world).
    pub(super) fn clear(&mut self, bodies: usize) {
        if self.slot.len() == bodies {
            for &i in self.moving_bodies.iter().chain(&self.still_bodies) {
                self.slot[i] = u32::MAX;
            }
        } else {
            self.slot.clear();
            self.slot.resize(bodies, u32::MAX);
        }
        self.moving.clear();
        self.moving_bodies.clear();
        self.still.clear();
        self.still_bodies.clear();
    }

    /// Gives the moving bodies their solved velocities (the store stage).
    pub(super) fn store(&self, bodies: &mut [Body]) {
        for (i, v) in self.moving_bodies.iter().zip(&self.moving) {
            bodies[*i].velocity = v.v;
            bodies[*i].angular_velocity = v.w;
        }
    }
}

/// Slot flag of a body the step does not move (fixed, kinematic, asleep): read-only.
pub(super) const STILL: u32 = 1 << 31;

/// The velocity slots of the moving bodies a part of a step touches (see
/// [`Part`](super::split::Part)).
pub(super) trait Slots {
    /// Velocity of moving slot `s`.
    fn get(&self, s: u32) -> Vel;
    /// Stores the velocity of moving slot `s`.
    fn set(&mut self, s: u32, v: Vel);
}

/// Every moving slot of the step, from 0.
impl Slots for Vec<Vel> {
    #[inline(always)]
    fn get(&self, s: u32) -> Vel {
        self[s as usize]
    }
    #[inline(always)]
    fn set(&mut self, s: u32, v: Vel) {
        self[s as usize] = v;
    }
}

/// Consecutive slots: `moving` holds slots from `base` on (a node's of the step's tree).
pub(super) struct Slice<'a> {
    pub(super) moving: &'a mut [Vel],
    pub(super) base: u32,
}

impl Slots for Slice<'_> {
    #[inline(always)]
    fn get(&self, s: u32) -> Vel {
        self.moving[(s - self.base) as usize]
    }
    #[inline(always)]
    fn set(&mut self, s: u32, v: Vel) {
        self.moving[(s - self.base) as usize] = v;
    }
}

/// Velocity of slot `s`: a read-only slot from `still`, a moving one from `slots`.
#[inline(always)]
pub(super) fn read(s: u32, slots: &impl Slots, still: &[Vel]) -> Vel {
    if s & STILL != 0 {
        still[(s & !STILL) as usize]
    } else {
        slots.get(s)
    }
}
