//! body (pending).
