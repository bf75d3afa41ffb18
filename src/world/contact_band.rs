//! The contact band's widths and targets, as fractions of ε_c: where a pair is measured again,
//! where a contact step aims its contacts and which pairs it takes, and the narrower band of a
//! held pair. Shared by the bound policy ([`super::bounds`]), the contact step and the local
//! re-solves; see `docs/design.md`, The contact band.

/// Fraction of ε_c a pair inside the contact band may close before it is measured again when no
/// hop return can be bounded (see `bounds::band_target`).
pub(super) const BAND_STEP: f64 = 1.0 / 16.0;

/// Gap below which a pair in the band steps by a fixed `ZENO_GAP`·ε_c (`bounds::band_target`).
pub(super) const ZENO_GAP: f64 = 1e-3;

/// Separation (fraction of ε_c) a contact step aims every resting contact point at by the
/// step's end.
pub(super) const RESTING_TARGET: f64 = 0.5;

/// Contact points up to this far apart (multiple of ε_c) at a step's start enter the step.
pub(super) const RESTING_MARGIN: f64 = 2.0;

/// Contact band (fraction of ε_c) of a pair whose contacts a contact step holds: the event
/// machinery takes over only if a point gets this close after all (a prediction that missed).
pub(super) const HELD_BAND: f64 = 0.25;

/// Held band (fraction of ε_c) of a pair in a jammed island (`world/jam.rs`): its contacts are
/// solved as a whole at every step's start, so the event machinery steps in only where a
/// prediction missed by most of the target, not for every pair the pile's sinking under its
/// own load brings past `HELD_BAND` (most of a jam's events when it runs on events).
pub(super) const JAMMED_BAND: f64 = 1.0 / 16.0;
