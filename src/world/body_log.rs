//! The records of bodies coming and going and of the probes' values, kept by the world until
//! the run's writers take them ([`super::World::take_insertions`], `take_removals`), and the
//! probes' values over the last frame ([`super::World::probe_rows`]).

/// A body added to the world: when, which, what added it (a source's name) and which of its
/// kinds of body it is (0 for a source of one kind).
#[derive(Clone, Debug, PartialEq)]
pub struct Insertion {
    /// The world time it was inserted at (s).
    pub t: f64,
    /// Its name.
    pub body: String,
    /// What added it.
    pub by: String,
    /// Its kind among those of `by`.
    pub kind: u32,
}

/// A body taken out of the world: when, which, and what took it (a sink's name).
#[derive(Clone, Debug, PartialEq)]
pub struct Removal {
    /// The world time it was taken out at (s).
    pub t: f64,
    /// Its name.
    pub body: String,
    /// What took it out.
    pub by: String,
}

/// One value a probe measured over a frame (a row of `probes.csv`).
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeRow {
    /// The frame's end (s).
    pub t: f64,
    /// The probe's name.
    pub probe: String,
    /// What it is (`bodies`, `mass`, `solid_fraction`, …).
    pub quantity: &'static str,
    /// Its value.
    pub value: f64,
}
