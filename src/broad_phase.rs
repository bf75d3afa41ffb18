//! broad_phase (pending).
