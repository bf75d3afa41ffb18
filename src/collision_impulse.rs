//! collision_impulse (pending).
