//! The bodies' velocities inside the solver: one slot per body of the step ([`Vel`]), moving
//! slots numbered from 0 and read-only ones flagged [`STILL`], and the [`Slots`] views a part of
//! a step sweeps through (every slot, or one node's of the step's tree).

use glam::DVec3;

/// Velocity of a body inside the solver.
#[derive(Clone, Copy, Default)]
pub(super) struct Vel {
    pub(super) v: DVec3,
    pub(super) w: DVec3,
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
